// The region adjacency graph on the CPU, in three steps.
//
// 1. Bands of rows side by side, each reading a row and the row below once for every direction.
//    Position x of row y owns the pairs of its 2x2 window (r: row y, b: row y + 1):
//
//        r[x] r[x+1]      right        (r[x], r[x+1])
//        b[x] b[x+1]      below        (r[x], b[x])
//                         below-right  (r[x], b[x+1])     8-connectivity only
//                         below-left   (r[x+1], b[x])     8-connectivity only
//
//    The last column owns only its below pair, the last row only right pairs, so every unordered
//    neighbour pair has one owner. Sixteen windows are tested at a time for one label throughout,
//    and eight at a time for their counted pairs (AVX2 where the processor has it): most of a
//    drawing is one region or the paper, and without include_background a pair with label 0 is not
//    counted either. Before, four passes a row pair, one a direction, looked at every pixel that
//    differed from its neighbour.
// 2. A counted pair reaches the band's list through two filters: the last pair (a boundary along
//    a row gives one pair at every pixel, in three directions; across a row, in three directions at
//    one pixel) and a small direct-mapped cache (the boundaries that cross a row mostly cross the
//    next). The list is of what the cache evicts (see BandPairs).
// 3. The lists become sorted edges in src/cpu/adjacency_pairs.cpp (shared with the volumes' pass).
#include "core/adjacency_backends.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/parallel_for.hpp"
#include "cpu/adjacency_pairs.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CCLABEL_ADJ_AVX2 1
#endif

namespace cclabel::detail {
namespace {

/// Which pairs a row owns: right only (the last row), right and below (4-connectivity), or all
/// four directions (8-connectivity).
enum Dirs { kRight, kFour, kEight };

// Masks of eight windows: bit 8d + i is set when window i has a counted pair in direction d
// (0 right, 1 below, 2 below-right, 3 below-left).

/// The masks of windows 0..n-1 (n ≤ 8) at @p r, @p b (reads n + 1 labels of each row).
template <Dirs D, bool Bg>
inline std::uint32_t masks_scalar(const std::uint32_t* r, const std::uint32_t* b, std::int64_t n) {
    std::uint32_t m = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        m |= std::uint32_t(counted<Bg>(r[i], r[i + 1])) << i;
        if constexpr (D != kRight) m |= std::uint32_t(counted<Bg>(r[i], b[i])) << (8 + i);
        if constexpr (D == kEight) {
            m |= std::uint32_t(counted<Bg>(r[i], b[i + 1])) << (16 + i);
            m |= std::uint32_t(counted<Bg>(r[i + 1], b[i])) << (24 + i);
        }
    }
    return m;
}

/// Each direction's windows in turn, so that a boundary's one pair in several directions reaches
/// the band as one run.
template <Dirs D>
inline void emit(std::uint32_t m, const std::uint32_t* r, const std::uint32_t* b, BandPairs& acc) {
    for (std::uint32_t k = m & 0xFFu; k; k &= k - 1) {
        const int i = std::countr_zero(k);
        acc.add(pair_key(r[i], r[i + 1]));
    }
    if constexpr (D != kRight)
        for (std::uint32_t k = (m >> 8) & 0xFFu; k; k &= k - 1) {
            const int i = std::countr_zero(k);
            acc.add(pair_key(r[i], b[i]));
        }
    if constexpr (D == kEight) {
        for (std::uint32_t k = (m >> 16) & 0xFFu; k; k &= k - 1) {
            const int i = std::countr_zero(k);
            acc.add(pair_key(r[i], b[i + 1]));
        }
        for (std::uint32_t k = m >> 24; k; k &= k - 1) {
            const int i = std::countr_zero(k);
            acc.add(pair_key(r[i + 1], b[i]));
        }
    }
}

/// Windows x.. of the row, then the last column's below pair.
template <Dirs D, bool Bg>
inline void finish_row(const std::uint32_t* r, const std::uint32_t* b, std::int64_t x, std::int64_t w,
                       BandPairs& acc) {
    for (; x < w - 1; x += 8)
        if (const std::uint32_t m = masks_scalar<D, Bg>(r + x, b + x, std::min<std::int64_t>(8, w - 1 - x)))
            emit<D>(m, r + x, b + x, acc);
    if constexpr (D != kRight)
        if (counted<Bg>(r[w - 1], b[w - 1])) acc.add(pair_key(r[w - 1], b[w - 1]));
}

#if CCLABEL_ADJ_AVX2
/// The lanes where (p, q) is counted, as bits (zp, zq: the lanes where p, q are 0).
template <bool Bg>
__attribute__((target("avx2"), always_inline)) inline std::uint32_t counted8(__m256i p, __m256i q, __m256i zp,
                                                                              __m256i zq) {
    __m256i skip = _mm256_cmpeq_epi32(p, q);
    if constexpr (!Bg) skip = _mm256_or_si256(skip, _mm256_or_si256(zp, zq));
    return ~std::uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(skip))) & 0xFFu;
}

