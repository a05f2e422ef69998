/**
 * SHA-512's block function in the streamlined style, the JDK's SHA2 since 8256523 applied to
 * SHA-512 (as {@link Sha256Streamlined} is to SHA-256): the same two loops as {@link
 * Sha512Helpers}, with Ch, Maj, Σ0, Σ1, σ0, σ1 and the rotations written into them (the same
 * expressions), the state in locals.
 */
final class Sha512Streamlined extends Sha512 {
    Sha512Streamlined(String algorithm) {
        super(algorithm);
    }

    @Override
    void compress(byte[] block, int offset) {
        long[] w = loadWords(block, offset);
        long[] k = K;
        for (int t = 16; t < 80; t++) {
            long x = w[t - 2];
            long y = w[t - 15];
            w[t] = ((x >>> 19 | x << 45) ^ (x >>> 61 | x << 3) ^ x >>> 6) + w[t - 7]
                    + ((y >>> 1 | y << 63) ^ (y >>> 8 | y << 56) ^ y >>> 7) + w[t - 16];
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
            long t1 = h + ((e >>> 14 | e << 50) ^ (e >>> 18 | e << 46) ^ (e >>> 41 | e << 23))
                    + ((e & f) ^ (~e & g)) + k[t] + w[t];
            long t2 = ((a >>> 28 | a << 36) ^ (a >>> 34 | a << 30) ^ (a >>> 39 | a << 25))
                    + ((a & b) ^ (a & c) ^ (b & c));
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
