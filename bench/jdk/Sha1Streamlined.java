/**
 * SHA-1's block function in the streamlined style, the shape of the JDK's own SHA (its
 * implCompress0, JDK 17): the schedule loop and four loops of twenty rounds, each with its
 * round function, rotations and constant written into it, the state in locals.
 */
final class Sha1Streamlined extends Sha1 {
    @Override
    void compress(byte[] block, int offset) {
        int[] w = loadWords(block, offset);
        for (int t = 16; t < 80; t++) {
            int x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
            w[t] = (x << 1) | (x >>> 31);
        }
        int a = state[0];
        int b = state[1];
        int c = state[2];
        int d = state[3];
        int e = state[4];
        for (int t = 0; t < 20; t++) {
            int temp = ((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + w[t] + K0;
            e = d;
            d = c;
            c = (b << 30) | (b >>> 2);
            b = a;
            a = temp;
        }
        for (int t = 20; t < 40; t++) {
            int temp = ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + w[t] + K1;
            e = d;
            d = c;
            c = (b << 30) | (b >>> 2);
            b = a;
            a = temp;
        }
        for (int t = 40; t < 60; t++) {
            int temp = ((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + w[t] + K2;
            e = d;
            d = c;
            c = (b << 30) | (b >>> 2);
            b = a;
            a = temp;
        }
        for (int t = 60; t < 80; t++) {
            int temp = ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + w[t] + K3;
            e = d;
            d = c;
            c = (b << 30) | (b >>> 2);
            b = a;
            a = temp;
        }
        addState(a, b, c, d, e);
    }
}
