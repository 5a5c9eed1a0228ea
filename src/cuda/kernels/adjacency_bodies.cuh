#pragma once
// The region adjacency graph on the GPU (cclabel::adjacency with Backend::Cuda): every thread takes
// a segment of kAdjSeg pixels of one row and the unordered neighbour pairs it owns, as the CPU does
// (right; below; with 8-connectivity below-right and below-left: every pair once). A thread merges
// consecutive equal pairs of one direction before it emits them (a boundary between two regions
// along a row gives the same pair at every pixel), so a drawing emits a few pairs where it has
// hundreds of boundary pixels. The emitted (pair, count) items are then sorted by pair and summed
// (CUB, src/cuda/adjacency_cuda.cu). Written once for the kernels and the CPU tests.
#include <cstdint>

#include "cclabel/detail/hd.hpp"

namespace cclabel::cuda::detail {

inline constexpr std::uint32_t kAdjSeg = 32;  ///< pixels of a row a thread

struct AdjParams {
    const std::uint32_t* labels = nullptr;
    std::uint32_t width = 0, height = 0;
    std::int64_t stride = 0;  ///< labels a row
    std::uint32_t segs_x = 0; ///< segments a row
    std::uint64_t segs = 0;   ///< segs_x · height
    int connectivity = 8;
    bool include_background = false;
};

/// The items of segment @p seg: emit(key, count) for each run of one pair in one direction, with
/// key = a << 32 | b (a < b). Returns the number of items.
template <class Emit>
CCL_HD std::uint32_t segment_pairs(const AdjParams& p, std::uint64_t seg, Emit&& emit) {
    if (seg >= p.segs) return 0;
    const std::uint32_t y = std::uint32_t(seg / p.segs_x);
    const std::uint32_t x0 = std::uint32_t(seg - std::uint64_t(y) * p.segs_x) * kAdjSeg;
    const std::uint32_t x1 = x0 + kAdjSeg < p.width ? x0 + kAdjSeg : p.width;
    const std::uint32_t* row = p.labels + std::int64_t(y) * p.stride;
    const std::uint32_t* below = y + 1 < p.height ? row + p.stride : nullptr;
    const int dirs = below ? (p.connectivity == 8 ? 4 : 2) : 1;
    std::uint32_t items = 0;
    // One direction at a time, so that a run of one pair is consecutive.
    for (int d = 0; d < dirs; ++d) {
        std::uint64_t cur = 0;
        std::uint32_t n = 0;
        for (std::uint32_t x = x0; x < x1; ++x) {
            const std::uint32_t a = row[x];
            std::uint32_t b;
            if (d == 0) {
                if (x + 1 >= p.width) continue;
                b = row[x + 1];
            } else if (d == 1) {
                b = below[x];
            } else if (d == 2) {
                if (x + 1 >= p.width) continue;
                b = below[x + 1];
            } else {
                if (x == 0) continue;
                b = below[x - 1];
            }
            if (a == b || (!p.include_background && (a == 0 || b == 0))) continue;
            const std::uint64_t key = a < b ? (std::uint64_t(a) << 32 | b) : (std::uint64_t(b) << 32 | a);
            if (n > 0 && key == cur) {
                ++n;
                continue;
            }
            if (n > 0) {
                emit(cur, n);
                ++items;
            }
            cur = key;
            n = 1;
        }
        if (n > 0) {
            emit(cur, n);
            ++items;
        }
    }
    return items;
}

}  // namespace cclabel::cuda::detail
