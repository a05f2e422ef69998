/**
 * SHA-1's block function in the helper style, as the JDK's SHA5 is written: a small static
 * method per function of FIPS 180-4 section 4.1.1 (Ch, Parity, Maj) and per operation of
 * section 3.2 (ROTL), called from the same loops as {@link Sha1Streamlined} (the schedule,
 * four groups of twenty rounds).
 */
final class Sha1Helpers extends Sha1 {
    static int rotl(int x, int n) {
        return (x << n) | (x >>> (32 - n));
    }

    static int ch(int x, int y, int z) {
        return (x & y) | (~x & z);
    }

    static int parity(int x, int y, int z) {
        return x ^ y ^ z;
    }

    static int maj(int x, int y, int z) {
        return (x & y) | (x & z) | (y & z);
    }

    @Override
    void compress(byte[] block, int offset) {
        int[] w = loadWords(block, offset);
        for (int t = 16; t < 80; t++) {
            w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
        }
        int a = state[0];
        int b = state[1];
        int c = state[2];
        int d = state[3];
        int e = state[4];
        for (int t = 0; t < 20; t++) {
            int temp = rotl(a, 5) + ch(b, c, d) + e + w[t] + K0;
            e = d;
            d = c;
            c = rotl(b, 30);
            b = a;
            a = temp;
        }
        for (int t = 20; t < 40; t++) {
            int temp = rotl(a, 5) + parity(b, c, d) + e + w[t] + K1;
            e = d;
            d = c;
            c = rotl(b, 30);
            b = a;
            a = temp;
        }
        for (int t = 40; t < 60; t++) {
            int temp = rotl(a, 5) + maj(b, c, d) + e + w[t] + K2;
            e = d;
            d = c;
            c = rotl(b, 30);
            b = a;
            a = temp;
        }
        for (int t = 60; t < 80; t++) {
            int temp = rotl(a, 5) + parity(b, c, d) + e + w[t] + K3;
            e = d;
            d = c;
            c = rotl(b, 30);
            b = a;
            a = temp;
        }
        addState(a, b, c, d, e);
    }
}
