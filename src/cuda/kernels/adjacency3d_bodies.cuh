#pragma once
// The region adjacency graph of a label volume on the GPU (cclabel::adjacency of a VolumeView with
// Backend::Cuda, src/cuda/adjacency3d_cuda.cu): the per-thread program, written once for the
// kernel and for the CPU emulator of tests/emu (tests/emu/test_emu_adjacency3d.cpp), so that CI
// checks the GPU's logic against the CPU's pass without a GPU. Every memory access, shuffle, vote
// and barrier goes through an `Ops` object (DeviceOps in adjacency3d_cuda.cu; the emulator's in the
// test).
//
// A voxel owns the pairs the CPU gives it (src/cpu/adjacency3d_cpu.cpp): those with its neighbours
// after it in raster order (z, then y, then x), 3, 9 or 13 under 6, 18 and 26 (direction_offset).
// The picture kernel's scheme (kernels/adjacency_bodies.cuh), one slice at a time: a block takes
// runs of `chunk` consecutive tiles from a counter (x fastest, then y, then z), a tile being 32
// columns × tile_h rows of one slice; a warp takes a band of its rows, a lane a column. Going down
// its band a lane keeps five rows of labels in registers: its row and the row below in slice z,
// and the rows above, at and below it in slice z + 1, each with the column just beyond the warp
// for lanes 31 (x + 1) and 0 (x − 1); a row down costs two loads a lane (the row below in each
// slice), coalesced, issued a row ahead. The neighbours at x ± 1 come from the lanes beside it
// (shuffles). In each direction the lanes whose pair equals their left neighbour's continue its
// run, and each run's head adds its length to the block's table of pairs in shared memory
// (table_add), which goes out as items when over half full after a tile and at the end; a pair
// that finds no slot goes out on its own. The host sorts and sums the items by pair
// (src/cuda/adjacency_cuda.cu). Registers: 72 a thread, no spills (ptxas, sm_90), three blocks an
// SM with the table's 14 KB of shared memory each.
#include <cstdint>

#include "cclabel/detail/hd.hpp"
#include "cuda/kernels/adjacency_bodies.cuh"
#include "cuda/kernels/bits.cuh"

