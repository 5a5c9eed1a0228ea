#pragma once
// The per-thread programs of the GPU region statistics, written once for the kernels
// (src/cuda/stats_cuda.cu) and for the host loop of tests/cpp/test_stats_bodies.cpp, which runs
// every phase for every thread of every block with plain memory standing in for shared memory and
// atomics. Every atomic goes through an `Ops` object.
//
// A block takes a run of consecutive tiles of kStatsTile pixels in raster order (any row width: a
// tile may hold pieces of several rows) and keeps its partial sums per label in a small hash table
// in shared memory across its tiles. Per tile:
//   Stage   the tile's labels and those one row above and below it (for the perimeter) are read
//           into shared memory with coalesced loads.
//   Runs    each thread walks its kStatsPpt pixels (a 3×3 window slid along the row, three shared
//           loads a pixel) and cuts them into runs of one label within a row; a run is inserted
//           into the table (8 shared atomics), except a run that continues the previous thread's
//           last run and a last run that continues into the next thread.
//   Chain   those pieces of one run are summed by a block-wide scan (their perimeter pixels, and
//           the nearest thread before that opened a run), and the thread holding the run's last
//           piece inserts the whole run once: a row of paper costs one insert per tile.
// Flush, one set of global atomics per occupied table entry (per (block, label) pair), runs when
// the table is over half full and after the block's last tile: a label covering the picture (the
// paper) costs a few global atomics per block, not per tile. Runs that find the table full go to
// the global row directly.
#include <cstdint>
#include <cstring>

#include "cclabel/detail/hd.hpp"
#include "cclabel/image_view.hpp"

