#pragma once
// The region adjacency graph on the GPU (cclabel::adjacency with Backend::Cuda). Every pixel owns
// the unordered neighbour pairs the CPU gives it (right; below; with 8-connectivity below-right and
// below-left: every pair once). A block takes tiles of kAdjTileH rows of kAdjTileW = 32 pixels, a
// warp a band of rows of a tile (coalesced loads, the band's rows all in flight at once); in each
// direction the lanes whose pair equals their left neighbour's continue its run (a boundary along a
// row gives one pair at every pixel), and each run's head adds the run's length to the block's
// table of pairs in shared memory, which also merges the pairs that recur from row to row (a
// vertical boundary) and from tile to tile. The tables, a few entries a tile on a drawing, are the
// items a CUB sort and reduce-by-key sum by pair (src/cuda/adjacency_cuda.cu). The first kernel
// emitted every run of a 32-pixel segment from one thread: uncoalesced loads, twice (a counting pass
// and an emitting pass) and several times more items to sort; 110 ms on the 800 dpi sheet where
// labelling it took 5 (H100, 2026-12-07). The second took 12: it cleared and read its whole
// 2048-slot table for every tile and loaded a label a direction; the third 7.0, a row a warp at a
// time with three barriers a tile.
// Written once for the kernels and the CPU tests (tests/cpp/test_adjacency.cpp); the volumes' kernel
// (kernels/adjacency3d_bodies.cuh) takes its pair keys, runs and table from here.
#include <cstdint>

#include "cclabel/detail/hd.hpp"
#include "cuda/kernels/bits.cuh"