/// masks_scalar of eight windows (reads nine labels of each row).
template <Dirs D, bool Bg>
__attribute__((target("avx2"), always_inline)) inline std::uint32_t masks8_avx2(const std::uint32_t* r,
                                                                                 const std::uint32_t* b) {
    const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r));
    const __m256i r1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + 1));
    const __m256i zero = _mm256_setzero_si256();
    const __m256i zr0 = Bg ? zero : _mm256_cmpeq_epi32(r0, zero), zr1 = Bg ? zero : _mm256_cmpeq_epi32(r1, zero);
    std::uint32_t m = counted8<Bg>(r0, r1, zr0, zr1);
    if constexpr (D != kRight) {
        const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
        const __m256i zb0 = Bg ? zero : _mm256_cmpeq_epi32(b0, zero);
        m |= counted8<Bg>(r0, b0, zr0, zb0) << 8;
        if constexpr (D == kEight) {
            const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 1));
            const __m256i zb1 = Bg ? zero : _mm256_cmpeq_epi32(b1, zero);
            m |= counted8<Bg>(r0, b1, zr0, zb1) << 16;
            m |= counted8<Bg>(r1, b0, zr1, zb0) << 24;
        }
    }
    return m;
}

/// Whether the eight windows at @p r, @p b may hold a pair at all: some window is not one label
/// throughout (right and below are enough to look at without below-right and below-left).
template <Dirs D>
__attribute__((target("avx2"), always_inline)) inline __m256i differ8(const std::uint32_t* r, const std::uint32_t* b) {
    const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r));
    __m256i d = _mm256_xor_si256(r0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + 1)));
    if constexpr (D != kRight) {
        const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
        d = _mm256_or_si256(d, _mm256_xor_si256(r0, b0));
        if constexpr (D == kEight)
            d = _mm256_or_si256(d, _mm256_xor_si256(b0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 1))));
    }
    return d;
}

template <Dirs D, bool Bg>
__attribute__((target("avx2"))) void scan_row_avx2(const std::uint32_t* r, const std::uint32_t* b, std::int64_t w,
                                                    BandPairs& acc) {
    std::int64_t x = 0;
    // Sixteen windows at a time: most of them, on a drawing, are one label throughout (the test is
    // a third of the masks' work).
    for (; x + 16 < w; x += 16) {
        if (_mm256_testz_si256(_mm256_or_si256(differ8<D>(r + x, b + x), differ8<D>(r + x + 8, b + x + 8)),
                               _mm256_set1_epi32(-1)))
            continue;
        if (const std::uint32_t m = masks8_avx2<D, Bg>(r + x, b + x)) emit<D>(m, r + x, b + x, acc);
        if (const std::uint32_t m = masks8_avx2<D, Bg>(r + x + 8, b + x + 8)) emit<D>(m, r + x + 8, b + x + 8, acc);
    }
    for (; x + 8 < w; x += 8)
        if (const std::uint32_t m = masks8_avx2<D, Bg>(r + x, b + x)) emit<D>(m, r + x, b + x, acc);
    finish_row<D, Bg>(r, b, x, w, acc);
}
#endif

template <Dirs D, bool Bg>
void scan_row(const std::uint32_t* r, const std::uint32_t* b, std::int64_t w, BandPairs& acc) {
#if CCLABEL_ADJ_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return scan_row_avx2<D, Bg>(r, b, w, acc);
#endif
    finish_row<D, Bg>(r, b, 0, w, acc);
}

template <bool Bg>
void scan_band(const std::uint32_t* labels, std::int64_t w, std::int64_t h, std::int64_t stride, int connectivity,
               std::int64_t y0, std::int64_t y1, BandPairs& acc) {
    for (std::int64_t y = y0; y < y1; ++y) {
        const std::uint32_t* row = labels + y * stride;
        if (y + 1 == h) scan_row<kRight, Bg>(row, row, w, acc);
        else if (connectivity == 8) scan_row<kEight, Bg>(row, row + stride, w, acc);
        else scan_row<kFour, Bg>(row, row + stride, w, acc);
    }
}

}  // namespace

void scan_plane_rows(const std::uint32_t* labels, std::int64_t width, std::int64_t height, std::int64_t stride,
                     int connectivity, std::int64_t y0, std::int64_t y1, bool include_background, BandPairs& acc) {
    if (include_background) scan_band<true>(labels, width, height, stride, connectivity, y0, y1, acc);
    else scan_band<false>(labels, width, height, stride, connectivity, y0, y1, acc);
}

std::vector<AdjacencyEdge> adjacency_cpu(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                         std::int64_t stride, int connectivity, bool include_background, int threads) {
    threads = std::max(threads, 1);
    const int bands = int(std::min<std::int64_t>(threads, height));
    std::vector<BandPairs> acc(static_cast<std::size_t>(bands));
    parallel_for(std::uint64_t(bands), threads, [&](std::uint64_t b) {
        const std::int64_t y0 = height * std::int64_t(b) / bands, y1 = height * std::int64_t(b + 1) / bands;
        acc[b] = BandPairs(std::uint64_t(width) * std::uint64_t(y1 - y0));  // its cache made on its thread
        if (include_background) scan_band<true>(labels, width, height, stride, connectivity, y0, y1, acc[b]);
        else scan_band<false>(labels, width, height, stride, connectivity, y0, y1, acc[b]);
        acc[b].finish();
    });
    return gather_pairs(acc, threads);
}

}  // namespace cclabel::detail
