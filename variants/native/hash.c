/*
 * The hash state machine around the kernels (64-byte blocks of 32-bit words,
 * or the SHA-512 core's 128-byte blocks of 64-bit words): start, absorb with buffering,
 * the final digest (which leaves the state as it was), and a one-shot
 * digest of a whole message. No locks: the bridges bring their own.
 */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "constants.h"
#include "native.h"
#include "padding.h"

static const uint32_t md5_iv[4] = VN_MD5_IV;
static const uint32_t sha1_iv[5] = VN_SHA1_IV;
static const uint32_t sha224_iv[8] = VN_SHA224_IV;
static const uint32_t sha256_iv[8] = VN_SHA256_IV;
static const uint64_t sha384_iv[8] = VN_SHA384_IV;
static const uint64_t sha512_iv[8] = VN_SHA512_IV;
static const uint64_t sha512_224_iv[8] = VN_SHA512_224_IV;
static const uint64_t sha512_256_iv[8] = VN_SHA512_256_IV;

int vn_digest_size(int algorithm) {
    static const unsigned char size[VN_ALGORITHMS] = {16, 28, 32, 20, 48, 64, 28, 32};
    return size[algorithm];
}

/* Four bytes as eight hexadecimal digits, in the bytes of a 64-bit word
 * (little-endian: the first digit in the lowest byte), by arithmetic on all
 * eight at once: no table, no branch. */
static inline uint64_t hex8(uint32_t four) {
    uint64_t x = four; /* byte k of the input in bits 8k .. 8k+7 */
    x = (x | x << 16) & 0x0000FFFF0000FFFFull;
    x = (x | x << 8) & 0x00FF00FF00FF00FFull; /* byte k in the low half of 16-bit lane k */
    const uint64_t low = 0x000F000F000F000Full;
    x = ((x >> 4) & low) | ((x & low) << 8); /* lane k: its high nibble, then its low one */
    /* a nibble n becomes '0' + n, or 'a' + n - 10 from 10 on (+39 more) */
    const uint64_t letters = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
    return x + 0x3030303030303030ull + letters * 39;
}

#if defined(__SSE2__)
/* Sixteen bytes as 32 digits in SSE2 (the x86-64 baseline): the nibbles
 * interleaved, then '0' + n, and 39 more where n > 9; stored straight to
 * memory past the cache if `stream` (out 16-byte aligned). */
static inline void hex16(const unsigned char *in, char *out, int stream) {
    const __m128i x = _mm_loadu_si128((const __m128i *)in), low = _mm_set1_epi8(15);
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), low), lo = _mm_and_si128(x, low);
    __m128i a = _mm_unpacklo_epi8(hi, lo), b = _mm_unpackhi_epi8(hi, lo);
    const __m128i nine = _mm_set1_epi8(9), zero = _mm_set1_epi8('0'), more = _mm_set1_epi8(39);
    a = _mm_add_epi8(_mm_add_epi8(a, zero), _mm_and_si128(_mm_cmpgt_epi8(a, nine), more));
    b = _mm_add_epi8(_mm_add_epi8(b, zero), _mm_and_si128(_mm_cmpgt_epi8(b, nine), more));
    if (stream) {
        _mm_stream_si128((__m128i *)out, a);
        _mm_stream_si128((__m128i *)(out + 16), b);
    } else {
        _mm_storeu_si128((__m128i *)out, a);
        _mm_storeu_si128((__m128i *)(out + 16), b);
    }
}
#endif