namespace cclabel::cuda::detail {

inline constexpr std::uint32_t kAdjTileW = 32;   ///< pixels of a tile's row: one warp
inline constexpr std::uint32_t kAdjTileH = 64;   ///< rows of a tile: eight a warp of a 256-thread block
inline constexpr std::uint32_t kAdjTable = 1024; ///< slots of a block's table (a power of two)
inline constexpr std::uint32_t kAdjProbes = 32;  ///< slots a pair tries before it goes out on its own
inline constexpr std::uint64_t kNoPair = ~std::uint64_t(0);  ///< no pair; an empty slot (a < b, so no key is all ones)

/// What the tile kernels (pictures and volumes) tell the host: the items they found (also those
/// past the buffer's end) and the largest smaller label of a pair (the sort's key width).
struct AdjTally {
    unsigned long long items;
    unsigned int largest_a;
    unsigned int next_chunk;  ///< the next run of tiles a block takes
};

/// Where the tile kernels put their items: (pair, contacts) at the same index of keys and
/// contacts, those at or past capacity only counted (the host runs the kernel again).
struct AdjOut {
    std::uint64_t* keys;
    std::uint64_t* contacts;
    std::uint64_t capacity;
    AdjTally* tally;
};

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

/// What lane @p lane of a row looks at: its label and those of its neighbours right, below,
/// below-right and below-left, and which of them lie in the picture. On the GPU a lane loads its
/// own label and the one below and takes its neighbours' from the lanes beside it (shuffles), so
/// a row costs two coalesced loads, not a load a direction.
struct LaneNeighbours {
    std::uint32_t self = 0, right = 0, below = 0, below_right = 0, below_left = 0;
    bool in = false, has_right = false, has_below = false, has_left = false;
};

/// The pair in direction @p d (0 right, 1 below, 2 below-right, 3 below-left), or kNoPair (no
/// neighbour there, or no pair).
CCL_HD std::uint64_t neighbour_pair(const LaneNeighbours& n, int d, bool include_background) {
    if (!n.in) return kNoPair;
    switch (d) {
        case 0: return n.has_right ? pair_key(n.self, n.right, include_background) : kNoPair;
        case 1: return n.has_below ? pair_key(n.self, n.below, include_background) : kNoPair;
        case 2: return n.has_right && n.has_below ? pair_key(n.self, n.below_right, include_background) : kNoPair;
        default: return n.has_left && n.has_below ? pair_key(n.self, n.below_left, include_background) : kNoPair;
    }
}

/// Whether any of the lane's @p dirs directions gives a pair. Most rows of a drawing hold no
/// boundary at all: a warp whose lanes all say no skips the directions' ballots and shuffles.
CCL_HD bool lane_has_pair(const LaneNeighbours& n, int dirs, bool include_background) {
    if (!n.in || (!include_background && n.self == 0)) return false;
    for (int d = 0; d < dirs; ++d)
        if (neighbour_pair(n, d, include_background) != kNoPair) return true;
    return false;
}

/// The tile row and column of @p tile, and lane @p lane's pixel in row @p r of it.
CCL_HD void lane_place(const AdjParams& p, std::uint64_t tile, std::uint32_t r, std::uint32_t lane, std::uint32_t& x,
                       std::uint32_t& y) {
    const std::uint32_t ty = std::uint32_t(tile / p.tiles_x);
    x = std::uint32_t(tile - std::uint64_t(ty) * p.tiles_x) * kAdjTileW + lane;
    y = ty * kAdjTileH + r;
}

/// Pixel (@p x, @p y)'s neighbours, read from the labels one by one: the CPU's tests, and the
/// quad kernel's rows that hold a pair (the kernel of one pixel a lane assembles the same values
/// with shuffles).
CCL_HD LaneNeighbours pixel_neighbours(const AdjParams& p, std::uint32_t x, std::uint32_t y) {
    LaneNeighbours n;
    n.in = x < p.width && y < p.height;
    if (!n.in) return n;
    n.has_right = x + 1 < p.width;
    n.has_below = y + 1 < p.height;
    n.has_left = x > 0;
    const std::uint32_t* row = p.labels + std::int64_t(y) * p.stride;
    n.self = row[x];
    if (n.has_right) n.right = row[x + 1];
    if (n.has_below) {
        const std::uint32_t* below = row + p.stride;
        n.below = below[x];
        if (n.has_right) n.below_right = below[x + 1];
        if (n.has_left) n.below_left = below[x - 1];
    }
    return n;
}

/// Lane @p lane's neighbours in row @p r of tile @p tile (tiles of kAdjTileW pixels a row).
CCL_HD LaneNeighbours lane_neighbours(const AdjParams& p, std::uint64_t tile, std::uint32_t r, std::uint32_t lane) {
    std::uint32_t x, y;
    lane_place(p, tile, r, lane, x, y);
    return pixel_neighbours(p, x, y);
}

// The quad kernel (AdjSwitches::quads, adjacency_cuda.cu): a lane loads four pixels of a row with
// one 16-byte load, and most rows of a drawing hold no pair at all (paper, the inside of a
// stroke): the lane decides that from its eight values and three of its neighbours' lanes, with
// a few compares a pixel instead of a direction loop a pixel. Only the rows where some lane of the
// warp finds a pair are read again pixel by pixel (pixel_neighbours, 32 pixels a step).
inline constexpr std::uint32_t kAdjQuadW = 128;  ///< pixels of a quad tile's row: four a lane

/// The 32-pixel steps of a quad row (bit j: pixels 32j .. 32j + 31 of the tile's row) that hold a
/// lane of @p noisy_lanes (bit i: lane i's four pixels are not quiet): eight lanes a step. Only
/// those are read again pixel by pixel; a stroke crossing a row makes one step of four noisy.
CCL_HD std::uint32_t quad_steps(std::uint32_t noisy_lanes) {
    std::uint32_t steps = 0;
    for (std::uint32_t j = 0; j < 4; ++j)
        if ((noisy_lanes >> (8 * j)) & 0xFFu) steps |= 1u << j;
    return steps;
}

/// Whether pair_key(@p a, @p b) is kNoPair, without forming the key.
CCL_HD bool no_pair(std::uint32_t a, std::uint32_t b, bool include_background) {
    return a == b || (!include_background && (a == 0 || b == 0));
}

/// True only when none of the four pixels x .. x + 3 of a row (@p self, all in the picture) owns
/// a pair (neighbour_pair in every direction is kNoPair); false may still mean none (the row is
/// then read pixel by pixel). @p below: the same columns of the next row, when @p has_below;
/// @p right and @p below_right: column x + 4 of the two rows, when @p has_right; @p below_left:
/// column x − 1 of the next row, when @p has_left.
CCL_HD bool quad_quiet(const std::uint32_t self[4], const std::uint32_t below[4], std::uint32_t right,
                       std::uint32_t below_right, std::uint32_t below_left, bool has_right, bool has_left,
                       bool has_below, int connectivity, bool include_background) {
    const std::uint32_t s = self[0];
    const bool flat = self[1] == s && self[2] == s && self[3] == s;
    // Paper as background: pixels of label 0 own no pair that counts.
    if (flat && s == 0 && !include_background) return true;
    bool quiet = true;
    for (int i = 0; i < 4; ++i) {
        const bool last = i == 3;
        const std::uint32_t r = last ? right : self[i + 1];
        if (!last || has_right) quiet &= no_pair(self[i], r, include_background);
        if (!has_below) continue;
        quiet &= no_pair(self[i], below[i], include_background);
        if (connectivity == 8) {
            if (!last || has_right) quiet &= no_pair(self[i], last ? below_right : below[i + 1], include_background);
            if (i > 0 || has_left) quiet &= no_pair(self[i], i > 0 ? below[i - 1] : below_left, include_background);
        }
    }
    return quiet;
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

/// A table this full takes no new pair: the rest go out on their own at once. On noise every pair
/// is new, and each would otherwise probe kAdjProbes taken slots before it spilled.
CCL_HD bool table_full(std::uint32_t used) { return used >= kAdjTable / 4 * 3; }
/// table_full for a table of @p table slots (a power of two, at most kAdjTable): the volumes'
/// kernel (kernels/adjacency3d_bodies.cuh) takes its table size at launch, so that the emulator's
/// tests can fill a small one.
CCL_HD bool table_full(std::uint32_t used, std::uint32_t table) { return used >= table / 4 * 3; }

/// The table slot a pair tries first.
CCL_HD std::uint32_t table_home(std::uint64_t key) {
    return std::uint32_t((key * 0x9E3779B97F4A7C15ull) >> 40) & (kAdjTable - 1);
}

/// Adds @p n contacts of pair @p key to the block's table: `cas(slot, expected, desired)` returns the
/// slot's key before the exchange, `add(slot, n)` adds to its count. False when kAdjProbes slots
/// from its home are taken by other pairs: the caller emits the pair on its own.
/// In a table of @p table slots (a power of two, at most kAdjTable), kAdjProbes of them at most.
template <class Cas, class Add>
CCL_HD bool table_add(std::uint32_t table, std::uint64_t key, std::uint32_t n, Cas&& cas, Add&& add) {
    const std::uint32_t mask = table - 1, probes = table < kAdjProbes ? table : kAdjProbes;
    std::uint32_t slot = table_home(key) & mask;
    for (std::uint32_t i = 0; i < probes; ++i) {
        const std::uint64_t old = cas(slot, kNoPair, key);
        if (old == kNoPair || old == key) {
            add(slot, n);
            return true;
        }
        slot = (slot + 1) & mask;
    }
    return false;
}

template <class Cas, class Add>
CCL_HD bool table_add(std::uint64_t key, std::uint32_t n, Cas&& cas, Add&& add) {
    return table_add(kAdjTable, key, n, static_cast<Cas&&>(cas), static_cast<Add&&>(add));
}

}  // namespace cclabel::cuda::detail
