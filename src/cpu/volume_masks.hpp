#pragma once
// Codes from bit masks, for the voxel scan's rows of sparse noise (cpu/volume_voxels.hpp,
// Switches::mask_codes). Where a voxel and its earlier neighbours have one foreground value (a
// binary volume: cc3d's usual input), "same key as me" for a foreground voxel is "foreground", so
// its 13 code bits are three-bit windows of the foreground masks of its five rows:
//
//     bit 0: row (y, z) at x - 1;  bits 1..3, 4..6, 7..9, 10..12: rows (y - 1, z), (y - 1, z - 1),
//     (y, z - 1), (y + 1, z - 1) at x - 1 .. x + 1
//
// so a row of sparse noise needs no row of codes (a 13-compare vector pass over every voxel, a
// quarter of binary 0.1's time at 26) and no pass to find its foreground: each foreground voxel
// shifts five words. Each row's masks are made once, when the scan reaches it, in a ring of two
// slices; a row is "pure" when every foreground voxel has the one value (the first foreground
// value the slab met), and only rows whose five rows are all pure take this path.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace cclabel::cpu::masks {

/// Foreground masks of the rows of two slices, row (y, z) at slot (z % 2) * h + y, plus a row of
/// zeros (slot 2h) for rows that are not there. Each row: a word of zeros, the row's words (bit
/// x % 64 of word x / 64: voxel x is foreground; bits past the row's end zero), a word of zeros, so
/// that the window around any x, 0 <= x < w, is one unaligned 64-bit load.
struct RowMasks {
    std::uint32_t words = 0, stride = 0;
    std::vector<std::uint64_t> bits;
    std::vector<std::uint8_t> pure;
    void reset(std::int64_t h, std::uint32_t w) {
        words = (w + 63) / 64;
        stride = words + 2;
        bits.assign((2 * std::size_t(h) + 1) * stride, 0);
        pure.assign(2 * std::size_t(h) + 1, 1);
    }
    std::uint64_t* row(std::size_t slot) { return bits.data() + slot * stride + 1; }
    const std::uint64_t* row(std::size_t slot) const { return bits.data() + slot * stride + 1; }
};

/// Bits x - 1, x, x + 1 of the row @p m (RowMasks::row) as bits 0..2.
inline std::uint32_t window(const std::uint64_t* m, std::uint32_t x) {
    const std::uint32_t g = x + 63;  // bit x - 1, counted from the word of zeros before the row
    std::uint64_t v;
    std::memcpy(&v, reinterpret_cast<const unsigned char*>(m - 1) + g / 8, 8);
    return std::uint32_t(v >> (g % 8)) & 7u;
}

/// The foreground mask of a row of keys @p k into @p m; returns the foreground count, and in
/// @p pure whether every foreground key is @p v.
template <typename T>
std::uint32_t make_row_plain(const T* k, std::uint32_t w, T bg, T v, std::uint64_t* m, bool& pure) {
    std::uint32_t fg = 0;
    bool ok = true;
    for (std::uint32_t i = 0; i * 64 < w; ++i) {
        const std::uint32_t x0 = i * 64, n = std::min<std::uint32_t>(64, w - x0);
        std::uint64_t f = 0, e = 0;
        for (std::uint32_t j = 0; j < n; ++j) {
            f |= std::uint64_t(k[x0 + j] != bg) << j;
            e |= std::uint64_t(k[x0 + j] == v) << j;
        }
        m[i] = f;
        ok &= f == e;
        fg += std::uint32_t(__builtin_popcountll(f));
    }
    pure = ok;
    return fg;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// make_row_plain for one-byte keys, 32 a compare.
__attribute__((target("avx2,popcnt"))) inline std::uint32_t make_row_avx2(const std::uint8_t* k, std::uint32_t w,
                                                                          std::uint8_t bg, std::uint8_t v,
                                                                          std::uint64_t* m, bool& pure) {
    const __m256i vb = _mm256_set1_epi8(char(bg)), vv = _mm256_set1_epi8(char(v));
    std::uint32_t fg = 0, x = 0;
    bool ok = true;
    for (; x + 64 <= w; x += 64) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k + x));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k + x + 32));
        const std::uint64_t f = ~(std::uint64_t(std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, vb)))) |
                                  std::uint64_t(std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, vb)))) << 32);
        const std::uint64_t e = std::uint64_t(std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, vv)))) |
                                std::uint64_t(std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, vv)))) << 32;
        m[x / 64] = f;
        ok &= f == e;
        fg += std::uint32_t(_mm_popcnt_u64(f));
    }
    if (x < w) {
        bool p = true;
        fg += make_row_plain<std::uint8_t>(k + x, w - x, bg, v, m + x / 64, p);
        ok &= p;
    }
    pure = ok;
    return fg;
}
#endif

template <typename T>
std::uint32_t make_row(const T* k, std::uint32_t w, T bg, T v, std::uint64_t* m, bool& pure, bool avx2) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if constexpr (sizeof(T) == 1) {
        if (avx2) return make_row_avx2(k, w, bg, v, m, pure);
    }
#endif
    (void)avx2;
    return make_row_plain<T>(k, w, bg, v, m, pure);
}

/// The code (volume_voxels.hpp's layout) of foreground voxel @p x from the masks of its row
/// @p k, the row above @p u, and rows @p a, @p b, @p c of the slice behind (y - 1, y, y + 1),
/// under connectivity @p Conn.
/// Under 6 and 18 only the bits the connectivity uses are read: single bits where only x counts.
template <int Conn>
std::uint32_t code_of(const std::uint64_t* k, const std::uint64_t* u, const std::uint64_t* a, const std::uint64_t* b,
                      const std::uint64_t* c, std::uint32_t x) {
    auto bit = [x](const std::uint64_t* m) { return std::uint32_t(m[x / 64] >> (x % 64)) & 1u; };
    const std::uint32_t l = window(k, x) & 1u;
    if constexpr (Conn == 6) return l | bit(u) << 2 | bit(b) << 8;
    if constexpr (Conn == 18) return l | window(u, x) << 1 | bit(a) << 5 | window(b, x) << 7 | bit(c) << 11;
    return l | window(u, x) << 1 | window(a, x) << 4 | window(b, x) << 7 | window(c, x) << 10;
}

}  // namespace cclabel::cpu::masks
