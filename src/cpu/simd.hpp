#pragma once
// The two row loops of the CPU labeller that the compiler cannot vectorise by itself, written with
// x86 intrinsics behind a run-time check of the processor (the library itself targets plain
// x86-64), with portable scalar versions that give the same results everywhere else.
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CCLABEL_X86_SIMD 1
#endif

namespace cclabel::cpu::simd {

inline void rgb8_keys_scalar(const std::uint8_t* row, std::uint32_t n, std::uint32_t* keys) {
    for (std::uint32_t x = 0; x < n; ++x) {
        const std::uint8_t* p = row + std::size_t(x) * 3;
        keys[x] = std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16);
    }
}

inline std::uint64_t replace_run_scalar(std::uint32_t* out, std::uint64_t i, std::uint64_t end, std::uint32_t v,
                                        std::uint32_t number) {
    while (i < end && out[i] == v) out[i++] = number;
    return i;
}

/// From @p i on, while out[i] == i + 1 (the pixel is its own root), gives it the next number
/// (++n); returns the first i that is not a root, or end.
inline std::uint64_t number_roots_scalar(std::uint32_t* out, std::uint64_t i, std::uint64_t end, std::uint32_t& n) {
    while (i < end && out[i] == std::uint32_t(i + 1)) out[i++] = ++n;
    return i;
}

#if CCLABEL_X86_SIMD
__attribute__((target("avx2"))) inline std::uint64_t number_roots_avx2(std::uint32_t* out, std::uint64_t i,
                                                                        std::uint64_t end, std::uint32_t& n) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    while (i + 8 <= end) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(out + i));
        const __m256i self = _mm256_add_epi32(_mm256_set1_epi32(int(std::uint32_t(i + 1))), lane);
        const unsigned eq = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, self))));
        const __m256i numbers = _mm256_add_epi32(_mm256_set1_epi32(int(n + 1)), lane);
        if (eq != 0xFF) {
            const int k = __builtin_ctz(~eq);  // first lane that is not a root
            _mm256_maskstore_epi32(reinterpret_cast<int*>(out + i), _mm256_cmpgt_epi32(_mm256_set1_epi32(k), lane),
                                   numbers);
            n += std::uint32_t(k);
            return i + std::uint64_t(k);
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), numbers);
        n += 8;
        i += 8;
    }
    return number_roots_scalar(out, i, end, n);
}

__attribute__((target("ssse3"))) inline void rgb8_keys_ssse3(const std::uint8_t* row, std::uint32_t n,
                                                               std::uint32_t* keys) {
    // Four pixels are 12 bytes; one shuffle spreads them over four 32-bit lanes with zero tops.
    const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    std::uint32_t x = 0;
    // A 16-byte load reads 4 bytes past the 4 pixels: stop while 16 bytes remain in the row.
    for (; x + 6 <= n; x += 4) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + std::size_t(x) * 3));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(keys + x), _mm_shuffle_epi8(v, spread));
    }
    rgb8_keys_scalar(row + std::size_t(x) * 3, n - x, keys + x);
}

__attribute__((target("avx2"))) inline std::uint64_t replace_run_avx2(std::uint32_t* out, std::uint64_t i,
                                                                       std::uint64_t end, std::uint32_t v,
                                                                       std::uint32_t number) {
    const __m256i vv = _mm256_set1_epi32(int(v)), nn = _mm256_set1_epi32(int(number));
    while (i + 8 <= end) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(out + i));
        const unsigned eq = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, vv))));
        if (eq != 0xFF) {
            const int k = __builtin_ctz(~eq);  // first lane that differs; lanes below it are v
            const __m256i below = _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            _mm256_maskstore_epi32(reinterpret_cast<int*>(out + i), below, nn);
            return i + std::uint64_t(k);
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), nn);
        i += 8;
    }
    return replace_run_scalar(out, i, end, v, number);
}
#endif

