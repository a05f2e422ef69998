import java.util.Arrays;
import java.util.Objects;

/**
 * The shell both coding styles of SHA-512 share, {@link BlockHash} for 64-bit words: 128-byte
 * blocks, big-endian, the message padded with 0x80, zeros and its length in bits as a 128-bit
 * word (FIPS 180-4 5.1.2). Only {@link #compress} differs between the styles, so that a
 * difference in speed between the two is the block function's.
 */
abstract class LongBlockHash implements Hasher {
    static final int BLOCK = 128;

    /** The chaining state: SHA-512's H0..H7. */
    final long[] state;
    /** The message schedule W of the block being processed. */
    final long[] words;
    private final long[] iv;
    private final int digestBytes;
    private final byte[] buffer = new byte[BLOCK];
    private int buffered;
    private long bytes;

    /**
     * An algorithm whose state starts as {@code iv}, whose digest is the first {@code
     * digestBytes} bytes of the state and whose block function keeps {@code words} message
     * words.
     */
    LongBlockHash(long[] iv, int digestBytes, int words) {
        this.state = iv.clone();
        this.iv = iv;
        this.digestBytes = digestBytes;
        this.words = new long[words];
    }

    /** Process the 128-byte block of {@code block} at {@code offset} into the state. */
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
        long low = bytes << 3;
        long high = bytes >>> 61;
        buffer[buffered++] = (byte) 0x80;
        if (buffered > BLOCK - 16) {
            Arrays.fill(buffer, buffered, BLOCK, (byte) 0);
            compress(buffer, 0);
            buffered = 0;
        }
        Arrays.fill(buffer, buffered, BLOCK - 16, (byte) 0);
        for (int i = 0; i < 8; i++) {
            buffer[BLOCK - 1 - i] = (byte) (low >>> (8 * i));
            buffer[BLOCK - 9 - i] = (byte) (high >>> (8 * i));
        }
        compress(buffer, 0);
        byte[] out = new byte[digestBytes];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) (state[i >> 3] >>> (56 - 8 * (i & 7)));
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
     * The 16 big-endian 64-bit words of the block into {@link #words}; the words. Both styles
     * call it once per block (as the JDK's SHA5 calls its b2lBig128).
     */
    final long[] loadWords(byte[] block, int offset) {
        long[] words = this.words;
        for (int i = 0; i < 16; i++, offset += 8) {
            long word = 0;
            for (int j = 0; j < 8; j++) {
                word = word << 8 | (block[offset + j] & 0xff);
            }
            words[i] = word;
        }
        return words;
    }
}
