/**
 * SHA-256's block function in the helper style, as the JDK's SHA2 was before 8256523 (and its
 * SHA5 still is): a small static method per function of FIPS 180-4 section 4.1.2 (Ch, Maj,
 * Σ0, Σ1, σ0, σ1) and per operation of section 3.2 (ROTR, SHR), called from the two loops
 * of section 6.2.2 (the schedule, the 64 rounds).
 */
final class Sha256Helpers extends Sha256 {
    Sha256Helpers(boolean sha224) {
        super(sha224);
    }

    static int rotr(int x, int n) {
        return (x >>> n) | (x << (32 - n));
    }

    static int shr(int x, int n) {
        return x >>> n;
    }

    static int ch(int x, int y, int z) {
        return (x & y) ^ (~x & z);
    }

    static int maj(int x, int y, int z) {
        return (x & y) ^ (x & z) ^ (y & z);
    }

    static int bigSigma0(int x) {
        return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22);
    }

    static int bigSigma1(int x) {
        return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25);
    }

    static int smallSigma0(int x) {
        return rotr(x, 7) ^ rotr(x, 18) ^ shr(x, 3);
    }

    static int smallSigma1(int x) {
        return rotr(x, 17) ^ rotr(x, 19) ^ shr(x, 10);
    }

    @Override
    void compress(byte[] block, int offset) {
        int[] w = loadWords(block, offset);
        int[] k = K;
        for (int t = 16; t < 64; t++) {
            w[t] = smallSigma1(w[t - 2]) + w[t - 7] + smallSigma0(w[t - 15]) + w[t - 16];
        }
        int a = state[0];
        int b = state[1];
        int c = state[2];
        int d = state[3];
        int e = state[4];
        int f = state[5];
        int g = state[6];
        int h = state[7];
        for (int t = 0; t < 64; t++) {
            int t1 = h + bigSigma1(e) + ch(e, f, g) + k[t] + w[t];
            int t2 = bigSigma0(a) + maj(a, b, c);
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        addState(a, b, c, d, e, f, g, h);
    }
}