void vn_hex(const unsigned char *in, size_t size, char *out) {
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= size; i += 16) hex16(in + i, out + 2 * i, 0);
#endif
    for (; i + 4 <= size; i += 4) {
        uint32_t four;
        memcpy(&four, in + i, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        four = __builtin_bswap32(four);
#endif
        uint64_t digits = hex8(four);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        digits = __builtin_bswap64(digits);
#endif
        memcpy(out + 2 * i, &digits, 8);
    }
    static const char digits[] = "0123456789abcdef";
    for (; i < size; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
}

/* The initial chaining state of `algorithm` (the words it does not use zero),
 * and the kernel it runs unless told otherwise (a vn_blocks64_fn, cast, for
 * the SHA-512 core), with that kernel's flag (vn_note) in *ran. */
static vn_blocks_fn *initial(int algorithm, vn_state *s, unsigned char **ran) {
    const int core = vn_core_of(algorithm);
    *ran = vn_ran_flag(core, vn_kernel_chosen(core));
    if (vn_wide(algorithm)) {
        static const uint64_t *const ivs[4] = {sha384_iv, sha512_iv, sha512_224_iv, sha512_256_iv};
        memcpy(s->state64, ivs[algorithm - VN_SHA384], sizeof s->state64);
        return (vn_blocks_fn *)vn_chosen64(core);
    }
    static const uint32_t *const ivs[4] = {md5_iv, sha224_iv, sha256_iv, sha1_iv};
    static const unsigned char words[4] = {4, 8, 8, 5};
    memset(s->state64, 0, sizeof s->state64); /* all of the union: copies read it whole */
    memcpy(s->state, ivs[algorithm], words[algorithm] * sizeof s->state[0]);
    return vn_chosen(core);
}

void vn_init(vn_state *s, int algorithm, vn_blocks_fn *blocks) {
    unsigned char *ran;
    vn_blocks_fn *chosen = initial(algorithm, s, &ran);
    s->blocks = blocks ? blocks : chosen;
    if (!blocks) {
        s->ran = ran;
    } else if (vn_wide(algorithm)) {
        s->ran = vn_ran_flag_of64(vn_core_of(algorithm), (vn_blocks64_fn *)blocks);
    } else {
        s->ran = vn_ran_flag_of(vn_core_of(algorithm), blocks);
    }
    s->algorithm = algorithm;
    s->length = 0;
}

/* `blocks` whole blocks at `data` into the chaining state of `s`. */
static inline void run(vn_state *s, const unsigned char *data, size_t blocks, const int wide) {
    if (wide) {
        s->blocks64(s->state64, data, blocks);
    } else {
        s->blocks(s->state, data, blocks);
    }
}

/* Complete a buffered block, run the whole blocks straight from `data`,
 * buffer what is left (`wide`: 128-byte blocks, a constant where inlined). */
static inline void absorb(vn_state *s, const unsigned char *data, size_t length, const int wide) {
    const size_t block = wide ? 128 : 64;
    const size_t used = (size_t)(s->length % block);
    s->length += length;
    if (used) {
        const size_t need = block - used;
        if (length < need) {
            memcpy(s->buffer + used, data, length);
            return;
        }
        memcpy(s->buffer + used, data, need);
        run(s, s->buffer, 1, wide);
        vn_note(s->ran);
        data += need;
        length -= need;
    }
    const size_t whole = length / block;
    if (whole) {
        run(s, data, whole, wide);
        vn_note(s->ran);
        data += block * whole;
        length -= block * whole;
    }
    if (length) memcpy(s->buffer, data, length);
}

void vn_absorb(vn_state *s, const unsigned char *data, size_t length) {
    if (!length) return;
    if (vn_wide(s->algorithm)) {
        absorb(s, data, length, 1);
    } else {
        absorb(s, data, length, 0);
    }
}

/* Pad the message of `s->length` bytes whose last `length % block` are
 * `tail` (the blocks before them are already in the chaining state of `s`,
 * a copy), run the last block or two, and write the digest to `out`.
 * Returns the digest size. */
static int finish(vn_state *s, const unsigned char *tail, unsigned char *out) {
    vn_note(s->ran);
    unsigned char last[2 * VN_MAX_BLOCK];
    const int algorithm = s->algorithm, digest_size = vn_digest_size(algorithm);
    const size_t blocks = pad(algorithm, tail, s->length, last);
    if (vn_wide(algorithm)) {
        run(s, last, blocks, 1);
        put_digest64(s->state64, digest_size, out);
    } else {
        run(s, last, blocks, 0);
        put_digest32(algorithm, s->state, digest_size, out);
    }
    return digest_size;
}

int vn_final(const vn_state *s, unsigned char *out) {
    vn_state copy;
    memcpy(copy.state64, s->state64, sizeof copy.state64);
    copy.length = s->length;
    copy.blocks = s->blocks;
    copy.ran = s->ran;
    copy.algorithm = s->algorithm;
    return finish(&copy, s->buffer, out);
}

int vn_oneshot(int algorithm, const char *data, size_t length, char *out) {
    vn_state s;
    s.blocks = initial(algorithm, &s, &s.ran);
    s.algorithm = algorithm;
    s.length = length;
    const size_t block = (size_t)vn_block_size(algorithm), whole = length / block;
    if (whole) run(&s, (const unsigned char *)data, whole, vn_wide(algorithm));
    const unsigned char *tail = length % block ? (const unsigned char *)data + block * whole : NULL;
    return finish(&s, tail, (unsigned char *)out);
}

void vn_hex_many(const unsigned char *in, size_t size, size_t count, char *out) {
#if defined(__SSE2__)
    /* a column's digests: too many for the cache, written past it (no read of
     * each line before it is written). The digests lie one after another, and
     * so do their digits: the hex of the whole run, 16 bytes at a time
     * whatever the digest's size (20, 28, 48 as well), the last few by vn_hex. */
    if ((uintptr_t)out % 16 == 0) {
        const size_t total = count * size, whole = total / 16 * 16;
        for (size_t i = 0; i < whole; i += 16) hex16(in + i, out + 2 * i, 1);
        _mm_sfence();
        vn_hex(in + whole, total - whole, out + 2 * whole);
        return;
    }
#endif
    for (size_t k = 0; k < count; k++) vn_hex(in + k * size, size, out + 2 * k * size);
}
