#pragma once
// Packed rows of the voxel scan (cpu/volume_voxels.hpp, Switches::packed_rows), for volumes of
// mostly background. The scan labels into a ring of two slices (the current one and the one
// behind, all its neighbours reach) and stores a finished slice in the label volume either as it
// is or, when every row of it is at most half foreground, as its rows packed back to back from the
// start of the slice's place:
//
//     per row: [ (w + 63) / 64 words of 64 bits: voxel x is foreground ] [ the foreground's ids ]
//
// The last pass copies a packed slice's rows out of its place and unpacks them into final labels.
// Sparse noise (binary 0.1) then writes a seventh of the label volume in the scan instead of all
// of it, zeros included, and the last pass reads that much back and looks up the foreground's
// labels only, where it read, looked up and rewrote every voxel. The packed rows go to the label
// volume a slice at a time, in order: rows written to their own places (every 1 KiB at 256^3)
// missed the cache on each store and lost what they saved. Foreground is "id not 0": the ring
// holds 0 for the background and ids from base + 1 up.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace cclabel::cpu::packed {

/// u32 slots of a packed row's foreground mask.
inline std::uint32_t mask_slots(std::uint32_t w) { return 2 * ((w + 63) / 64); }

/// Whether a row of @p w voxels with @p fg foreground voxels can be packed: at most half
/// foreground, and the mask and the ids take no more room than the row, so that a slice's packed
/// rows fit its place in the label volume.
inline bool worth(std::uint32_t fg, std::uint32_t w) {
    return std::uint64_t(fg) * 2 <= w && std::uint64_t(mask_slots(w)) + fg <= w;
}

/// For a byte of mask bits, lanes 0..7 of vpermd: compress: the positions of the set bits first;
/// expand: for each set bit, how many set bits come before it.
struct Tables {
    std::uint8_t compress[256][8];
    std::uint8_t expand[256][8];
};
constexpr Tables make_tables() {
    Tables t{};
    for (int m = 0; m < 256; ++m) {
        int k = 0;
        for (int j = 0; j < 8; ++j) {
            t.expand[m][j] = std::uint8_t(k);
            if (m >> j & 1) t.compress[m][k++] = std::uint8_t(j);
        }
    }
    return t;
}
inline constexpr Tables kTables = make_tables();

/// Packs the row @p row (@p w ids, 0 for background) into @p dst (worth() must hold); returns the
/// foreground count.
/// Voxels @p j .. @p n − 1 of the 64 from @p x0, one at a time: their bits into @p m, their ids from
/// ids[k] on (the plain packer, and the AVX2 one's tail).
inline void pack_voxels(const std::uint32_t* row, std::uint32_t x0, std::uint32_t j, std::uint32_t n,
                        std::uint32_t* ids, std::uint32_t& k, std::uint64_t& m) {
    for (; j < n; ++j) {
        const std::uint32_t v = row[x0 + j];
        m |= std::uint64_t(v != 0) << j;
        ids[k] = v;
        k += v != 0;
    }
}

inline std::uint32_t pack_plain(const std::uint32_t* row, std::uint32_t w, std::uint32_t* dst) {
    const std::uint32_t words = (w + 63) / 64;
    std::uint32_t* ids = dst + mask_slots(w);
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < words; ++i) {
        std::uint64_t m = 0;
        const std::uint32_t x0 = i * 64, n = std::min<std::uint32_t>(64, w - x0);
        pack_voxels(row, x0, 0, n, ids, k, m);
        std::memcpy(dst + 2 * i, &m, 8);
    }
    return k;
}

/// The foreground voxels of the packed row at @p src: the bits of its @p words mask words (the
/// plain and the AVX2 unpackers; popcnt where the caller's target has it).
inline std::uint32_t foreground_count(const std::uint32_t* src, std::uint32_t words) {
    std::uint32_t fg = 0;
    for (std::uint32_t i = 0; i < words; ++i) {
        std::uint64_t m;
        std::memcpy(&m, src + 2 * i, 8);
        fg += std::uint32_t(__builtin_popcountll(m));
    }
    return fg;
}

