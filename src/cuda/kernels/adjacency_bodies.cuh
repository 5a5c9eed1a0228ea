#pragma once
// The region adjacency graph on the GPU (cclabel::adjacency with Backend::Cuda). Every pixel owns
// the unordered neighbour pairs the CPU gives it (right; below; with 8-connectivity below-right and
// below-left: every pair once). A block takes a tile of kAdjTileH rows of kAdjTileW = 32 pixels, a
// warp a row of it at a time (coalesced loads); in each direction the lanes whose pair equals their
// left neighbour's continue its run (a boundary along a row gives one pair at every pixel), and
// each run's head adds the run's length to the block's table of pairs in shared memory, which also
// merges the pairs that recur from row to row (a vertical boundary). The tables, a few entries a
// tile on a drawing, are the items a CUB sort and reduce-by-key sum by pair
// (src/cuda/adjacency_cuda.cu). The first kernel emitted every run of a 32-pixel segment from one
// thread: uncoalesced loads, twice (a counting pass and an emitting pass) and several times more
// items to sort; 110 ms on the 800 dpi sheet where labelling it took 5 (H100, 2026-12-07).
// Written once for the kernels and the CPU tests (tests/cpp/test_adjacency.cpp).
#include <cstdint>

#include "cclabel/detail/hd.hpp"
#include "cuda/kernels/bits.cuh"

namespace cclabel::cuda::detail {

inline constexpr std::uint32_t kAdjTileW = 32;   ///< pixels of a tile's row: one warp
inline constexpr std::uint32_t kAdjTileH = 32;   ///< rows of a tile
inline constexpr std::uint32_t kAdjTable = 2048; ///< slots of a block's table (a power of two)
inline constexpr std::uint32_t kAdjProbes = 32;  ///< slots a pair tries before it goes out on its own
inline constexpr std::uint64_t kNoPair = ~std::uint64_t(0);  ///< no pair; an empty slot (a < b, so no key is all ones)

struct AdjParams {
    const std::uint32_t* labels = nullptr;
    std::uint32_t width = 0, height = 0;
    std::int64_t stride = 0;   ///< labels a row
    std::uint32_t tiles_x = 0; ///< tiles across
    std::uint64_t tiles = 0;   ///< tiles_x · tiles down
    int connectivity = 8;
    bool include_background = false;
};

/// Directions a pixel owns: right and below, and with 8-connectivity below-right and below-left.
CCL_HD int adjacency_directions(const AdjParams& p) { return p.connectivity == 8 ? 4 : 2; }

/// The key (smaller label << 32 | larger label) of the pair (a, b), or kNoPair when the labels are
/// equal or one is background that is not counted.
CCL_HD std::uint64_t pair_key(std::uint32_t a, std::uint32_t b, bool include_background) {
    if (a == b || (!include_background && (a == 0 || b == 0))) return kNoPair;
    return a < b ? (std::uint64_t(a) << 32 | b) : (std::uint64_t(b) << 32 | a);
}

/// The pair of lane @p lane of row @p r of tile @p tile in direction @p d (0 right, 1 below, 2
/// below-right, 3 below-left), or kNoPair (outside the picture, no neighbour there, or no pair).
CCL_HD std::uint64_t lane_pair(const AdjParams& p, std::uint64_t tile, std::uint32_t r, std::uint32_t lane, int d) {
    const std::uint32_t ty = std::uint32_t(tile / p.tiles_x);
    const std::uint32_t x = std::uint32_t(tile - std::uint64_t(ty) * p.tiles_x) * kAdjTileW + lane;
    const std::uint32_t y = ty * kAdjTileH + r;
    if (x >= p.width || y >= p.height) return kNoPair;
    const std::uint32_t* row = p.labels + std::int64_t(y) * p.stride;
    std::uint32_t b;
    if (d == 0) {
        if (x + 1 >= p.width) return kNoPair;
        b = row[x + 1];
    } else {
        if (y + 1 >= p.height) return kNoPair;
        const std::uint32_t* below = row + p.stride;
        if (d == 1) {
            b = below[x];
        } else if (d == 2) {
            if (x + 1 >= p.width) return kNoPair;
            b = below[x + 1];
        } else {
            if (x == 0) return kNoPair;
            b = below[x - 1];
        }
    }
    return pair_key(row[x], b, p.include_background);
}

/// True when lane @p lane starts a run: the first lane, or a pair other than its left neighbour's.
CCL_HD bool run_head(std::uint32_t lane, std::uint64_t pair, std::uint64_t left_pair) {
    return lane == 0 || pair != left_pair;
}

/// The length of the run that lane @p lane heads, given the heads of all 32 lanes (a ballot): up to
/// the next head, or to the end of the row.
CCL_HD std::uint32_t run_length(std::uint32_t heads, std::uint32_t lane) {
    const std::uint32_t after = lane >= 31 ? 0u : heads & ~mask_upto(lane);
    return after != 0 ? ffs32(after) - 1u - lane : 32u - lane;
}

/// The table slot a pair tries first.
CCL_HD std::uint32_t table_home(std::uint64_t key) {
    return std::uint32_t((key * 0x9E3779B97F4A7C15ull) >> 40) & (kAdjTable - 1);
}

/// Adds @p n contacts of pair @p key to the block's table: `cas(slot, expected, desired)` returns the
/// slot's key before the exchange, `add(slot, n)` adds to its count. False when kAdjProbes slots
/// from its home are taken by other pairs: the caller emits the pair on its own.
template <class Cas, class Add>
CCL_HD bool table_add(std::uint64_t key, std::uint32_t n, Cas&& cas, Add&& add) {
    std::uint32_t slot = table_home(key);
    for (std::uint32_t i = 0; i < kAdjProbes; ++i) {
        const std::uint64_t old = cas(slot, kNoPair, key);
        if (old == kNoPair || old == key) {
            add(slot, n);
            return true;
        }
        slot = (slot + 1) & (kAdjTable - 1);
    }
    return false;
}

}  // namespace cclabel::cuda::detail
