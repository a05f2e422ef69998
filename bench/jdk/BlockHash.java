import java.util.Arrays;
import java.util.Objects;

/**
 * The shell both coding styles share: MD5 and SHA-256 alike hash 64-byte blocks and pad the
 * message with 0x80, zeros and its length in bits as a 64-bit word (RFC 1321 3.1-3.2, FIPS
 * 180-4 5.1.1). Only {@link #compress} differs between the styles, so that a difference in
 * speed between two variants of one algorithm is the block function's.
 */
abstract class BlockHash implements Hasher {
    static final int BLOCK = 64;

    /** The chaining state: MD5's A, B, C, D; SHA-256's H0..H7. */
    final int[] state;
    /** The message words of the block being processed (MD5's X, SHA-256's schedule W). */
    final int[] words;
    private final int[] iv;
    private final int digestWords;
    private final boolean bigEndian;
    private final byte[] buffer = new byte[BLOCK];
    private int buffered;
    private long bytes;

    /**
     * An algorithm whose state starts as {@code iv}, whose words are read in the byte order
     * {@code bigEndian} says (the length too), whose digest is the first {@code digestWords}
     * words of the state and whose block function keeps {@code words} message words.
     */
    BlockHash(int[] iv, int digestWords, boolean bigEndian, int words) {
        this.state = iv.clone();
        this.iv = iv;
        this.digestWords = digestWords;
        this.bigEndian = bigEndian;
        this.words = new int[words];
    }

    /** Process the 64-byte block of {@code block} at {@code offset} into the state. */
    abstract void compress(byte[] block, int offset);

    @Override
    public final void update(byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, data.length);
        bytes += length;
        if (buffered > 0) {
            int take = Math.min(BLOCK - buffered, length);
            System.arraycopy(data, offset, buffer, buffered, take);
            buffered += take;
            offset += take;
            length -= take;
            if (buffered < BLOCK) {
                return;
            }
            compress(buffer, 0);
            buffered = 0;
        }
        for (; length >= BLOCK; offset += BLOCK, length -= BLOCK) {
            compress(data, offset);
        }
        System.arraycopy(data, offset, buffer, 0, length);
        buffered = length;
    }

    @Override
    public final byte[] digest() {
        long bits = bytes << 3;
        buffer[buffered++] = (byte) 0x80;
        if (buffered > BLOCK - 8) {
            Arrays.fill(buffer, buffered, BLOCK, (byte) 0);
            compress(buffer, 0);
            buffered = 0;
        }
        Arrays.fill(buffer, buffered, BLOCK - 8, (byte) 0);
        for (int i = 0; i < 8; i++) {
            buffer[bigEndian ? BLOCK - 1 - i : BLOCK - 8 + i] = (byte) (bits >>> (8 * i));
        }
        compress(buffer, 0);
        byte[] out = new byte[4 * digestWords];
        for (int i = 0; i < out.length; i++) {
            int shift = bigEndian ? 24 - 8 * (i & 3) : 8 * (i & 3);
            out[i] = (byte) (state[i >> 2] >>> shift);
        }
        reset();
        return out;
    }

    /** Forget what was hashed: the state of an empty message. */
    final void reset() {
        buffered = 0;
        bytes = 0;
        System.arraycopy(iv, 0, state, 0, iv.length);
    }

    /**
     * The 16 32-bit words of the block into {@link #words}, in the algorithm's byte order; the
     * words. Both styles call it once per block (as the JDK's SHA2 calls its b2iBig64).
     */
    final int[] loadWords(byte[] block, int offset) {
        int[] words = this.words;
        for (int i = 0; i < 16; i++, offset += 4) {
            int b0 = block[offset] & 0xff;
            int b1 = block[offset + 1] & 0xff;
            int b2 = block[offset + 2] & 0xff;
            int b3 = block[offset + 3] & 0xff;
            words[i] = bigEndian
                    ? b0 << 24 | b1 << 16 | b2 << 8 | b3
                    : b3 << 24 | b2 << 16 | b1 << 8 | b0;
        }
        return words;
    }
}