/// Bit x of @p up (LSB first in each byte): kc[x] == kp[x] and kc[x] is not the background; of
/// @p bgbits: kc[x] is the background (all zero without one). Both hold n bits and are zero from
/// bit n up to the end of byte (n + 7) / 8 + 8, so that a 64-bit read at any byte below n / 8 + 1
/// sees zeros past the row.
inline void eq_bits_scalar(const std::uint32_t* kp, const std::uint32_t* kc, std::uint32_t n, bool has_bg,
                           std::uint32_t bg, std::uint8_t* up, std::uint8_t* bgbits, std::uint32_t from = 0) {
    std::memset(up + from / 8, 0, (n + 7) / 8 + 8 - from / 8);
    std::memset(bgbits + from / 8, 0, (n + 7) / 8 + 8 - from / 8);
    for (std::uint32_t x = from; x < n; ++x) {
        const bool g = has_bg && kc[x] == bg;
        up[x / 8] |= std::uint8_t(std::uint32_t(!g && kc[x] == kp[x]) << (x % 8));
        bgbits[x / 8] |= std::uint8_t(std::uint32_t(g) << (x % 8));
    }
}

#if CCLABEL_X86_SIMD
__attribute__((target("avx2"))) inline void eq_bits_avx2(const std::uint32_t* kp, const std::uint32_t* kc,
                                                          std::uint32_t n, bool has_bg, std::uint32_t bg,
                                                          std::uint8_t* up, std::uint8_t* bgbits) {
    std::uint32_t x = 0;
    const __m256i bgv = _mm256_set1_epi32(int(bg));
    if (has_bg) {
        for (; x + 8 <= n; x += 8) {
            const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kc + x));
            const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kp + x));
            const unsigned e = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))));
            const unsigned g = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, bgv))));
            up[x / 8] = std::uint8_t(e & ~g);
            bgbits[x / 8] = std::uint8_t(g);
        }
    } else {
        for (; x + 8 <= n; x += 8) {
            const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kc + x));
            const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kp + x));
            up[x / 8] = std::uint8_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))));
        }
    }
    if (!has_bg) std::memset(bgbits, 0, x / 8);
    eq_bits_scalar(kp, kc, n, has_bg, bg, up, bgbits, x);
}

/// Eight RGB8 pixels at @p row as keys in the 32-bit lanes (reads 32 bytes: 8 past the pixels).
__attribute__((target("avx2"))) inline __m256i rgb8_keys8_avx2(const std::uint8_t* row) {
    const __m256i spread = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,  //
                                            0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row));
    // Bytes 0..15 to the low half, 12..27 to the high half: pixels 0..3 and 4..7 at each half's start.
    const __m256i halves = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6));
    return _mm256_shuffle_epi8(halves, spread);
}

__attribute__((target("avx2"))) inline void rgb8_keys_avx2(const std::uint8_t* row, std::uint32_t n, std::uint32_t* keys) {
    std::uint32_t x = 0;
    for (; x + 11 <= n; x += 8)  // the 32-byte load stays within the row
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys + x), rgb8_keys8_avx2(row + std::size_t(x) * 3));
    rgb8_keys_scalar(row + std::size_t(x) * 3, n - x, keys + x);
}

/// rgb8_keys and eq_bits in one pass over a row (@p kp: the keys of the row above, @p kc: this
/// row's, written here).
__attribute__((target("avx2"))) inline void rgb8_keys_eq_bits_avx2(const std::uint8_t* row, const std::uint32_t* kp,
                                                                    std::uint32_t* kc, std::uint32_t n, bool has_bg,
                                                                    std::uint32_t bg, std::uint8_t* up,
                                                                    std::uint8_t* bgbits) {
    std::uint32_t x = 0;
    if (has_bg) {
        const __m256i bgv = _mm256_set1_epi32(int(bg));
        for (; x + 11 <= n; x += 8) {
            const __m256i a = rgb8_keys8_avx2(row + std::size_t(x) * 3);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(kc + x), a);
            const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kp + x));
            const unsigned e = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))));
            const unsigned g = unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, bgv))));
            up[x / 8] = std::uint8_t(e & ~g);
            bgbits[x / 8] = std::uint8_t(g);
        }
    } else {
        for (; x + 11 <= n; x += 8) {
            const __m256i a = rgb8_keys8_avx2(row + std::size_t(x) * 3);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(kc + x), a);
            const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kp + x));
            up[x / 8] = std::uint8_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))));
        }
        std::memset(bgbits, 0, x / 8);
    }
    rgb8_keys_scalar(row + std::size_t(x) * 3, n - x, kc + x);
    eq_bits_scalar(kp, kc, n, has_bg, bg, up, bgbits, x);
}
#endif

