/**
 * SHA-256's block function in the streamlined style, as the JDK's SHA2 is since 8256523: the
 * same two loops as {@link Sha256Helpers}, with Ch, Maj, Σ0, Σ1, σ0, σ1 and the rotations
 * written into them (the same expressions), the state in locals.
 */
final class Sha256Streamlined extends Sha256 {
    Sha256Streamlined(boolean sha224) {
        super(sha224);
    }

    @Override
    void compress(byte[] block, int offset) {
        int[] w = loadWords(block, offset);
        int[] k = K;
        for (int t = 16; t < 64; t++) {
            int x = w[t - 2];
            int y = w[t - 15];
            w[t] = ((x >>> 17 | x << 15) ^ (x >>> 19 | x << 13) ^ x >>> 10) + w[t - 7]
                    + ((y >>> 7 | y << 25) ^ (y >>> 18 | y << 14) ^ y >>> 3) + w[t - 16];
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
            int t1 = h + ((e >>> 6 | e << 26) ^ (e >>> 11 | e << 21) ^ (e >>> 25 | e << 7))
                    + ((e & f) ^ (~e & g)) + k[t] + w[t];
            int t2 = ((a >>> 2 | a << 30) ^ (a >>> 13 | a << 19) ^ (a >>> 22 | a << 10))
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