/// Unpacks the packed row at @p src into the final labels lab[id - base] of row @p o; returns
/// the slots the packed row took. @p lbl: room for w + 8 labels.
inline std::uint32_t unpack_plain(const std::uint32_t* src, std::uint32_t w, const std::uint32_t* lab,
                                  std::uint32_t base, std::uint32_t* o, std::uint32_t* lbl) {
    const std::uint32_t words = (w + 63) / 64, ms = mask_slots(w);
    const std::uint32_t fg = foreground_count(src, words);
    for (std::uint32_t k = 0; k < fg; ++k) lbl[k] = lab[src[ms + k] - base];
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < words; ++i) {
        std::uint64_t m;
        std::memcpy(&m, src + 2 * i, 8);
        const std::uint32_t x0 = i * 64, n = std::min<std::uint32_t>(64, w - x0);
        for (std::uint32_t j = 0; j < n; ++j) {
            const bool f = m >> j & 1;
            o[x0 + j] = f ? lbl[k] : 0;
            k += f;
        }
    }
    return ms + fg;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// pack_plain 8 voxels a vpermd.
__attribute__((target("avx2,popcnt"))) inline std::uint32_t pack_avx2(const std::uint32_t* row, std::uint32_t w,
                                                                      std::uint32_t* dst) {
    const std::uint32_t words = (w + 63) / 64;
    std::uint32_t* ids = dst + mask_slots(w);
    std::uint32_t k = 0;
    const __m256i zero = _mm256_setzero_si256();
    for (std::uint32_t i = 0; i < words; ++i) {
        const std::uint32_t x0 = i * 64, n = std::min<std::uint32_t>(64, w - x0);
        std::uint64_t m = 0;
        std::uint32_t j = 0;
        for (; j + 8 <= n; j += 8) {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x0 + j));
            const std::uint32_t b =
                std::uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero)))) ^ 0xFFu;
            const __m256i p = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kTables.compress[b])));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(ids + k), _mm256_permutevar8x32_epi32(v, p));
            k += std::uint32_t(_mm_popcnt_u32(b));
            m |= std::uint64_t(b) << j;
        }
        pack_voxels(row, x0, j, n, ids, k, m);
        std::memcpy(dst + 2 * i, &m, 8);
    }
    return k;
}

/// unpack_plain: labels 8 a gather, then spread 8 a vpermd.
__attribute__((target("avx2,popcnt"))) inline std::uint32_t unpack_avx2(const std::uint32_t* src, std::uint32_t w,
                                                                        const std::uint32_t* lab, std::uint32_t base,
                                                                        std::uint32_t* o, std::uint32_t* lbl) {
    const std::uint32_t words = (w + 63) / 64, ms = mask_slots(w);
    const std::uint32_t fg = foreground_count(src, words);
    const __m256i vb = _mm256_set1_epi32(int(base));
    std::uint32_t k = 0;
    for (; k + 8 <= fg; k += 8) {
        const __m256i id = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + ms + k));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(lbl + k),
                            _mm256_i32gather_epi32(reinterpret_cast<const int*>(lab), _mm256_sub_epi32(id, vb), 4));
    }
    for (; k < fg; ++k) lbl[k] = lab[src[ms + k] - base];
    const __m256i bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    k = 0;
    for (std::uint32_t i = 0; i < words; ++i) {
        std::uint64_t m;
        std::memcpy(&m, src + 2 * i, 8);
        const std::uint32_t x0 = i * 64, n = std::min<std::uint32_t>(64, w - x0);
        std::uint32_t j = 0;
        for (; j + 8 <= n; j += 8) {
            const std::uint32_t b = std::uint32_t(m >> j) & 0xFFu;
            const __m256i p = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kTables.expand[b])));
            // lbl[k + 7] may be past the labels (scratch has room): those lanes are masked off.
            const __m256i v = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lbl + k)), p);
            const __m256i keep = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(int(b)), bits), bits);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + x0 + j), _mm256_and_si256(v, keep));
            k += std::uint32_t(_mm_popcnt_u32(b));
        }
        for (; j < n; ++j) {
            const bool f = m >> j & 1;
            o[x0 + j] = f ? lbl[k] : 0;
            k += f;
        }
    }
    return ms + fg;
}

#endif

inline std::uint32_t pack(const std::uint32_t* row, std::uint32_t w, std::uint32_t* dst, bool avx2) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (avx2) return pack_avx2(row, w, dst);
#endif
    (void)avx2;
    return pack_plain(row, w, dst);
}

inline std::uint32_t unpack(const std::uint32_t* src, std::uint32_t w, const std::uint32_t* lab, std::uint32_t base,
                            std::uint32_t* o, std::uint32_t* lbl, bool avx2) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (avx2) return unpack_avx2(src, w, lab, base, o, lbl);
#endif
    (void)avx2;
    return unpack_plain(src, w, lab, base, o, lbl);
}

}  // namespace cclabel::cpu::packed