namespace cclabel::cuda::detail::vadj {

inline constexpr std::uint32_t kThreads = 256;  ///< a block: eight warps
inline constexpr std::uint32_t kTileH = 64;     ///< rows of a tile: eight a warp
inline constexpr std::uint32_t kChunk = 16;     ///< tiles a block takes at a time

/// Connectivity kDropDirection + k is 26 without owned direction k (0..12): the emulator's
/// mutation test shows that leaving out any one direction changes the edges. Never launched on
/// the GPU (the host path takes 6, 18 and 26 only).
inline constexpr int kDropDirection = 1000;

struct Params {
    const std::uint32_t* labels = nullptr;  ///< voxel (x, y, z) at labels + z·slice_stride + y·row_stride + x
    std::uint32_t width = 0, height = 0, depth = 0;
    std::int64_t row_stride = 0, slice_stride = 0;  ///< in labels
    std::uint32_t tiles_x = 0, tiles_y = 0;
    std::uint64_t tiles = 0;  ///< tiles_x · tiles_y · depth
    int connectivity = 26;
    bool include_background = false;
    // The launch shape: the kernel's constants, smaller in the emulator's tests (many tiles, a
    // table that fills). threads a multiple of 32, tile_h a multiple of threads / 32, table a
    // power of two of at most kAdjTable.
    std::uint32_t threads = kThreads, tile_h = kTileH, table = kAdjTable, chunk = kChunk;
};

/// Owned direction @p k (0..12) as (dx, dy, dz): faces (right, below, behind), then the edges
/// (the two lower diagonals of the slice, then the four edge neighbours behind), then the four
/// corners behind. 6 owns 0..2, 18 0..8, 26 0..12.
CCL_HD void direction_offset(int k, int& dx, int& dy, int& dz) {
    switch (k) {
        case 0: dx = 1, dy = 0, dz = 0; break;
        case 1: dx = 0, dy = 1, dz = 0; break;
        case 2: dx = 0, dy = 0, dz = 1; break;
        case 3: dx = 1, dy = 1, dz = 0; break;
        case 4: dx = -1, dy = 1, dz = 0; break;
        case 5: dx = -1, dy = 0, dz = 1; break;
        case 6: dx = 1, dy = 0, dz = 1; break;
        case 7: dx = 0, dy = -1, dz = 1; break;
        case 8: dx = 0, dy = 1, dz = 1; break;
        case 9: dx = -1, dy = -1, dz = 1; break;
        case 10: dx = 1, dy = -1, dz = 1; break;
        case 11: dx = -1, dy = 1, dz = 1; break;
        default: dx = 1, dy = 1, dz = 1; break;
    }
}

/// Directions a voxel owns under @p connectivity.
CCL_HD int directions(int connectivity) {
    if (connectivity >= kDropDirection) return 12;
    return connectivity == 6 ? 3 : connectivity == 18 ? 9 : 13;
}

/// The owned direction (0..12) that is the @p d-th under @p connectivity.
CCL_HD int direction_at(int connectivity, int d) {
    if (connectivity >= kDropDirection) return d < connectivity - kDropDirection ? d : d + 1;
    return d;
}

/// Whether the neighbours at x ± 1 and the rows y ± 1 behind are looked at (18 and 26).
CCL_HD bool wide(int connectivity) { return connectivity != 6; }

/// A row of labels as a lane holds it: its column, and for lanes 31 and 0 the column just beyond
/// the warp (x + 1 and x − 1); 0 outside the volume.
struct Row {
    std::uint32_t v = 0, e = 0;
};

/// What a lane's voxel (x, y, z) looks at: its label and those of its 13 owned neighbours, and
/// which of them lie in the volume.
struct VoxelNeighbours {
    std::uint32_t self = 0, right = 0, below = 0, below_right = 0, below_left = 0;
    // Slice z + 1: u (row y − 1), c (row y), d (row y + 1); l, r: columns x − 1, x + 1.
    std::uint32_t bc = 0, bl = 0, br = 0, bu = 0, bd = 0, bul = 0, bur = 0, bdl = 0, bdr = 0;
    bool in = false, has_left = false, has_right = false, has_above = false, has_below = false, has_behind = false;
};

/// The pair in owned direction @p k, or kNoPair (no neighbour there, or no pair).
CCL_HD std::uint64_t neighbour_pair(const VoxelNeighbours& n, int k, bool include_background) {
    if (!n.in) return kNoPair;
    std::uint32_t q = 0;
    bool there = false;
    switch (k) {
        case 0: q = n.right, there = n.has_right; break;
        case 1: q = n.below, there = n.has_below; break;
        case 2: q = n.bc, there = n.has_behind; break;
        case 3: q = n.below_right, there = n.has_below && n.has_right; break;
        case 4: q = n.below_left, there = n.has_below && n.has_left; break;
        case 5: q = n.bl, there = n.has_behind && n.has_left; break;
        case 6: q = n.br, there = n.has_behind && n.has_right; break;
        case 7: q = n.bu, there = n.has_behind && n.has_above; break;
        case 8: q = n.bd, there = n.has_behind && n.has_below; break;
        case 9: q = n.bul, there = n.has_behind && n.has_above && n.has_left; break;
        case 10: q = n.bur, there = n.has_behind && n.has_above && n.has_right; break;
        case 11: q = n.bdl, there = n.has_behind && n.has_below && n.has_left; break;
        default: q = n.bdr, there = n.has_behind && n.has_below && n.has_right; break;
    }
    return there ? pair_key(n.self, q, include_background) : kNoPair;
}

/// Whether any direction of the lane gives a pair: a warp whose lanes all say no (the inside of a
/// region, most of a label volume) skips the directions' votes and shuffles.
CCL_HD bool voxel_has_pair(const VoxelNeighbours& n, int connectivity, bool include_background) {
    if (!n.in || (!include_background && n.self == 0)) return false;
    const int dirs = directions(connectivity);
    for (int d = 0; d < dirs; ++d)
        if (neighbour_pair(n, direction_at(connectivity, d), include_background) != kNoPair) return true;
    return false;
}

/// Tile @p tile's column, row and slice (x fastest, then y, then z).
CCL_HD void tile_place(const Params& p, std::uint64_t tile, std::uint32_t& tx, std::uint32_t& ty, std::uint32_t& z) {
    const std::uint64_t plane = tile / p.tiles_x;
    tx = std::uint32_t(tile - plane * p.tiles_x);
    z = std::uint32_t(plane / p.tiles_y);
    ty = std::uint32_t(plane - std::uint64_t(z) * p.tiles_y);
}

/// Row @p y of slice @p z as lane @p lane holds it (column x); @p edge: lanes 31 and 0 load the
/// column beyond the warp (lane 0 only under 18 and 26, where x − 1 is looked at).
template <class Ops>
CCL_HD Row load_row(Ops& ops, const Params& p, std::uint32_t x, std::int64_t y, std::uint32_t z, std::uint32_t lane,
                    bool wide_edges) {
    Row r;
    if (y < 0 || y >= std::int64_t(p.height) || z >= p.depth || x >= p.width) return r;
    const std::uint32_t* row = p.labels + std::int64_t(z) * p.slice_stride + y * p.row_stride;
    r.v = ops.ld(row + x);
    if (lane == 31 && x + 1 < p.width) r.e = ops.ld(row + x + 1);
    if (lane == 0 && wide_edges && x > 0) r.e = ops.ld(row + x - 1);
    return r;
}

/// The value at x + 1 (from the lane to the right, or lane 31's own load) and at x − 1.
template <class Ops>
CCL_HD std::uint32_t from_right(Ops& ops, const Row& r, std::uint32_t lane) {
    const std::uint32_t v = ops.shfl_down(r.v);
    return lane == 31 ? r.e : v;
}
template <class Ops>
CCL_HD std::uint32_t from_left(Ops& ops, const Row& r, std::uint32_t lane) {
    const std::uint32_t v = ops.shfl_up(r.v);
    return lane == 0 ? r.e : v;
}

/// Lane @p lane's neighbours from the rows it holds: @p s its row (y, z), @p b the row below, @p um,
/// @p u0, @p up the rows y − 1, y, y + 1 of slice z + 1. Every lane of the warp calls it with the
/// same connectivity (the shuffles).
template <class Ops>
CCL_HD VoxelNeighbours gather(Ops& ops, const Params& p, std::uint32_t x, std::uint32_t y, std::uint32_t z,
                              std::uint32_t lane, const Row& s, const Row& b, const Row& um, const Row& u0,
                              const Row& up) {
    VoxelNeighbours n;
    n.in = x < p.width && y < p.height;
    n.has_left = x > 0;
    n.has_right = x + 1 < p.width;
    n.has_above = y > 0;
    n.has_below = y + 1 < p.height;
    n.has_behind = z + 1 < p.depth;
    n.self = s.v;
    n.right = from_right(ops, s, lane);
    n.below = b.v;
    n.bc = u0.v;
    if (wide(p.connectivity)) {
        n.below_right = from_right(ops, b, lane);
        n.below_left = from_left(ops, b, lane);
        n.bl = from_left(ops, u0, lane);
        n.br = from_right(ops, u0, lane);
        n.bu = um.v;
        n.bd = up.v;
        n.bul = from_left(ops, um, lane);
        n.bur = from_right(ops, um, lane);
        n.bdl = from_left(ops, up, lane);
        n.bdr = from_right(ops, up, lane);
    }
    return n;
}

/// Lane @p lane's item at @p at, when it is within the buffer.
template <class Ops>
CCL_HD void put_item(Ops& ops, const AdjOut& o, std::uint64_t at, std::uint64_t key, std::uint64_t n) {
    if (at < o.capacity) ops.put(o.keys + at, o.contacts + at, key, n);
}

/// The block's shared memory.
struct Shared {
    unsigned long long keys[kAdjTable];
    unsigned int counts[kAdjTable];
    unsigned short used[kAdjTable];  ///< the slots taken since the table last went out
    unsigned int nused;
    unsigned long long base;
    unsigned int chunk;
};

/// The table as items, and cleared. Every thread calls it after a barrier that follows the last add
/// (all read the same count); a barrier ends it.
template <class Ops>
CCL_HD void put_out(Ops& ops, const Params& p, const AdjOut& o, Shared& s, std::uint32_t tid, std::uint32_t& largest) {
    const std::uint32_t used = ops.ld32(&s.nused);
    if (tid == 0) ops.st64(&s.base, used ? ops.add64(&o.tally->items, used) : 0ull);
    ops.sync();  // s.base is set and every thread has read s.nused
    if (tid == 0) ops.st32(&s.nused, 0u);
    const std::uint64_t base = ops.ld64(&s.base);
    for (std::uint32_t i = tid; i < used; i += p.threads) {
        const std::uint32_t slot = ops.ld16(&s.used[i]);
        const std::uint64_t key = ops.ld64(&s.keys[slot]);
        put_item(ops, o, base + i, key, ops.ld32(&s.counts[slot]));
        if (std::uint32_t(key >> 32) > largest) largest = std::uint32_t(key >> 32);
        ops.st64(&s.keys[slot], kNoPair);
        ops.st32(&s.counts[slot], 0u);
    }
    ops.sync();  // the table is clear before the next tile takes slots
}

/// One warp's band of rows r0 .. r0 + band − 1 of tile @p tile: every pair its voxels own, by runs,
/// into the table or out on their own.
template <class Ops>
CCL_HD void warp_band(Ops& ops, const Params& p, const AdjOut& o, Shared& s, std::uint64_t tile, std::uint32_t r0,
                      std::uint32_t band, std::uint32_t lane, std::uint32_t& largest) {
    std::uint32_t tx, ty, z;
    tile_place(p, tile, tx, ty, z);
    const std::uint32_t x = tx * kAdjTileW + lane;
    const std::uint32_t y0 = ty * p.tile_h + r0;
    if (y0 >= p.height) return;  // the same for the whole warp
    const bool w = wide(p.connectivity), behind = z + 1 < p.depth;
    const int dirs = directions(p.connectivity);
    auto cas = [&](std::uint32_t slot, std::uint64_t expected, std::uint64_t desired) {
        const std::uint64_t old = ops.cas64(&s.keys[slot], expected, desired);
        if (old == kNoPair) ops.st16(&s.used[ops.add32(&s.nused, 1u)], static_cast<unsigned short>(slot));
        return old;
    };
    auto add = [&](std::uint32_t slot, std::uint32_t n) { ops.add32(&s.counts[slot], n); };
    // The rows of row y0, and those below it (y0 + 1) loaded a row ahead: each row's loads are in
    // flight while the row before finds its pairs.
    Row cur = load_row(ops, p, x, y0, z, lane, w);
    Row um = behind && w ? load_row(ops, p, x, std::int64_t(y0) - 1, z + 1, lane, w) : Row{};
    Row u0 = behind ? load_row(ops, p, x, y0, z + 1, lane, w) : Row{};
    Row below = load_row(ops, p, x, std::int64_t(y0) + 1, z, lane, w);
    Row up = behind ? load_row(ops, p, x, std::int64_t(y0) + 1, z + 1, lane, w) : Row{};
    for (std::uint32_t r = 0; r < band; ++r) {
        const std::uint32_t y = y0 + r;
        if (y >= p.height) break;  // the same for the whole warp
        const bool ahead = r + 1 < band;  // the band's last row needs no row after the one below
        const Row below2 = ahead ? load_row(ops, p, x, std::int64_t(y) + 2, z, lane, w) : Row{};
        const Row up2 = ahead && behind ? load_row(ops, p, x, std::int64_t(y) + 2, z + 1, lane, w) : Row{};
        const VoxelNeighbours nb = gather(ops, p, x, y, z, lane, cur, below, um, u0, up);
        cur = below, um = u0, u0 = up, below = below2, up = up2;
        if (ops.ballot(voxel_has_pair(nb, p.connectivity, p.include_background)) == 0) continue;
        for (int d = 0; d < dirs; ++d) {
            const std::uint64_t key = neighbour_pair(nb, direction_at(p.connectivity, d), p.include_background);
            const std::uint64_t left = ops.shfl_up64(key);
            const bool head = run_head(lane, key, left);
            const std::uint32_t heads = ops.ballot(head);
            bool spill = false;
            std::uint32_t n = 0;
            if (head && key != kNoPair) {
                n = run_length(heads, lane);
                spill = table_full(ops.ld32(&s.nused), p.table) || !table_add(p.table, key, n, cas, add);
            }
            // Pairs that found no slot (a tile of noise) go out on their own, a warp's at once.
            const std::uint32_t spills = ops.ballot(spill);
            if (spills != 0) {
                const std::uint32_t leader = ffs32(spills) - 1u;
                std::uint64_t base = 0;
                if (lane == leader) base = ops.add64(&o.tally->items, popc32(spills));
                base = ops.shfl64(base, leader);
                if (spill) {
                    put_item(ops, o, base + popc32(spills & mask_below(lane)), key, n);
                    if (std::uint32_t(key >> 32) > largest) largest = std::uint32_t(key >> 32);
                }
            }
        }
    }
}

/// The whole block, thread @p tid: runs of tiles from the counter while there are any; the table
/// out when over half full after a tile, and at the end. Every thread reaches every barrier (the
/// loop and the decisions to put the table out are the same for the whole block).
template <class Ops>
CCL_HD void block_program(Ops& ops, const Params& p, const AdjOut& o, Shared& s, std::uint32_t tid) {
    const std::uint32_t lane = tid & 31u, warp = tid >> 5;
    const std::uint32_t band = p.tile_h / (p.threads / 32u);
    std::uint32_t largest = 0;
    for (std::uint32_t i = tid; i < p.table; i += p.threads) {
        ops.st64(&s.keys[i], kNoPair);
        ops.st32(&s.counts[i], 0u);
    }
    if (tid == 0) ops.st32(&s.nused, 0u);
    ops.sync();
    for (;;) {
        if (tid == 0) ops.st32(&s.chunk, ops.add32(&o.tally->next_chunk, 1u));
        ops.sync();
        const std::uint64_t first = std::uint64_t(ops.ld32(&s.chunk)) * p.chunk;
        if (first >= p.tiles) break;
        const std::uint64_t last = first + p.chunk < p.tiles ? first + p.chunk : p.tiles;
        for (std::uint64_t tile = first; tile < last; ++tile) {
            warp_band(ops, p, o, s, tile, warp * band, band, lane, largest);
            // Thread 0's look at the count may miss a warp's last adds: it only decides when the
            // table goes out early (the same answer for every thread); the last put_out takes the rest.
            if (ops.sync_or(tid == 0 && ops.ld32(&s.nused) > p.table / 2)) put_out(ops, p, o, s, tid, largest);
        }
        ops.sync();  // every thread has read s.chunk before thread 0 takes the next run
    }
    ops.sync();
    if (ops.ld32(&s.nused) != 0) put_out(ops, p, o, s, tid, largest);
    if (largest != 0) ops.max32(&o.tally->largest_a, largest);
}

}  // namespace cclabel::cuda::detail::vadj