namespace cclabel::cuda::detail {

inline constexpr std::uint32_t kStatsThreads = 256;
inline constexpr std::uint32_t kStatsPpt = 8;  // consecutive pixels a thread
inline constexpr std::uint32_t kStatsTile = kStatsThreads * kStatsPpt;
inline constexpr std::uint32_t kStatsTable = 256;  // a power of two
inline constexpr std::uint32_t kStatsFlushAt = kStatsTable / 2;  // occupied entries that trigger a flush between tiles
inline constexpr std::uint32_t kEmptyKey = 0xFFFFFFFFu;
inline constexpr std::uint64_t kNoLabel = 0xFFFFFFFFFFFFFFFFull;
inline constexpr std::uint64_t kQuietNanBits = 0x7FF8000000000000ull;  // std::numeric_limits<double>::quiet_NaN()
static_assert(kStatsTable == 256, "insert_run's hash keeps the top 8 bits");

/// Staged arrays hold the tile and one pixel either side; one padding word every 32 keeps the
/// threads' strided reads (thread t reads 8t..8t+7) free of bank conflicts.
CCL_HD std::uint32_t stage_slot(std::uint32_t j) { return j + (j >> 5); }
inline constexpr std::uint32_t kStageWords = (kStatsTile + 2) + ((kStatsTile + 2) >> 5) + 1;

/// A RegionStats row as 64-bit words (offsets checked against the struct where both are visible).
/// While accumulating: kX holds the smallest x, kWidth the largest x, kCx and kCy the sums of x
/// and y, and the two 32-bit halves of kValue01 (in memory order) the first and the last raster
/// index of the label.
enum RowWord : std::uint32_t { kArea = 0, kX = 1, kY = 2, kWidth = 3, kHeight = 4, kCx = 5, kCy = 6, kPerim = 7,
                               kValue01 = 8, kValue23 = 9, kRowWords = 10 };

struct StatsParams {
    const std::uint32_t* labels = nullptr;
    std::uint32_t width = 0, height = 0;
    std::uint64_t pixels = 0;
    int connectivity = 8;
    const std::uint32_t* count = nullptr;  ///< N on the device, or null: rows = capacity
    std::uint64_t capacity = 0;
    unsigned long long* rows = nullptr;  ///< capacity × kRowWords
    // Finish only:
    const std::uint8_t* img = nullptr;
    std::int64_t stride = 0;
    PixelFormat format = PixelFormat::Gray8;
};

/// The rows this call writes: N + 1 capped at the capacity.
CCL_HD std::uint64_t stats_rows(const StatsParams& g) {
    if (g.count == nullptr) return g.capacity;
    const std::uint64_t n1 = std::uint64_t(*g.count) + 1;
    return n1 < g.capacity ? n1 : g.capacity;
}

struct StatsShared {
    std::uint32_t up[kStageWords], cur[kStageWords], dn[kStageWords];
    std::uint32_t key[kStatsTable], area[kStatsTable], perim[kStatsTable];
    std::uint32_t min_x[kStatsTable], max_x[kStatsTable], first[kStatsTable], last[kStatsTable];
    unsigned long long sum_x[kStatsTable], sum_y[kStatsTable];
    // A thread's open last run (the head of a chain), and the inclusive prefix over the threads of
    // their continuation pieces' perimeter pixels.
    std::uint32_t h_label[kStatsThreads], h_y[kStatsThreads], h_x0[kStatsThreads], h_perim[kStatsThreads];
    std::uint32_t chain_prefix[kStatsThreads];
    std::uint32_t used;  // table entries claimed
    std::uint64_t rows;
};

/// One run: pixels x0..x1 of row y, all of one label; perim of them on the region's perimeter.
struct StatsRun {
    std::uint32_t label = 0, y = 0, x0 = 0, x1 = 0, perim = 0;
    bool valid = false;
};

/// What a thread's Runs leave for Chain: its open last run (the head of a chain), and its first
/// run when that continues the previous thread's (a piece: where it ends, its perimeter pixels,
/// whether it runs on into the next thread).
struct StatsEnds {
    StatsRun head;
    bool piece = false, piece_open = false;
    std::uint32_t piece_x1 = 0, piece_perim = 0;
};

CCL_HD void row_init(unsigned long long* row) {
    for (std::uint32_t w = 0; w < kRowWords; ++w) row[w] = 0;
    row[kX] = kNoLabel;
    std::uint32_t first_last[2] = {0xFFFFFFFFu, 0u};
    std::memcpy(&row[kValue01], first_last, 8);
}

/// Adds one run's (or one table entry's) sums to the global row of @p label.
template <class Ops>
CCL_HD void add_to_row(Ops& ops, const StatsParams& g, std::uint32_t label, std::uint64_t area,
                       std::uint64_t perim, std::uint32_t min_x, std::uint32_t max_x, std::uint32_t first,
                       std::uint32_t last, std::uint64_t sum_x, std::uint64_t sum_y) {
    unsigned long long* row = g.rows + std::uint64_t(label) * kRowWords;
    auto* fl = reinterpret_cast<std::uint32_t*>(row + kValue01);
    ops.add64(row + kArea, area);
    ops.add64(row + kPerim, perim);
    ops.add64(row + kCx, sum_x);
    ops.add64(row + kCy, sum_y);
    ops.min64(row + kX, min_x);
    ops.max64(row + kWidth, max_x);
    ops.min32(fl, first);
    ops.max32(fl + 1, last);
}

/// Inserts a run into the block's table (or, when the table is full, into the global row).
template <class Ops>
CCL_HD void insert_run(Ops& ops, const StatsParams& g, StatsShared& s, const StatsRun& r) {
    const std::uint32_t area = r.x1 - r.x0 + 1;
    const std::uint32_t first = r.y * g.width + r.x0, last = r.y * g.width + r.x1;
    // Σ x over x0..x1: one factor of (x0 + x1)(x1 − x0 + 1) is even.
    const std::uint64_t sum_x = (std::uint64_t(r.x0) + r.x1) * area / 2;
    const std::uint64_t sum_y = std::uint64_t(area) * r.y;
    if (r.label != kEmptyKey) {
        std::uint32_t h = (r.label * 0x9E3779B1u) >> 24;  // kStatsTable = 256
        for (std::uint32_t probe = 0; probe < kStatsTable; ++probe, h = (h + 1) & (kStatsTable - 1)) {
            std::uint32_t k = ops.ld(&s.key[h]);
            if (k == kEmptyKey) {
                k = ops.cas(&s.key[h], kEmptyKey, r.label);
                if (k == kEmptyKey) {
                    k = r.label;
                    ops.add32(&s.used, 1u);
                }
            }
            if (k != r.label) continue;
            ops.add32(&s.area[h], area);
            ops.add32(&s.perim[h], r.perim);
            ops.add64(&s.sum_x[h], sum_x);
            ops.add64(&s.sum_y[h], sum_y);
            ops.min32(&s.min_x[h], r.x0);
            ops.max32(&s.max_x[h], r.x1);
            ops.min32(&s.first[h], first);
            ops.max32(&s.last[h], last);
            return;
        }
    }
    add_to_row(ops, g, r.label, area, r.perim, r.x0, r.x1, first, last, sum_x, sum_y);
}

/// Stage: thread @p t reads its share of tile @p b and its two neighbour rows. A barrier must follow.
template <class Ops>
CCL_HD void stats_stage(Ops& ops, const StatsParams& g, StatsShared& s, std::uint32_t t, std::uint64_t b) {
    const std::uint64_t start = b * kStatsTile;
    const std::uint64_t end = start + kStatsTile < g.pixels ? start + kStatsTile : g.pixels;
    const std::uint64_t n = end - start + 2;
    for (std::uint64_t j = t; j < n; j += kStatsThreads) {
        const std::uint64_t i = start + j - 1;  // wraps for j = 0 at the first pixel: then out of range
        const std::uint32_t slot = stage_slot(std::uint32_t(j));
        const bool in = j > 0 || start > 0;
        s.cur[slot] = in && i < g.pixels ? ops.ld_label(g.labels + i) : kEmptyKey;
        s.up[slot] = in && i >= g.width && i - g.width < g.pixels ? ops.ld_label(g.labels + (i - g.width)) : kEmptyKey;
        s.dn[slot] = in && i + g.width < g.pixels ? ops.ld_label(g.labels + (i + g.width)) : kEmptyKey;
    }
}

/// Clear: thread @p t empties its share of the table (at the block's start and after a flush). A
/// barrier must follow before the next insert.
CCL_HD void stats_clear(const StatsParams& g, StatsShared& s, std::uint32_t t) {
    for (std::uint32_t e = t; e < kStatsTable; e += kStatsThreads) {
        s.key[e] = kEmptyKey;
        s.area[e] = s.perim[e] = 0;
        s.min_x[e] = s.first[e] = 0xFFFFFFFFu;
        s.max_x[e] = s.last[e] = 0;
        s.sum_x[e] = s.sum_y[e] = 0;
    }
    if (t == 0) {
        s.used = 0;
        s.rows = stats_rows(g);
    }
}

/// Runs: thread @p t cuts its pixels of tile @p b into runs and inserts them; returns the pieces
/// for Chain.
template <class Ops>
CCL_HD StatsEnds stats_runs(Ops& ops, const StatsParams& g, StatsShared& s, std::uint32_t t, std::uint64_t b) {
    StatsEnds ends;
    const std::uint64_t start = b * kStatsTile;
    const std::uint64_t end = start + kStatsTile < g.pixels ? start + kStatsTile : g.pixels;
    const std::uint64_t b0 = start + std::uint64_t(t) * kStatsPpt;
    if (b0 >= end) return ends;
    const std::uint64_t b1 = b0 + kStatsPpt < end ? b0 + kStatsPpt : end;
    const std::uint64_t rows = s.rows;
    const std::uint32_t w = g.width, h = g.height;
    std::uint32_t y = std::uint32_t(b0 / w), x = std::uint32_t(b0 % w);
    const std::uint32_t j0 = std::uint32_t(b0 - start) + 1, j1 = std::uint32_t(b1 - start) + 1;

    auto close = [&](const StatsRun& r, bool is_first, bool is_last) {
        if (r.label >= rows) return;  // no row for it: not counted
        const bool cont = is_first && b0 > start && r.x0 != 0 && s.cur[stage_slot(j0 - 1)] == r.label;
        const bool open = is_last && b1 < end && r.x1 + 1 < w && s.cur[stage_slot(j1)] == r.label;
        if (cont) {
            ends.piece = true;
            ends.piece_open = open;
            ends.piece_x1 = r.x1;
            ends.piece_perim = r.perim;
        } else if (open) {
            ends.head = r;
            ends.head.valid = true;
        } else {
            insert_run(ops, g, s, r);
        }
    };

    // The 3×3 window around pixel j: columns j − 1, j, j + 1 of the rows above, at and below.
    std::uint32_t u0 = s.up[stage_slot(j0 - 1)], u1 = s.up[stage_slot(j0)];
    std::uint32_t c0 = s.cur[stage_slot(j0 - 1)], c1 = s.cur[stage_slot(j0)];
    std::uint32_t d0 = s.dn[stage_slot(j0 - 1)], d1 = s.dn[stage_slot(j0)];
    StatsRun r;
    bool have = false, first_run = true;
    for (std::uint32_t j = j0; j < j1; ++j) {
        const std::uint32_t next = stage_slot(j + 1);
        const std::uint32_t u2 = s.up[next], c2 = s.cur[next], d2 = s.dn[next];
        const std::uint32_t l = c1;
        bool edge = x == 0 || y == 0 || x + 1 == w || y + 1 == h;
        if (!edge) {
            edge = ((c0 ^ l) | (c2 ^ l) | (u1 ^ l) | (d1 ^ l)) != 0;
            if (!edge && g.connectivity == 8) edge = ((u0 ^ l) | (u2 ^ l) | (d0 ^ l) | (d2 ^ l)) != 0;
        }
        if (have && x != 0 && l == r.label) {
            r.x1 = x;
            r.perim += edge ? 1u : 0u;
        } else {
            if (have) {
                close(r, first_run, false);
                first_run = false;
            }
            r.label = l;
            r.y = y;
            r.x0 = r.x1 = x;
            r.perim = edge ? 1u : 0u;
            have = true;
        }
        if (++x == w) {
            x = 0;
            ++y;
        }
        u0 = u1, u1 = u2, c0 = c1, c1 = c2, d0 = d1, d1 = d2;
    }
    close(r, first_run, true);
    return ends;
}

/// Chain, scan inputs: the perimeter pixels thread @p t's piece adds to its chain, and t + 1 if
/// the thread opens a chain (else 0). The block scans the first by sum (inclusive) and the second
/// by max (exclusive: the nearest opening thread before t, plus one).
CCL_HD std::uint32_t chain_piece_perim(const StatsEnds& e) { return e.piece ? e.piece_perim : 0u; }
CCL_HD std::uint32_t chain_head_mark(const StatsEnds& e, std::uint32_t t) { return e.head.valid ? t + 1 : 0u; }

/// Chain, publish: thread @p t stores its head run (right after Runs) and, once scanned, its
/// inclusive perimeter prefix. A barrier must follow the second.
CCL_HD void stats_chain_head(StatsShared& s, std::uint32_t t, const StatsEnds& e) {
    if (e.head.valid) {
        s.h_label[t] = e.head.label;
        s.h_y[t] = e.head.y;
        s.h_x0[t] = e.head.x0;
        s.h_perim[t] = e.head.perim;
    }
}
CCL_HD void stats_chain_prefix(StatsShared& s, std::uint32_t t, std::uint32_t prefix) { s.chain_prefix[t] = prefix; }

/// Chain, close: the thread whose piece ends its run (the run does not go on into the next
/// thread) inserts the whole run: the head's pixels, every piece's perimeter pixels up to its own
/// (@p prefix minus the head thread's prefix), its own end. @p head_mark: the exclusive max-scan
/// of chain_head_mark. A barrier must follow.
template <class Ops>
CCL_HD void stats_chain_close(Ops& ops, const StatsParams& g, StatsShared& s, const StatsEnds& e, std::uint32_t prefix,
                              std::uint32_t head_mark) {
    if (!e.piece || e.piece_open || head_mark == 0) return;
    const std::uint32_t h = head_mark - 1;
    StatsRun r;
    r.label = s.h_label[h];
    r.y = s.h_y[h];
    r.x0 = s.h_x0[h];
    r.x1 = e.piece_x1;
    r.perim = s.h_perim[h] + (prefix - s.chain_prefix[h]);
    r.valid = true;
    insert_run(ops, g, s, r);
}

/// Flush: thread @p t adds its share of the occupied table entries to the global rows.
template <class Ops>
CCL_HD void stats_flush(Ops& ops, const StatsParams& g, StatsShared& s, std::uint32_t t) {
    for (std::uint32_t e = t; e < kStatsTable; e += kStatsThreads) {
        const std::uint32_t k = s.key[e];
        if (k == kEmptyKey) continue;
        add_to_row(ops, g, k, s.area[e], s.perim[e], s.min_x[e], s.max_x[e], s.first[e], s.last[e], s.sum_x[e],
                   s.sum_y[e]);
    }
}

/// The value of the pixel at raster index @p i, per channel, as cclabel::regions() reads it.
CCL_HD void read_channels(const StatsParams& g, std::uint32_t i, std::uint32_t* v) {
    const std::uint32_t y = i / g.width, x = i % g.width;
    const std::uint8_t* p = g.img + std::int64_t(y) * g.stride + std::int64_t(x) * bytes_per_pixel(g.format);
    v[0] = v[1] = v[2] = v[3] = 0;
    switch (g.format) {
        case PixelFormat::Binary8: v[0] = p[0] != 0 ? 1u : 0u; break;
        case PixelFormat::Gray8: v[0] = p[0]; break;
        case PixelFormat::Gray16: {
            std::uint16_t q;
            std::memcpy(&q, p, 2);
            v[0] = q;
            break;
        }
        case PixelFormat::U32: std::memcpy(&v[0], p, 4); break;
        case PixelFormat::RGB8: v[0] = p[0], v[1] = p[1], v[2] = p[2]; break;
        case PixelFormat::RGBA8: v[0] = p[0], v[1] = p[1], v[2] = p[2], v[3] = p[3]; break;
        // Typed formats (the device API refuses them; the host API sends keys): a pixel's bits.
        case PixelFormat::I8: v[0] = p[0]; break;
        case PixelFormat::I16:
        case PixelFormat::F16: {
            std::uint16_t q;
            std::memcpy(&q, p, 2);
            v[0] = q;
            break;
        }
        case PixelFormat::I32:
        case PixelFormat::F32: std::memcpy(&v[0], p, 4); break;
        case PixelFormat::I64:
        case PixelFormat::U64:
        case PixelFormat::F64: std::memcpy(v, p, 8); break;  // low word first on little-endian hosts
    }
}

/// Finish: turns the sums of row @p l into the row (exactly as the CPU divides: double of the
/// exact sum over double of the area, one IEEE division).
CCL_HD void stats_finish_row(const StatsParams& g, std::uint64_t l) {
    unsigned long long* row = g.rows + l * kRowWords;
    const std::uint64_t area = row[kArea];
    std::uint32_t fl[2];
    std::memcpy(fl, &row[kValue01], 8);
    if (area == 0) {
        for (std::uint32_t w = 1; w < kRowWords; ++w) row[w] = 0;
        row[kCx] = row[kCy] = kQuietNanBits;
        return;
    }
    const std::uint64_t min_x = row[kX], max_x = row[kWidth];
    const std::uint64_t top = fl[0] / g.width, bottom = fl[1] / g.width;
    row[kY] = top;
    row[kWidth] = max_x - min_x + 1;
    row[kHeight] = bottom - top + 1;
    const double cx = double(row[kCx]) / double(area), cy = double(row[kCy]) / double(area);
    std::memcpy(&row[kCx], &cx, 8);
    std::memcpy(&row[kCy], &cy, 8);
    std::uint32_t v[4];
    read_channels(g, fl[0], v);
    std::memcpy(&row[kValue01], v, 16);
}

}  // namespace cclabel::cuda::detail
