// The region adjacency graph of a label volume on the CPU: the pictures' pass (adjacency_cpu.cpp)
// with one more neighbour row set, the slice behind.
//
// A voxel owns the pairs with its neighbours that come after it in raster order (z, then y, then
// x): within its slice those of the 2-D pass (right, below and, under 18 and 26, the two lower
// diagonals: a 2-D edge offset has one or two nonzero coordinates, an 18-neighbour), and in the
// next slice (z + 1) a stencil of the 3 x 3 voxels around the one behind it:
//
//     6:   . . .       18:  . u .       26:  u u u      (u: the rows y - 1, y, y + 1 of slice z + 1,
//          . c .            u c u            u c u       c: the voxel right behind, at (x, y, z + 1))
//          . . .            . u .            u u u
//
// Every unordered neighbour pair has exactly one owner, so each contact is counted once: 3, 9 or
// 13 pairs a voxel for 6, 18 and 26. Work is split into bands of consecutive (z, y) rows across the
// whole volume, one band a thread; each band's pairs go through the same last-pair filter and cache
// (BandPairs) as a picture's, and gather_pairs sorts and sums them (src/cpu/adjacency_pairs.cpp).
// The stencil is tested sixteen voxels at a time for one label throughout, which is what most of a
// label volume is, before any pair is looked at.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/adjacency_backends.hpp"
#include "core/parallel_for.hpp"
#include "cpu/adjacency_pairs.hpp"

namespace cclabel::detail {
namespace {

constexpr std::int64_t kChunk = 16;

/// The pairs row r of slice z owns with slice z + 1: u0 is the row right behind it, um and up the
/// rows above and below u0 (null at the slice's first and last row).
template <int C, bool Bg>
void scan_behind(const std::uint32_t* r, const std::uint32_t* um, const std::uint32_t* u0, const std::uint32_t* up,
                 std::int64_t w, BandPairs& acc) {
    auto pair_if = [&](std::uint32_t p, std::uint32_t q) {
        if (counted<Bg>(p, q)) acc.add(pair_key(p, q));
    };
    auto voxel = [&](std::int64_t x) {
        const std::uint32_t p = r[x];
        pair_if(p, u0[x]);
        if constexpr (C >= 18) {
            if (x > 0) pair_if(p, u0[x - 1]);
            if (x + 1 < w) pair_if(p, u0[x + 1]);
            if (um) pair_if(p, um[x]);
            if (up) pair_if(p, up[x]);
        }
        if constexpr (C == 26) {
            if (um && x > 0) pair_if(p, um[x - 1]);
            if (um && x + 1 < w) pair_if(p, um[x + 1]);
            if (up && x > 0) pair_if(p, up[x - 1]);
            if (up && x + 1 < w) pair_if(p, up[x + 1]);
        }
    };
    // The stencil's rows that are missing at the slice's edges read u0 instead: comparing with u0
    // only ever finds more differences, and a chunk with any difference is looked at voxel by voxel.
    const std::uint32_t* m = um ? um : u0;
    const std::uint32_t* pl = up ? up : u0;
    std::int64_t x = 0;
    if (w > kChunk + 1) {
        voxel(0);
        for (x = 1; x + kChunk < w; x += kChunk) {
            std::uint32_t d = 0;
            for (std::int64_t i = x; i < x + kChunk; ++i) {
                d |= r[i] ^ u0[i];
                if constexpr (C >= 18) d |= (r[i] ^ u0[i - 1]) | (r[i] ^ u0[i + 1]) | (r[i] ^ m[i]) | (r[i] ^ pl[i]);
                if constexpr (C == 26)
                    d |= (r[i] ^ m[i - 1]) | (r[i] ^ m[i + 1]) | (r[i] ^ pl[i - 1]) | (r[i] ^ pl[i + 1]);
            }
            if (d == 0) continue;
            for (std::int64_t i = x; i < x + kChunk; ++i) voxel(i);
        }
    }
    for (; x < w; ++x) voxel(x);
}

template <bool Bg>
void scan_behind(int connectivity, const std::uint32_t* r, const std::uint32_t* um, const std::uint32_t* u0,
                 const std::uint32_t* up, std::int64_t w, BandPairs& acc) {
    if (connectivity == 6) scan_behind<6, Bg>(r, um, u0, up, w, acc);
    else if (connectivity == 18) scan_behind<18, Bg>(r, um, u0, up, w, acc);
    else scan_behind<26, Bg>(r, um, u0, up, w, acc);
}

}  // namespace

std::vector<AdjacencyEdge> adjacency3d_cpu(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                           std::int64_t depth, std::int64_t row_stride, std::int64_t slice_stride,
                                           int connectivity, bool include_background, int threads) {
    threads = std::max(threads, 1);
    const std::int64_t rows = height * depth;
    const int bands = int(std::min<std::int64_t>(threads, rows));
    // Within a slice, 6-neighbours are the 2-D 4-neighbours; 18 and 26 both take all eight.
    const int plane_connectivity = connectivity == 6 ? 4 : 8;
    std::vector<BandPairs> acc(static_cast<std::size_t>(bands));
    parallel_for(std::uint64_t(bands), threads, [&](std::uint64_t b) {
        const std::int64_t g0 = rows * std::int64_t(b) / bands, g1 = rows * std::int64_t(b + 1) / bands;
        acc[b] = BandPairs(std::uint64_t(width) * std::uint64_t(g1 - g0));  // its cache made on its thread
        for (std::int64_t g = g0; g < g1; ++g) {
            const std::int64_t z = g / height, y = g % height;
            const std::uint32_t* slice = labels + z * slice_stride;
            scan_plane_rows(slice, width, height, row_stride, plane_connectivity, y, y + 1, include_background, acc[b]);
            if (z + 1 == depth) continue;
            const std::uint32_t* r = slice + y * row_stride;
            const std::uint32_t* u0 = r + slice_stride;
            const std::uint32_t* um = y > 0 ? u0 - row_stride : nullptr;
            const std::uint32_t* up = y + 1 < height ? u0 + row_stride : nullptr;
            if (include_background) scan_behind<true>(connectivity, r, um, u0, up, width, acc[b]);
            else scan_behind<false>(connectivity, r, um, u0, up, width, acc[b]);
        }
        acc[b].finish();
    });
    return gather_pairs(acc, threads);
}

}  // namespace cclabel::detail
