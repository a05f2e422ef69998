/**
 * SHA-512's block function in the helper style, the shape of the JDK's own SHA5 (JDK 17 and
 * 25 alike): its static methods under its names, lf_ch and lf_maj (FIPS 180-4 4.1.3's Ch and
 * Maj), lf_S and lf_R (section 3.2's ROTR and SHR), lf_sigma0 and lf_sigma1 (Σ0, Σ1),
 * lf_delta0 and lf_delta1 (σ0, σ1), called from the two loops of section 6.4.2 (the
 * schedule, the 80 rounds), as its implCompress0 calls them.
 */
final class Sha512Helpers extends Sha512 {
    Sha512Helpers(String algorithm) {
        super(algorithm);
    }

    static long lf_ch(long x, long y, long z) {
        return (x & y) ^ ((~x) & z);
    }

    static long lf_maj(long x, long y, long z) {
        return (x & y) ^ (x & z) ^ (y & z);
    }

    static long lf_R(long x, int s) {
        return (x >>> s);
    }

    static long lf_S(long x, int s) {
        return (x >>> s) | (x << (64 - s));
    }

    static long lf_sigma0(long x) {
        return lf_S(x, 28) ^ lf_S(x, 34) ^ lf_S(x, 39);
    }

    static long lf_sigma1(long x) {
        return lf_S(x, 14) ^ lf_S(x, 18) ^ lf_S(x, 41);
    }

    static long lf_delta0(long x) {
        return lf_S(x, 1) ^ lf_S(x, 8) ^ lf_R(x, 7);
    }

    static long lf_delta1(long x) {
        return lf_S(x, 19) ^ lf_S(x, 61) ^ lf_R(x, 6);
    }

    @Override
    void compress(byte[] block, int offset) {
        long[] w = loadWords(block, offset);
        long[] k = K;
        for (int t = 16; t < 80; t++) {
            w[t] = lf_delta1(w[t - 2]) + w[t - 7] + lf_delta0(w[t - 15]) + w[t - 16];
        }
        long a = state[0];
        long b = state[1];
        long c = state[2];
        long d = state[3];
        long e = state[4];
        long f = state[5];
        long g = state[6];
        long h = state[7];
        for (int t = 0; t < 80; t++) {
            long t1 = h + lf_sigma1(e) + lf_ch(e, f, g) + k[t] + w[t];
            long t2 = lf_sigma0(a) + lf_maj(a, b, c);
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
