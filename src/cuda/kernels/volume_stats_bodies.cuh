#pragma once
// The per-thread program of the GPU statistics of label volumes (cclabel::cuda::regions_volume_device,
// src/cuda/volume_stats_cuda.cu), written once for the kernel and for the CPU emulator of
// tests/emu (fibers, every memory operation a yield point), so CI checks the GPU's logic against
// cclabel::regions_volume without a GPU. Every memory access and barrier goes through an `Ops`
// object.
//
// A block takes a run of consecutive tiles of threads × ppt voxels in raster order (z, y, x: a tile
// may hold pieces of several rows and slices). Each thread walks its ppt voxels, reading the six
// face neighbours from global memory (the surface is always 6-connected, as on the CPU), and cuts
// them into runs of one label within a row; a run goes into the block's hash table in shared memory
// (per label: voxels, surface, min/max of x, y, z, first raster index, sums of x, y, z), so a label
// covering the volume costs one insert a thread a tile, not one a voxel. The table is flushed to
// the global rows (one set of 64-bit global atomics per occupied entry) when it is over half full
// after a tile and after the block's last tile; a run that finds the table full goes to its global
// row directly. Finish turns each row's sums into the row, dividing exactly as the CPU does.
#include <cstdint>
#include <cstring>

#include "cclabel/detail/hd.hpp"
#include "cclabel/image_view.hpp"
#include "core/format_value.hpp"

