/**
 * SHA-512, SHA-384, SHA-512/224 and SHA-512/256 (FIPS 180-4): the constants and initial values
 * both styles use; {@link Sha512Helpers} and {@link Sha512Streamlined} each write the block
 * function (section 6.4.2) in their own style. The other three are SHA-512 from another
 * initial value, its digest cut (sections 6.5, 6.6, 6.7), as in the JDK's SHA5.
 */
abstract class Sha512 extends LongBlockHash {
    /** Section 4.2.3: the cube roots of the first 80 primes, their fractions' first 64 bits. */
    static final long[] K = {
        0x428a2f98d728ae22L, 0x7137449123ef65cdL,
        0xb5c0fbcfec4d3b2fL, 0xe9b5dba58189dbbcL,
        0x3956c25bf348b538L, 0x59f111f1b605d019L,
        0x923f82a4af194f9bL, 0xab1c5ed5da6d8118L,
        0xd807aa98a3030242L, 0x12835b0145706fbeL,
        0x243185be4ee4b28cL, 0x550c7dc3d5ffb4e2L,
        0x72be5d74f27b896fL, 0x80deb1fe3b1696b1L,
        0x9bdc06a725c71235L, 0xc19bf174cf692694L,
        0xe49b69c19ef14ad2L, 0xefbe4786384f25e3L,
        0x0fc19dc68b8cd5b5L, 0x240ca1cc77ac9c65L,
        0x2de92c6f592b0275L, 0x4a7484aa6ea6e483L,
        0x5cb0a9dcbd41fbd4L, 0x76f988da831153b5L,
        0x983e5152ee66dfabL, 0xa831c66d2db43210L,
        0xb00327c898fb213fL, 0xbf597fc7beef0ee4L,
        0xc6e00bf33da88fc2L, 0xd5a79147930aa725L,
        0x06ca6351e003826fL, 0x142929670a0e6e70L,
        0x27b70a8546d22ffcL, 0x2e1b21385c26c926L,
        0x4d2c6dfc5ac42aedL, 0x53380d139d95b3dfL,
        0x650a73548baf63deL, 0x766a0abb3c77b2a8L,
        0x81c2c92e47edaee6L, 0x92722c851482353bL,
        0xa2bfe8a14cf10364L, 0xa81a664bbc423001L,
        0xc24b8b70d0f89791L, 0xc76c51a30654be30L,
        0xd192e819d6ef5218L, 0xd69906245565a910L,
        0xf40e35855771202aL, 0x106aa07032bbd1b8L,
        0x19a4c116b8d2d0c8L, 0x1e376c085141ab53L,
        0x2748774cdf8eeb99L, 0x34b0bcb5e19b48a8L,
        0x391c0cb3c5c95a63L, 0x4ed8aa4ae3418acbL,
        0x5b9cca4f7763e373L, 0x682e6ff3d6b2b8a3L,
        0x748f82ee5defb2fcL, 0x78a5636f43172f60L,
        0x84c87814a1f0ab72L, 0x8cc702081a6439ecL,
        0x90befffa23631e28L, 0xa4506cebde82bde9L,
        0xbef9a3f7b2c67915L, 0xc67178f2e372532bL,
        0xca273eceea26619cL, 0xd186b8c721c0c207L,
        0xeada7dd6cde0eb1eL, 0xf57d4f7fee6ed178L,
        0x06f067aa72176fbaL, 0x0a637dc5a2c898a6L,
        0x113f9804bef90daeL, 0x1b710b35131c471bL,
        0x28db77f523047d84L, 0x32caab7b40c72493L,
        0x3c9ebe0a15c9bebcL, 0x431d67c49c100d4cL,
        0x4cc5d4becb3e42b6L, 0x597f299cfc657e2aL,
        0x5fcb6fab3ad6faecL, 0x6c44198c4a475817L,
    };
    /** Section 5.3.5. */
    private static final long[] IV512 = {
        0x6a09e667f3bcc908L, 0xbb67ae8584caa73bL,
        0x3c6ef372fe94f82bL, 0xa54ff53a5f1d36f1L,
        0x510e527fade682d1L, 0x9b05688c2b3e6c1fL,
        0x1f83d9abfb41bd6bL, 0x5be0cd19137e2179L,
    };
    /** Section 5.3.4. */
    private static final long[] IV384 = {
        0xcbbb9d5dc1059ed8L, 0x629a292a367cd507L,
        0x9159015a3070dd17L, 0x152fecd8f70e5939L,
        0x67332667ffc00b31L, 0x8eb44a8768581511L,
        0xdb0c2e0d64f98fa7L, 0x47b5481dbefa4fa4L,
    };
    /** Section 5.3.6.1. */
    private static final long[] IV512_224 = {
        0x8c3d37c819544da2L, 0x73e1996689dcd4d6L,
        0x1dfab7ae32ff9c82L, 0x679dd514582f9fcfL,
        0x0f6d2b697bd44da8L, 0x77e36f7304c48942L,
        0x3f9d85a86a1d36c8L, 0x1112e6ad91d692a1L,
    };
    /** Section 5.3.6.2. */
    private static final long[] IV512_256 = {
        0x22312194fc2bf72cL, 0x9f555fa3c84c64c2L,
        0x2393b86b6f53b151L, 0x963877195940eabdL,
        0x96283ee2a88effe3L, 0xbe5e1e2553863992L,
        0x2b0199fc2c85b8aaL, 0x0eb72ddc81c52ca2L,
    };

    /** The algorithm ("sha384", "sha512", "sha512_224", "sha512_256"); a schedule of 80 words. */
    Sha512(String algorithm) {
        super(iv(algorithm), digestBytes(algorithm), 80);
    }

    private static long[] iv(String algorithm) {
        switch (algorithm) {
            case "sha384":
                return IV384;
            case "sha512":
                return IV512;
            case "sha512_224":
                return IV512_224;
            case "sha512_256":
                return IV512_256;
            default:
                throw new IllegalArgumentException("not of the SHA-512 core: " + algorithm);
        }
    }

    private static int digestBytes(String algorithm) {
        switch (algorithm) {
            case "sha384":
                return 48;
            case "sha512_224":
                return 28;
            case "sha512_256":
                return 32;
            default:
                return 64;
        }
    }

    /** The end of a block: the working variables added into the state (both styles, once). */
    final void addState(long a, long b, long c, long d, long e, long f, long g, long h) {
        long[] s = state;
        s[0] += a;
        s[1] += b;
        s[2] += c;
        s[3] += d;
        s[4] += e;
        s[5] += f;
        s[6] += g;
        s[7] += h;
    }
}
