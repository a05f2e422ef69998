/**
 * SHA-1 (FIPS 180-4): the constants and initial value both styles use; {@link Sha1Helpers}
 * and {@link Sha1Streamlined} each write the block function (section 6.1.2) in their own
 * style, over the shell MD5 and SHA-256 share (64-byte blocks of 32-bit words).
 */
abstract class Sha1 extends BlockHash {
    /** Section 4.2.1: the constant of each group of twenty rounds. */
    static final int K0 = 0x5a827999;
    static final int K1 = 0x6ed9eba1;
    static final int K2 = 0x8f1bbcdc;
    static final int K3 = 0xca62c1d6;
    /** Section 5.3.1. */
    private static final int[] IV = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};

    /** SHA-1: five words of state and of digest, a schedule of 80 words. */
    Sha1() {
        super(IV, 5, true, 80);
    }

    /** The end of a block: the working variables added into the state (both styles, once). */
    final void addState(int a, int b, int c, int d, int e) {
        int[] s = state;
        s[0] += a;
        s[1] += b;
        s[2] += c;
        s[3] += d;
        s[4] += e;
    }
}