/// Copies src[x, e) to dst[x, e) within a row of @p w. Where eight labels fit after the stretch it
/// copies whole blocks of eight, past e: those pixels of the row are written again later in the
/// row's scan, and no branch depends on the stretch's length modulo 8 (a library call's size
/// classes and a tail loop mispredict on the short stretches of drawings).
inline void copy_stretch(const std::uint32_t* src, std::uint32_t* dst, std::uint32_t x, std::uint32_t e,
                         std::uint32_t w) {
    if (e + 8 <= w) {
        for (; x < e; x += 8) std::memcpy(dst + x, src + x, 32);
    } else {
        std::memcpy(dst + x, src + x, std::size_t(e - x) * 4);
    }
}

/// See eq_bits_scalar.
inline void eq_bits(const std::uint32_t* kp, const std::uint32_t* kc, std::uint32_t n, bool has_bg, std::uint32_t bg,
                    std::uint8_t* up, std::uint8_t* bgbits) {
#if CCLABEL_X86_SIMD
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return eq_bits_avx2(kp, kc, n, has_bg, bg, up, bgbits);
#endif
    eq_bits_scalar(kp, kc, n, has_bg, bg, up, bgbits);
}

/// First x at or after @p x whose bit in @p bits (see eq_bits) is 0: the end of a run of ones.
inline std::uint32_t ones_end(const std::uint8_t* bits, std::uint32_t x) {
    for (;;) {
        std::uint64_t word;
        std::memcpy(&word, bits + x / 8, 8);
        const std::uint64_t rest = ~(word >> (x % 8));  // at least 56 valid bits
        const int k = std::countr_zero(rest);
        if (k < 56) return x + std::uint32_t(k);
        x += 56;
    }
}

/// RGB8 keys (R | G << 8 | B << 16, as PixelTraits packs them) of @p n pixels.
inline void rgb8_keys(const std::uint8_t* row, std::uint32_t n, std::uint32_t* keys) {
#if CCLABEL_X86_SIMD
    static const bool avx2 = __builtin_cpu_supports("avx2"), ssse3 = __builtin_cpu_supports("ssse3");
    if (avx2) return rgb8_keys_avx2(row, n, keys);
    if (ssse3) return rgb8_keys_ssse3(row, n, keys);
#endif
    rgb8_keys_scalar(row, n, keys);
}

/// Sets out[i] = @p number for i = begin, begin + 1, ... while out[i] == @p v (before end); returns
/// the first i where out[i] != v, or end.
inline std::uint64_t replace_run(std::uint32_t* out, std::uint64_t begin, std::uint64_t end, std::uint32_t v,
                                 std::uint32_t number) {
#if CCLABEL_X86_SIMD
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return replace_run_avx2(out, begin, end, v, number);
#endif
    return replace_run_scalar(out, begin, end, v, number);
}

/// See number_roots_scalar.
inline std::uint64_t number_roots(std::uint32_t* out, std::uint64_t i, std::uint64_t end, std::uint32_t& n) {
#if CCLABEL_X86_SIMD
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return number_roots_avx2(out, i, end, n);
#endif
    return number_roots_scalar(out, i, end, n);
}

}  // namespace cclabel::cpu::simd
