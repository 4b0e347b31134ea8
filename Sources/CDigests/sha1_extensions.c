// SHA-1's compression function on the x86-64 SHA extensions (FIPS 180-4 §6.1.2; the instructions
// as Intel's Software Developer's Manual defines SHA1RNDS4, SHA1NEXTE, SHA1MSG1 and SHA1MSG2).
// Digests' Swift compression is the reference and the fallback; its tests compare the two.

#include "pushline_sha1.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

int pushline_sha1_has_extensions(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int ssse3 = (ecx >> 9) & 1, sse41 = (ecx >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const int sha = (ebx >> 29) & 1;
    return ssse3 && sse41 && sha;
}

// One group of four rounds, i (1 to 19) of the block's 20, with round function `f` (i / 5):
// the group's four message words (loaded for i < 4, else from the four before them), E taken from
// A as it was before the previous group, then the rounds.
#define GROUP(f)                                                                                    \
    do {                                                                                            \
        __m128i words;                                                                              \
        if (i < 4) {                                                                                \
            words = schedule[i];                                                                    \
        } else {                                                                                    \
            words = _mm_sha1msg1_epu32(schedule[(i - 4) & 3], schedule[(i - 3) & 3]);              \
            words = _mm_xor_si128(words, schedule[(i - 2) & 3]);                                    \
            words = _mm_sha1msg2_epu32(words, schedule[(i - 1) & 3]);                               \
            schedule[i & 3] = words;                                                                \
        }                                                                                           \
        const __m128i e = _mm_sha1nexte_epu32(previous, words);                                     \
        previous = abcd;                                                                            \
        abcd = _mm_sha1rnds4_epu32(abcd, e, f);                                                     \
    } while (0)

__attribute__((target("sha,sse4.1,ssse3")))
void pushline_sha1_compress_extensions(uint32_t state[5], const void *data, size_t count) {
    const uint8_t *blocks = data;
    // Big-endian words: reverse each 16-byte load's bytes (word 0 of the block ends in lane 3).
    const __m128i byteOrder = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
    // A in lane 3, D in lane 0: the order SHA1RNDS4 keeps them in.
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1B);
    __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0);
    for (; count > 0; count--, blocks += 64) {
        const __m128i savedABCD = abcd, savedE = e0;
        __m128i schedule[4];
        for (int word = 0; word < 4; word++) {
            schedule[word] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16 * word)), byteOrder);
        }
        // Group 0: E is the state's, added to the first word.
        __m128i previous = abcd;
        abcd = _mm_sha1rnds4_epu32(abcd, _mm_add_epi32(e0, schedule[0]), 0);
        int i = 1;
        for (; i < 5; i++) GROUP(0);
        for (; i < 10; i++) GROUP(1);
        for (; i < 15; i++) GROUP(2);
        for (; i < 20; i++) GROUP(3);
        // E after the last group comes from A before it; then the block's sums.
        e0 = _mm_sha1nexte_epu32(previous, savedE);
        abcd = _mm_add_epi32(abcd, savedABCD);
    }
    _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1B));
    state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

#else

int pushline_sha1_has_extensions(void) { return 0; }

void pushline_sha1_compress_extensions(uint32_t state[5], const void *data, size_t count) {
    (void)state; (void)data; (void)count;
    __builtin_trap();
}

#endif