namespace cclabel::cuda::detail::vstats {

inline constexpr std::uint32_t kThreads = 256;
inline constexpr std::uint32_t kPpt = 8;     // consecutive voxels a thread
inline constexpr std::uint32_t kTable = 256;  // the largest table; a power of two
inline constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
inline constexpr std::uint64_t kNone64 = 0xFFFFFFFFFFFFFFFFull;
inline constexpr std::uint64_t kQuietNanBits = 0x7FF8000000000000ull;  // std::numeric_limits<double>::quiet_NaN()

/// A VolumeRegionStats row as 64-bit words (offsets checked against the struct in
/// volume_stats_cuda.cu). While accumulating: kX/kY/kZ hold the smallest x, y, z, kWidth/kHeight/kDepth
/// the largest, kCx/kCy/kCz the sums, kValue01 the first raster index of the label.
enum RowWord : std::uint32_t {
    kVoxels = 0, kX = 1, kY = 2, kZ = 3, kWidth = 4, kHeight = 5, kDepth = 6, kCx = 7, kCy = 8, kCz = 9,
    kSurface = 10, kValue01 = 11, kValue23 = 12, kRowWords = 13
};

struct Params {
    const std::uint32_t* labels = nullptr;
    std::uint32_t width = 0, height = 0, depth = 0;
    std::uint64_t voxels = 0;
    const std::uint32_t* count = nullptr;  ///< N on the device, or null: rows = capacity
    std::uint64_t capacity = 0;
    unsigned long long* rows = nullptr;  ///< capacity × kRowWords
    // The launch shape: the kernel's constants, smaller in the emulator's tests (more tiles, more
    // blocks and a table that fills up on small volumes).
    std::uint32_t threads = kThreads, ppt = kPpt, table = kTable;
    std::uint32_t tiles_per_block = 1;
    // Finish only: the volume, for each region's value.
    const std::uint8_t* data = nullptr;
    std::int64_t row_stride = 0, slice_stride = 0;
    PixelFormat format = PixelFormat::Gray8;
};

/// The rows this call writes: N + 1 capped at the capacity, and below 2^32 so that no counted
/// label is the table's empty key (only a volume of 2^32 - 1 voxels, each its own label, would
/// lose its last row).
CCL_HD std::uint64_t rows_of(const Params& g) {
    std::uint64_t n = g.capacity < kEmpty ? g.capacity : kEmpty;
    if (g.count != nullptr && std::uint64_t(*g.count) + 1 < n) n = std::uint64_t(*g.count) + 1;
    return n;
}

CCL_HD std::uint64_t tile_voxels(const Params& g) { return std::uint64_t(g.threads) * g.ppt; }
CCL_HD std::uint64_t tiles_of(const Params& g) { return (g.voxels + tile_voxels(g) - 1) / tile_voxels(g); }

/// Per-block sums: a block covers at most 2^16 voxels (32 tiles of 2048), so counts fit 32 bits.
struct Shared {
    std::uint32_t key[kTable], voxels[kTable], surface[kTable], first[kTable];
    std::uint32_t min_x[kTable], max_x[kTable], min_y[kTable], max_y[kTable], min_z[kTable], max_z[kTable];
    unsigned long long sum_x[kTable], sum_y[kTable], sum_z[kTable];
    std::uint32_t used;
    std::uint64_t rows;
};

/// One run: voxels x0..x1 of row (y, z), all of label @p label; surface of them on the surface.
struct Run {
    std::uint32_t label = kEmpty, x0 = 0, x1 = 0, y = 0, z = 0, surface = 0;
};

CCL_HD void row_init(unsigned long long* row) {
    for (std::uint32_t w = 0; w < kRowWords; ++w) row[w] = 0;
    row[kX] = row[kY] = row[kZ] = kNone64;
    row[kValue01] = kNone64;
}

template <class Ops>
CCL_HD void add_to_row(Ops& ops, const Params& g, std::uint32_t label, std::uint64_t voxels, std::uint64_t surface,
                       std::uint32_t min_x, std::uint32_t max_x, std::uint32_t min_y, std::uint32_t max_y,
                       std::uint32_t min_z, std::uint32_t max_z, std::uint32_t first, std::uint64_t sum_x,
                       std::uint64_t sum_y, std::uint64_t sum_z) {
    unsigned long long* row = g.rows + std::uint64_t(label) * kRowWords;
    ops.add64(row + kVoxels, voxels);
    ops.add64(row + kSurface, surface);
    ops.add64(row + kCx, sum_x);
    ops.add64(row + kCy, sum_y);
    ops.add64(row + kCz, sum_z);
    ops.min64(row + kX, min_x);
    ops.min64(row + kY, min_y);
    ops.min64(row + kZ, min_z);
    ops.max64(row + kWidth, max_x);
    ops.max64(row + kHeight, max_y);
    ops.max64(row + kDepth, max_z);
    ops.min64(row + kValue01, first);
}

/// Inserts a run into the block's table (or, when the table is full, into the global row).
template <class Ops>
CCL_HD void insert_run(Ops& ops, const Params& g, Shared& s, const Run& r) {
    const std::uint32_t n = r.x1 - r.x0 + 1;
    // The raster index fits 32 bits: a volume has at most 2^32 - 1 voxels.
    const std::uint32_t first = std::uint32_t((std::uint64_t(r.z) * g.height + r.y) * g.width + r.x0);
    // Σ x over x0..x1: one factor of (x0 + x1)(x1 − x0 + 1) is even.
    const std::uint64_t sum_x = (std::uint64_t(r.x0) + r.x1) * n / 2;
    const std::uint64_t sum_y = std::uint64_t(n) * r.y, sum_z = std::uint64_t(n) * r.z;
    const std::uint32_t mask = g.table - 1;
    std::uint32_t h = ((r.label * 0x9E3779B1u) >> 16) & mask;
    for (std::uint32_t probe = 0; probe < g.table; ++probe, h = (h + 1) & mask) {
        std::uint32_t k = ops.ld(&s.key[h]);
        if (k == kEmpty) {
            k = ops.cas(&s.key[h], kEmpty, r.label);
            if (k == kEmpty) {
                k = r.label;
                ops.add32(&s.used, 1u);
            }
        }
        if (k != r.label) continue;
        ops.add32(&s.voxels[h], n);
        ops.add32(&s.surface[h], r.surface);
        ops.add64(&s.sum_x[h], sum_x);
        ops.add64(&s.sum_y[h], sum_y);
        ops.add64(&s.sum_z[h], sum_z);
        ops.min32(&s.min_x[h], r.x0);
        ops.max32(&s.max_x[h], r.x1);
        ops.min32(&s.min_y[h], r.y);
        ops.max32(&s.max_y[h], r.y);
        ops.min32(&s.min_z[h], r.z);
        ops.max32(&s.max_z[h], r.z);
        ops.min32(&s.first[h], first);
        return;
    }
    add_to_row(ops, g, r.label, n, r.surface, r.x0, r.x1, r.y, r.y, r.z, r.z, first, sum_x, sum_y, sum_z);
}

/// Thread @p t empties its share of the table. A barrier must follow before the next insert.
template <class Ops>
CCL_HD void clear(Ops& ops, const Params& g, Shared& s, std::uint32_t t) {
    for (std::uint32_t e = t; e < g.table; e += g.threads) {
        ops.st(&s.key[e], kEmpty);
        ops.st(&s.voxels[e], 0u);
        ops.st(&s.surface[e], 0u);
        ops.st(&s.first[e], 0xFFFFFFFFu);
        ops.st(&s.min_x[e], 0xFFFFFFFFu);
        ops.st(&s.min_y[e], 0xFFFFFFFFu);
        ops.st(&s.min_z[e], 0xFFFFFFFFu);
        ops.st(&s.max_x[e], 0u);
        ops.st(&s.max_y[e], 0u);
        ops.st(&s.max_z[e], 0u);
        ops.st64(&s.sum_x[e], 0u);
        ops.st64(&s.sum_y[e], 0u);
        ops.st64(&s.sum_z[e], 0u);
    }
    if (t == 0) {
        ops.st(&s.used, 0u);
        s.rows = rows_of(g);
    }
}

/// Thread @p t adds its share of the occupied table entries to the global rows.
template <class Ops>
CCL_HD void flush(Ops& ops, const Params& g, Shared& s, std::uint32_t t) {
    for (std::uint32_t e = t; e < g.table; e += g.threads) {
        const std::uint32_t k = ops.ld(&s.key[e]);
        if (k == kEmpty) continue;
        add_to_row(ops, g, k, ops.ld(&s.voxels[e]), ops.ld(&s.surface[e]), ops.ld(&s.min_x[e]),
                   ops.ld(&s.max_x[e]), ops.ld(&s.min_y[e]), ops.ld(&s.max_y[e]), ops.ld(&s.min_z[e]),
                   ops.ld(&s.max_z[e]), ops.ld(&s.first[e]), ops.ld64(&s.sum_x[e]), ops.ld64(&s.sum_y[e]),
                   ops.ld64(&s.sum_z[e]));
    }
}

/// Thread @p t's ppt voxels of tile @p b: cut into runs, each inserted. Labels ≥ the row count
/// belong to no row and are not counted.
template <class Ops>
CCL_HD void tile_runs(Ops& ops, const Params& g, Shared& s, std::uint32_t t, std::uint64_t b) {
    const std::uint64_t start = b * tile_voxels(g);
    const std::uint64_t end = start + tile_voxels(g) < g.voxels ? start + tile_voxels(g) : g.voxels;
    const std::uint64_t i0 = start + std::uint64_t(t) * g.ppt;
    if (i0 >= end) return;
    const std::uint64_t i1 = i0 + g.ppt < end ? i0 + g.ppt : end;
    const std::uint64_t rows = s.rows;
    const std::uint32_t w = g.width, h = g.height, d = g.depth;
    const std::uint64_t plane = std::uint64_t(w) * h;
    const std::uint64_t line = i0 / w;
    std::uint32_t x = std::uint32_t(i0 % w), y = std::uint32_t(line % h), z = std::uint32_t(line / h);
    std::uint32_t left = x > 0 ? ops.ld_label(g.labels + (i0 - 1)) : kEmpty;
    std::uint32_t l = ops.ld_label(g.labels + i0);
    Run r;
    bool have = false;
    for (std::uint64_t i = i0; i < i1; ++i) {
        const bool has_right = x + 1 < w;
        const std::uint32_t right = has_right ? ops.ld_label(g.labels + (i + 1)) : kEmpty;
        // The volume's border is outside every region; the loads of the neighbours stay inside it.
        bool surface = x == 0 || !has_right || y == 0 || y + 1 == h || z == 0 || z + 1 == d || left != l || right != l;
        if (!surface)
            surface = ops.ld_label(g.labels + (i - w)) != l || ops.ld_label(g.labels + (i + w)) != l ||
                      ops.ld_label(g.labels + (i - plane)) != l || ops.ld_label(g.labels + (i + plane)) != l;
        if (have && r.label == l && x != 0) {
            r.x1 = x;
            r.surface += surface ? 1u : 0u;
        } else {
            if (have && r.label < rows) insert_run(ops, g, s, r);
            have = true;
            r.label = l, r.x0 = r.x1 = x, r.y = y, r.z = z, r.surface = surface ? 1u : 0u;
        }
        left = l;
        if (has_right) {
            l = right;
            ++x;
        } else if (i + 1 < i1) {
            x = 0;
            left = kEmpty;
            l = ops.ld_label(g.labels + (i + 1));
            if (++y == h) y = 0, ++z;
        }
    }
    if (have && r.label < rows) insert_run(ops, g, s, r);
}

/// The whole block: tiles [tiles_per_block · @p block, ...) by thread @p t, the table kept across
/// tiles. Every thread reaches every barrier (the loop and the flush decision are block-uniform).
template <class Ops>
CCL_HD void block_program(Ops& ops, const Params& g, Shared& s, std::uint32_t t, std::uint64_t block) {
    const std::uint64_t tiles = tiles_of(g);
    const std::uint64_t first = block * g.tiles_per_block;
    const std::uint64_t last = first + g.tiles_per_block < tiles ? first + g.tiles_per_block : tiles;
    clear(ops, g, s, t);
    ops.sync();
    for (std::uint64_t b = first; b < last; ++b) {
        tile_runs(ops, g, s, t, b);
        ops.sync();
        const bool now = b + 1 == last || ops.ld(&s.used) > g.table / 2;
        ops.sync();  // every thread has read `used` before a clear (or the next tile's inserts) changes it
        if (now) {
            flush(ops, g, s, t);
            ops.sync();
            if (b + 1 != last) {
                clear(ops, g, s, t);
                ops.sync();
            }
        }
    }
}

/// The value of the voxel at raster index @p i, per channel, as cclabel::regions_volume reads it.
CCL_HD void read_value(const Params& g, std::uint64_t i, std::uint32_t* v) {
    const std::uint64_t line = i / g.width;
    const std::uint64_t x = i % g.width, y = line % g.height, z = line / g.height;
    const std::uint8_t* p = g.data + std::int64_t(z) * g.slice_stride + std::int64_t(y) * g.row_stride +
                            std::int64_t(x) * bytes_per_pixel(g.format);
    v[0] = v[1] = v[2] = v[3] = 0;
    std::uint16_t q16;
    std::uint32_t q32;
    std::uint64_t q64;
    switch (g.format) {
        case PixelFormat::Binary8: v[0] = p[0] != 0 ? 1u : 0u; break;
        case PixelFormat::Gray8:
        case PixelFormat::I8: v[0] = p[0]; break;
        case PixelFormat::Gray16:
        case PixelFormat::I16:
            std::memcpy(&q16, p, 2);
            v[0] = q16;
            break;
        case PixelFormat::F16:
            std::memcpy(&q16, p, 2);
            v[0] = cclabel::detail::canonical_f16(q16);
            break;
        case PixelFormat::U32:
        case PixelFormat::I32: std::memcpy(&v[0], p, 4); break;
        case PixelFormat::F32:
            std::memcpy(&q32, p, 4);
            v[0] = cclabel::detail::canonical_f32(q32);
            break;
        case PixelFormat::RGB8: v[0] = p[0], v[1] = p[1], v[2] = p[2]; break;
        case PixelFormat::RGBA8: v[0] = p[0], v[1] = p[1], v[2] = p[2], v[3] = p[3]; break;
        case PixelFormat::I64:
        case PixelFormat::U64:
        case PixelFormat::F64:
            std::memcpy(&q64, p, 8);
            if (g.format == PixelFormat::F64) q64 = cclabel::detail::canonical_f64(q64);
            v[0] = std::uint32_t(q64), v[1] = std::uint32_t(q64 >> 32);
            break;
    }
}

/// Finish: turns the sums of row @p l into the row, dividing as the CPU does (double of the exact
/// sum over double of the count, one IEEE division).
CCL_HD void finish_row(const Params& g, std::uint64_t l) {
    unsigned long long* row = g.rows + l * kRowWords;
    const std::uint64_t n = row[kVoxels];
    if (n == 0) {
        for (std::uint32_t w = 1; w < kRowWords; ++w) row[w] = 0;
        row[kCx] = row[kCy] = row[kCz] = kQuietNanBits;
        return;
    }
    row[kWidth] = row[kWidth] - row[kX] + 1;
    row[kHeight] = row[kHeight] - row[kY] + 1;
    row[kDepth] = row[kDepth] - row[kZ] + 1;
    const double cx = double(row[kCx]) / double(n), cy = double(row[kCy]) / double(n), cz = double(row[kCz]) / double(n);
    std::memcpy(&row[kCx], &cx, 8);
    std::memcpy(&row[kCy], &cy, 8);
    std::memcpy(&row[kCz], &cz, 8);
    std::uint32_t v[4];
    read_value(g, row[kValue01], v);
    std::memcpy(&row[kValue01], v, 16);
}

}  // namespace cclabel::cuda::detail::vstats
