/*
 * The hash state machine around the kernels: start, absorb with buffering,
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
static const uint32_t sha224_iv[8] = VN_SHA224_IV;
static const uint32_t sha256_iv[8] = VN_SHA256_IV;

int vn_digest_size(int algorithm) {
    return algorithm == VN_MD5 ? 16 : algorithm == VN_SHA224 ? 28 : 32;
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

static int core_of(int algorithm) { return algorithm == VN_MD5 ? VN_CORE_MD5 : VN_CORE_SHA256; }

/* The initial chaining state of `algorithm`, and the kernel it runs unless told
 * otherwise, with that kernel's flag (vn_note) in *ran. */
static vn_blocks_fn *initial(int algorithm, uint32_t state[8], unsigned char **ran) {
    const int core = core_of(algorithm);
    if (algorithm == VN_MD5) {
        memcpy(state, md5_iv, sizeof md5_iv);
        memset(state + 4, 0, 4 * sizeof state[0]);
    } else {
        memcpy(state, algorithm == VN_SHA224 ? sha224_iv : sha256_iv, 8 * sizeof state[0]);
    }
    *ran = vn_ran_flag(core, vn_kernel_chosen(core));
    return vn_chosen(core);
}

void vn_init(vn_state *s, int algorithm, vn_blocks_fn *blocks) {
    unsigned char *ran;
    vn_blocks_fn *chosen = initial(algorithm, s->state, &ran);
    s->blocks = blocks ? blocks : chosen;
    s->ran = blocks ? vn_ran_flag_of(core_of(algorithm), blocks) : ran;
    s->algorithm = algorithm;
    s->length = 0;
}

/* Complete a buffered block, run the whole blocks straight from `data`,
 * buffer what is left. */
void vn_absorb(vn_state *s, const unsigned char *data, size_t length) {
    if (!length) return;
    const size_t used = (size_t)(s->length % 64);
    s->length += length;
    if (used) {
        const size_t need = 64 - used;
        if (length < need) {
            memcpy(s->buffer + used, data, length);
            return;
        }
        memcpy(s->buffer + used, data, need);
        s->blocks(s->state, s->buffer, 1);
        vn_note(s->ran);
        data += need;
        length -= need;
    }
    const size_t whole = length / 64;
    if (whole) {
        s->blocks(s->state, data, whole);
        vn_note(s->ran);
        data += 64 * whole;
        length -= 64 * whole;
    }
    if (length) memcpy(s->buffer, data, length);
}

/* Pad the message of `length` bytes whose last `length % 64` are `tail` (the
 * blocks before them are already in `state`), run the last block or two, and
 * write the digest of `algorithm` to `out`; `ran` is the kernel's flag (vn_note).
 * Returns the digest size. */
static int finish(int algorithm, vn_blocks_fn *blocks, unsigned char *ran, uint32_t *state,
                  const unsigned char *tail, uint64_t length, unsigned char *out) {
    vn_note(ran);
    unsigned char last[128];
    blocks(state, last, pad(algorithm, tail, length, last));

    /* MD5 writes its words little-endian, SHA-2 big-endian */
    const int digest_size = vn_digest_size(algorithm);
    for (int i = 0; i < digest_size / 4; i++) {
        if (algorithm == VN_MD5) {
            put_le32(out + 4 * i, state[i]);
        } else {
            put_be32(out + 4 * i, state[i]);
        }
    }
    return digest_size;
}

int vn_final(const vn_state *s, unsigned char *out) {
    uint32_t state[8];
    memcpy(state, s->state, sizeof state);
    return finish(s->algorithm, s->blocks, s->ran, state, s->buffer, s->length, out);
}

int vn_oneshot(int algorithm, const char *data, size_t length, char *out) {
    uint32_t state[8];
    unsigned char *ran;
    vn_blocks_fn *blocks = initial(algorithm, state, &ran);
    const size_t whole = length / 64;
    if (whole) blocks(state, (const unsigned char *)data, whole);
    const unsigned char *tail = length % 64 ? (const unsigned char *)data + 64 * whole : NULL;
    return finish(algorithm, blocks, ran, state, tail, length, (unsigned char *)out);
}

void vn_hex_many(const unsigned char *in, size_t size, size_t count, char *out) {
#if defined(__SSE2__)
    /* a column's digests: too many for the cache, written past it (no read of
     * each line before it is written) */
    if (size % 16 == 0 && (uintptr_t)out % 16 == 0) {
        for (size_t i = 0; i < count * size; i += 16) hex16(in + i, out + 2 * i, 1);
        _mm_sfence();
        return;
    }
#endif
    for (size_t k = 0; k < count; k++) vn_hex(in + k * size, size, out + 2 * k * size);
}
