/**
 * MD5 (RFC 1321): its initial state and byte order; {@link Md5Helpers} and
 * {@link Md5Streamlined} each write the block function (section 3.4) in their own style.
 */
abstract class Md5 extends BlockHash {
    /** Section 3.3: the words A, B, C, D before the first block. */
    private static final int[] IV = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

    Md5() {
        super(IV, 4, false, 16);
    }

    /** The end of a block: the registers added into the state (both styles, once a block). */
    final void addState(int a, int b, int c, int d) {
        int[] s = state;
        s[0] += a;
        s[1] += b;
        s[2] += c;
        s[3] += d;
    }
}
