#pragma once
// The per-thread programs of the CUDA labeller, written once for the GPU kernels and for the CPU
// executor in tests/emu. Every load, store and atomic on shared arrays, every warp vote and every
// block barrier goes through an `Ops` object: on the GPU a thin layer over atomicMin, __ballot_sync
// and __syncthreads (src/cuda/label_cuda.cu); in the tests a fiber scheduler that may switch
// threads at each of them and checks invariants. The kernels differ from what CI runs only in how
// they are launched.
//
// The algorithm: union-find on the label buffer itself (Komura 2015; Playne & Hawick 2018), with
// min-linking so a region's root is its first pixel in raster order (Wu, Otoo & Suzuki 2009), and
// then numbering roots 1..N in raster order by a prefix sum over per-tile root counts.
//   Start    every pixel points at the first pixel of its same-valued run inside its warp, found
//            with one ballot (HA4, Hennequin et al. 2018); background pixels get their final 0.
//            Run starts that are roots are counted per Number tile.
//   Connect  each pixel joins its earlier same-valued neighbours, the row above first (cuCIM's
//            order), skipping joins another pixel makes (a scan-mask argument); union by atomicMin
//            with retry (Playne & Hawick), path halving by the same atomicMin. A root hung under
//            another is uncounted exactly once (the atomicMin that saw it still a root).
//   Number   counts are scanned (CUB); each Number tile numbers its roots by a block scan and
//            every other pixel walks to the first numbered ancestor.
//
// Tolerance (Options::tolerance > 0) runs this pipeline, when the call takes it (small pictures,
// or Switches::tolerance_segments off; else segments.cuh's tolerance stages), with `joins` (two
// neighbours close in every channel) in place of equal keys in Start's warp runs and Connect's
// neighbours: a run is then a chain of close pixels, still one region. The shortcuts that need
// joining to be an equivalence of values (skip_joins) are off for it, and Start takes one pixel a
// thread (for_tolerance).
//
// Parent encoding. Below 2^31 pixels ("flag path") a parent pointer p is stored as p | 2^31 and a
// final label without the flag, so Number can overwrite pixels while others still walk through
// them: an unflagged value met on a walk is already the region's number. Values only ever
// decrease (index | flag > smaller index | flag > any label), which the executor asserts. From
// 2^31 pixels on ("wide path") there is no spare bit: Collapse writes every pixel's root and
// marks roots in a bitmask (1 bit a pixel), and Number ranks a root by popcount within its tile.
#include <cstdint>

#include "cclabel/detail/hd.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "cuda/kernels/bits.cuh"
#include "cuda/kernels/close_keys.cuh"
#include "cuda/tuning.hpp"

namespace cclabel::cuda::detail {

inline constexpr std::uint32_t kFlag = 0x80000000u;
inline constexpr std::uint32_t kWideBackground = 0xFFFFFFFFu;  // never an index: W·H ≤ 2^32 − 1

/// Everything a program needs; plain values, copied to the device as a kernel argument.
struct Params {
    const std::uint8_t* img = nullptr;
    std::int64_t stride = 0;
    std::uint32_t width = 0, height = 0;
    std::uint64_t pixels = 0;
    std::uint32_t* labels = nullptr;   ///< parents, then labels
    std::uint32_t* counts = nullptr;   ///< roots per Number tile; scanned in place before Number
    std::uint32_t* done = nullptr;     ///< per Start/Connect tile: its Start is published
    std::uint32_t* tickets = nullptr;  ///< [0] Start/Connect tiles, [1] Number tiles
    std::uint32_t* mask = nullptr;     ///< wide path: root bits
    std::uint32_t tile_w = 32, tile_h = 8, warp_w = 32, number_tile = 1024;
    std::uint32_t number_ppt = 4;  ///< Number: pixels per thread (consecutive); threads = number_tile / number_ppt
    std::uint32_t rows_per_thread = 1;  ///< Start: rows of one column a thread (start_tile_rows when > 1)
    std::uint32_t tiles_x = 0;
    std::uint64_t tiles = 0;            ///< Start/Connect tiles
    std::uint32_t flag = kFlag;         ///< kFlag on the flag path, 0 on the wide path
    std::uint32_t background = 0;       ///< the label-buffer value of a background pixel before Number
    bool has_background = false;
    std::uint32_t background_key = 0;
    int connectivity = 8;
    /// Options::tolerance: 0 joins equal keys; above 0 close ones (the pixel pipeline with the
    /// switches that assume an equivalence of values off, or the segment pipeline's tolerance
    /// stages: see for_tolerance in cuda/tuning.hpp).
    std::uint32_t tolerance = 0;
    Switches sw{};
    // Divisions by the launch's fixed sizes (bits.cuh): tile_w, tiles_x, warp_w, number_tile,
    // width, and the border threads a tile (tile_w + tile_h − 1).
    FastDiv fd_tile_w, fd_tiles_x, fd_warp_w, fd_number_tile, fd_width, fd_border;
    // A batch (label_batch_device): images of image_h rows stacked into one picture, so that one
    // set of launches labels them all. No join crosses an image's first row, and a root's number
    // is its rank in the stack minus image_base[its image] (the roots of the images before it).
    // image_h 0: one image.
    std::uint32_t image_h = 0;
    std::uint32_t image_pixels = 0;  ///< width · image_h
    const std::uint32_t* image_base = nullptr;
    FastDiv fd_image_h, fd_image_pixels;
    // The segment pipeline (segments.cuh, switch segment_runs): segments of seg_w pixels of a row,
    // segs_x a row, segs in all; five words a segment.
    std::uint32_t seg_w = 32, segs_x = 0, seg_rows = 1;
    std::uint64_t segs = 0;
    std::uint64_t seg_strips = 0;  ///< threads: columns of seg_rows segments (segs_x a strip row)
    std::uint32_t quads_x = 0;     ///< seg_quad_number: threads a row (number_px pixels each)
    std::uint64_t quads = 0;
    FastDiv fd_quads_x;
    FastDiv fd_seg_w, fd_segs_x;
    std::uint32_t *seg_s = nullptr, *seg_g = nullptr, *seg_zin = nullptr, *seg_zl = nullptr, *seg_zr = nullptr;
    std::uint32_t* seg_c = nullptr;  ///< seg_carry: a carried segment's node (the left run's)
    bool seg_carry = false;          ///< LaunchPlan::carry
    FastDiv fd_seg_span;             ///< LaunchShape::seg_span
    bool seg_warp_carry = false;     ///< LaunchPlan::warp_carry: Start's warps are spans and find C
    bool carry_labels = false;       ///< Switches::seg_carry_labels in effect (see params.hpp)
    std::uint32_t start_lanes_x = 0; ///< warp_carry: Start threads a row
    std::uint64_t start_lanes = 0;   ///< warp_carry: Start threads in all
    FastDiv fd_start_lanes_x;
    std::uint32_t number_px = 4;     ///< LaunchShape::number_px
    bool number_in_segment = false;  ///< number_px divides seg_w: a Number group never crosses a segment
    bool number_transpose = false;   ///< Switches::seg_number_transpose in effect (see params.hpp)
    bool start_zeroes = false;       ///< Switches::seg_start_zeroes in effect (see params.hpp)
};

/// Whether row @p y is the first row of an image of a batch: nothing joins the row above it.
CCL_HD bool image_top(const Params& g, std::uint32_t y) { return g.image_h != 0 && g.fd_image_h.mod(y) == 0; }

template <PixelFormat F>
CCL_HD std::uint32_t key_at(const Params& g, std::uint32_t x, std::uint32_t y) {
    return cclabel::detail::PixelTraits<F>::key(g.img + std::int64_t(y) * g.stride +
                                                std::int64_t(x) * cclabel::detail::PixelTraits<F>::kBytes);
}

/// Whether a pixel of key @p c joins its neighbour of key @p q: equal keys; with a tolerance, keys
/// close in every channel, never a background neighbour (which a close value would otherwise reach;
/// with no tolerance only a background pixel has the background's key, and it joins nothing).
template <PixelFormat F>
CCL_HD bool joins(const Params& g, std::uint32_t c, std::uint32_t q) {
    if (g.tolerance == 0) return q == c;
    return !(g.has_background && q == g.background_key) && keys_close<F>(c, q, g.tolerance);
}

CCL_HD std::uint32_t index_of(const Params& g, std::uint32_t x, std::uint32_t y) {
    return std::uint32_t(std::uint64_t(y) * g.width + x);  // < 2^32 by validation
}

/// A parent read for find(): with cached_loads a weak load that may be served by a stale L1 line.
/// Parents only ever decrease and every value a pixel ever held is one of its ancestors, so a stale
/// value is still an ancestor; a stale "root" is caught by the atomicMin of unite(), which returns
/// the real value.
template <class Ops>
CCL_HD std::uint32_t ld_parent(Ops& ops, const Params& g, const std::uint32_t* p) {
    return g.sw.cached_loads ? ops.ld_weak(p) : ops.ld(p);
}

/// Root of @p p, halving the path on the way when the switch is on. Every hop goes to a smaller
/// index, so a walk has at most `pixels` hops.
/// With @p coherent every hop is an L2 load whatever cached_loads says (for a root that is stored
/// as final: a stale one would be wrong there).
template <class Ops>
CCL_HD std::uint32_t find_root(Ops& ops, const Params& g, std::uint32_t p, bool coherent = false) {
    const std::uint32_t f = g.flag;
    auto parent = [&](std::uint32_t k) { return coherent ? ops.ld(&g.labels[k]) : ld_parent(ops, g, &g.labels[k]); };
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, g.pixels + 1, "find_root");
        const std::uint32_t q = parent(p) & ~f;
        if (q == p) return p;
        if (g.sw.path_halving) {
            // A stale grandparent is still an ancestor, and atomicMin never undoes a lower parent
            // that another thread just wrote (a plain store could: TESTING F3).
            const std::uint32_t r = parent(q) & ~f;
            if (r != q) ops.amin(&g.labels[p], r | f);
            p = r;
        } else {
            p = q;
        }
    }
}

/// One fewer root in @p root's Number tile.
template <class Ops>
CCL_HD void uncount_root(Ops& ops, const Params& g, std::uint32_t root) {
    ops.aadd(&g.counts[g.fd_number_tile.div(root)], 0xFFFFFFFFu);
}

/// Joins the sets of pixels @p a and @p b: the larger root is hung under the smaller with atomicMin;
/// when that root had meanwhile got a parent, retry from that parent (Playne & Hawick 2018). a + b
/// decreases at every retry, which bounds the loop.
template <class Ops>
CCL_HD void unite(Ops& ops, const Params& g, std::uint32_t a, std::uint32_t b, bool counted) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, 2 * g.pixels + 2, "unite");
        a = find_root(ops, g, a);
        b = find_root(ops, g, b);
        if (a == b) return;
        if (a > b) {
            const std::uint32_t t = a;
            a = b;
            b = t;
        }
        const std::uint32_t old = ops.amin(&g.labels[b], a | g.flag);
        if (old == (b | g.flag)) {
            if (counted) uncount_root(ops, g, b);
            return;
        }
        b = old & ~g.flag;
    }
}

/// Where a thread of a Start/Connect tile sits.
struct TilePos {
    std::uint32_t x0 = 0, y0 = 0;  ///< the tile's first pixel
    std::uint32_t x = 0, y = 0;    ///< this thread's pixel
    std::uint32_t tx = 0, ty = 0;  ///< this thread's pixel within the tile
    std::uint32_t lane = 0;        ///< position in its warp (x - warp's first x)
    std::uint32_t active = 0;      ///< lanes of this warp inside the picture (the mask of its votes)
    bool inside = false;
};

CCL_HD TilePos tile_pos(const Params& g, std::uint64_t tile64, std::uint32_t tid) {
    TilePos t;
    const std::uint32_t tile = std::uint32_t(tile64);  // < 2^32: at most one tile a pixel
    const std::uint32_t tile_y = g.fd_tiles_x.div(tile);
    t.x0 = (tile - tile_y * g.tiles_x) * g.tile_w;
    t.y0 = tile_y * g.tile_h;
    t.ty = g.fd_tile_w.div(tid);
    t.tx = tid - t.ty * g.tile_w;
    const std::uint32_t tx = t.tx, ty = t.ty;
    t.lane = g.fd_warp_w.mod(tx);
    const std::uint64_t x = std::uint64_t(t.x0) + tx, y = std::uint64_t(t.y0) + ty;
    t.inside = x < g.width && y < g.height;
    t.x = std::uint32_t(x);
    t.y = std::uint32_t(y);
    const std::uint64_t wx0 = x - t.lane;
    t.active = wx0 < g.width ? std::uint32_t(g.width - wx0 < g.warp_w ? g.width - wx0 : g.warp_w) : 0;
    return t;
}

/// Which earlier neighbours a pixel joins, from which of them share its value (sX) and whether its
/// left join is made already (by Start: the warp run, or the tile's union-find). See connect_pixel.
struct Joins {
    bool L = false, U = false, UL = false, UR = false;
};

CCL_HD Joins choose_joins(const Params& g, bool sL, bool sU, bool sUL, bool sUR, bool left_done) {
    Joins j;
    const bool skip = g.sw.skip_joins;
    j.L = sL && !left_done;
    if (g.connectivity == 8) {
        if (skip) {
            j.U = !sL && sU;
            j.UL = !sL && !sU && sUL;
            j.UR = sUR && !sU;
        } else {
            j.U = sU;
            j.UL = sUL;
            j.UR = sUR;
        }
    } else {
        j.U = skip ? sU && !(sL && sUL) : sU;
    }
    // A run start whose L, UL and U all have its value is joined to L through UL–U already, so
    // it joins U instead of L. Joining L would chain every row's warp runs one after another (a
    // 33,600-pixel row of paper is a chain of 1,050 roots); joining U hangs each run under the
    // root of the run above, so paper forms short trees (the row-above-first order of cuCIM).
    if (skip && j.L && sU && sUL) {
        j.L = false;
        j.U = true;
        j.UL = false;
        j.UR = false;
    }
    return j;
}

/// Root of tile-local pixel @p p in the block's shared parent array (local index = thread id, raster
/// order within the tile, so the local minimum is also the global one).
template <class Ops>
CCL_HD std::uint32_t find_local(Ops& ops, const Params& g, std::uint32_t p) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, 1025, "find_local");
        const std::uint32_t q = ops.sh_ld(p);
        if (q == p) return p;
        if (g.sw.path_halving) {
            const std::uint32_t r = ops.sh_ld(q);
            if (r != q) ops.sh_amin(p, r);
            p = r;
        } else {
            p = q;
        }
    }
}

/// Root of tile-local pixel @p p in a forest that no thread changes any more: plain loads only.
template <class Ops>
CCL_HD std::uint32_t find_local_plain(Ops& ops, std::uint32_t p) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, 1025, "find_local_plain");
        const std::uint32_t q = ops.sh_ld(p);
        if (q == p) return p;
        p = q;
    }
}

template <class Ops>
CCL_HD void unite_local(Ops& ops, const Params& g, std::uint32_t a, std::uint32_t b) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, 2050, "unite_local");
        a = find_local(ops, g, a);
        b = find_local(ops, g, b);
        if (a == b) return;
        if (a > b) {
            const std::uint32_t t = a;
            a = b;
            b = t;
        }
        const std::uint32_t old = ops.sh_amin(b, a);
        if (old == b) return;
        b = old;
    }
}

/// The old root counting of Start (count_after_connect off): the warp's lane 0 adds the warp's
/// roots to their Number tiles' counters. Called by every lane of the active mask.
template <class Ops>
CCL_HD void count_roots_in_start(Ops& ops, const Params& g, const TilePos& t, std::uint32_t i, bool is_root) {
    const std::uint32_t active_mask = mask_below(t.active);
    std::uint32_t roots = ops.ballot(active_mask, is_root) & active_mask;
    if (t.lane == 0) {
        const std::uint32_t i0 = i;
        while (roots != 0) {
            const std::uint32_t l = ffs32(roots) - 1;
            const std::uint32_t tile = g.fd_number_tile.div(i0 + l);
            const std::uint64_t end = std::uint64_t(tile + 1) * g.number_tile - i0;  // first lane past the tile
            const std::uint32_t in_tile = roots & mask_below(end < 32 ? std::uint32_t(end) : 32u);
            ops.aadd(&g.counts[tile], popc32(in_tile));
            roots &= ~in_tile;
        }
    }
}

/// Start of a whole tile with tile_union_find: every thread of the block calls it (it has
/// barriers). Warp runs seed the block's shared parent array, then each pixel joins its earlier
/// same-valued neighbours inside the tile (the rules of connect_pixel, the tile taken as a picture
/// of its own), then every pixel stores the global index of its tile-component's first pixel.
template <PixelFormat F, class Ops>
CCL_HD void start_tile(Ops& ops, const Params& g, const TilePos& t, std::uint32_t tid) {
    const std::uint32_t tx = t.tx, ty = t.ty;
    const bool sk = g.sw.shared_keys;
    std::uint32_t c = 0, lp = tid;
    bool bg_value = false;
    if (t.inside) {
        c = key_at<F>(g, t.x, t.y);
        bg_value = g.has_background && c == g.background_key;
    }
    if (sk) {
        ops.key_st(tid, c);  // every thread, so the barrier below is reached by all
        ops.sync();
    }
    // The value of tile-local pixel @p k at (x, y): from shared memory, or the picture again.
    auto value_of = [&](std::uint32_t k, std::uint32_t x, std::uint32_t y) {
        return sk ? ops.key_ld(k) : key_at<F>(g, x, y);
    };
    if (t.inside && g.sw.warp_runs) {
        const std::uint32_t active_mask = mask_below(t.active);
        const bool same_left = t.lane > 0 && joins<F>(g, c, value_of(tid - 1, t.x - 1, t.y));
        const std::uint32_t starts = (ops.ballot(active_mask, !same_left) & active_mask) | 1u;
        lp = tid - (t.lane - highest_bit(starts & mask_upto(t.lane)));
    }
    ops.sh_st(tid, lp);
    ops.sync();
    const bool skip_bg = bg_value && g.sw.background_in_start;
    if (t.inside && !skip_bg) {
        const bool hasL = tx > 0, hasU = ty > 0 && !image_top(g, t.y);
        const bool sL = hasL && joins<F>(g, c, value_of(tid - 1, t.x - 1, t.y));
        const bool sU = hasU && joins<F>(g, c, value_of(tid - g.tile_w, t.x, t.y - 1));
        const bool sUL = hasL && hasU && joins<F>(g, c, value_of(tid - g.tile_w - 1, t.x - 1, t.y - 1));
        const bool sUR = g.connectivity == 8 && hasU && tx + 1 < g.tile_w && t.x + 1 < g.width &&
                         joins<F>(g, c, value_of(tid - g.tile_w + 1, t.x + 1, t.y - 1));
        const Joins j = choose_joins(g, sL, sU, sUL, sUR, g.sw.warp_runs && t.lane > 0);
        if (j.L && !g.sw.up_before_left) unite_local(ops, g, tid, tid - 1);
        if (j.U) unite_local(ops, g, tid, tid - g.tile_w);
        if (j.UL) unite_local(ops, g, tid, tid - g.tile_w - 1);
        if (j.UR) unite_local(ops, g, tid, tid - g.tile_w + 1);
        if (j.L && g.sw.up_before_left) unite_local(ops, g, tid, tid - 1);
    }
    ops.sync();
    if (!t.inside) return;
    const std::uint32_t i = index_of(g, t.x, t.y);
    bool is_root = false;
    if (skip_bg) {
        ops.st(&g.labels[i], g.background);
    } else {
        // The forest is final after the barrier, so a plain walk sees a fixed tree.
        const std::uint32_t r = g.sw.plain_flatten ? find_local_plain(ops, tid) : find_local(ops, g, tid);
        const std::uint32_t ry = g.fd_tile_w.div(r);
        const std::uint32_t parent = index_of(g, t.x0 + (r - ry * g.tile_w), t.y0 + ry);
        ops.st(&g.labels[i], parent | g.flag);
        is_root = parent == i && !bg_value;
    }
    if (!g.sw.count_after_connect) count_roots_in_start(ops, g, t, i, is_root);
}

/// Start of a whole tile with tile_union_find, a thread owning rows_per_thread consecutive rows of
/// one column (the tile is one warp wide). The same steps as start_tile: warp runs seed the shared
/// parent array, each pixel joins its earlier same-valued neighbours inside the tile, every pixel
/// stores its tile-component's first pixel. The neighbours' values come from registers (the pixel
/// above is the thread's previous row) and warp shuffles (left; up-left and up-right of the row
/// above); only the first row of a thread reads the row above from shared memory, where each thread
/// left its last row. Every thread of the block calls it (barriers); shuffles and votes are made by
/// the lanes inside the picture, a row at a time.
template <PixelFormat F, class Ops>
CCL_HD void start_tile_rows(Ops& ops, const Params& g, std::uint64_t tile64, std::uint32_t tid) {
    constexpr std::uint32_t kMaxRows = 8;
    const std::uint32_t rows = g.rows_per_thread;
    const std::uint32_t tile = std::uint32_t(tile64);
    const std::uint32_t tile_y = g.fd_tiles_x.div(tile);
    const std::uint32_t x0 = (tile - tile_y * g.tiles_x) * g.tile_w, y0 = tile_y * g.tile_h;
    const std::uint32_t trow = g.fd_warp_w.div(tid), lane = tid - trow * g.warp_w;
    const std::uint32_t active = x0 < g.width ? (g.width - x0 < g.warp_w ? g.width - x0 : g.warp_w) : 0u;
    const std::uint32_t mask = mask_below(active);
    const bool xin = lane < active;
    const std::uint32_t x = x0 + lane;
    const std::uint32_t ty0 = trow * rows;  // first row of this thread within the tile
    // Rows of this thread inside the picture: the same for every lane of the warp.
    const std::uint32_t y_first = y0 + ty0;
    const std::uint32_t rows_in = y_first >= g.height ? 0u : (g.height - y_first < rows ? g.height - y_first : rows);
    const bool left_ok = lane > 0, right_ok = lane + 1 < active;
    const std::uint32_t li = left_ok ? lane - 1 : lane, ri = right_ok ? lane + 1 : lane;

    std::uint32_t c[kMaxRows];
    CCL_UNROLL
    for (std::uint32_t r = 0; r < kMaxRows; ++r)
        c[r] = (r < rows_in && xin) ? key_at<F>(g, x, y_first + r) : 0u;
    std::uint32_t last = 0;  // the last row, for the thread below (a constant index keeps c in registers)
    CCL_UNROLL
    for (std::uint32_t r = 0; r < kMaxRows; ++r)
        if (r + 1 == rows && rows_in == rows) last = c[r];
    ops.key_st(tid, last);
    ops.sync();

    CCL_UNROLL
    for (std::uint32_t r = 0; r < kMaxRows; ++r) {
        if (r >= rows) break;
        const std::uint32_t p = (ty0 + r) * g.tile_w + lane;
        std::uint32_t lp = p;
        if (r < rows_in && xin && g.sw.warp_runs) {
            const std::uint32_t left = ops.shfl(mask, c[r], li);
            const bool same_left = left_ok && left == c[r];
            const std::uint32_t starts = (ops.ballot(mask, !same_left) & mask) | 1u;
            lp = p - (lane - highest_bit(starts & mask_upto(lane)));
        }
        ops.sh_st(p, lp);
    }
    ops.sync();

    CCL_UNROLL
    for (std::uint32_t r = 0; r < kMaxRows; ++r) {
        if (r >= rows_in || !xin) break;
        const std::uint32_t cv = c[r];
        const std::uint32_t p = (ty0 + r) * g.tile_w + lane;
        // Every lane of the mask takes part in the shuffles, whatever it does with them.
        const std::uint32_t l = ops.shfl(mask, cv, li);
        std::uint32_t u = 0, ul = 0, ur = 0;
        if (r > 0) {
            u = c[r - 1];
            ul = ops.shfl(mask, u, li);
            ur = ops.shfl(mask, u, ri);
        } else if (trow > 0) {
            u = ops.key_ld(tid - g.warp_w);
            if (left_ok) ul = ops.key_ld(tid - g.warp_w - 1);
            if (right_ok) ur = ops.key_ld(tid - g.warp_w + 1);
        }
        const bool bg_value = g.has_background && cv == g.background_key;
        if (bg_value && g.sw.background_in_start) continue;
        const bool hasU = ty0 + r > 0 && !image_top(g, y_first + r);
        const bool sL = left_ok && l == cv;
        const bool sU = hasU && u == cv;
        const bool sUL = left_ok && hasU && ul == cv;
        const bool sUR = g.connectivity == 8 && hasU && right_ok && ur == cv;
        const Joins j = choose_joins(g, sL, sU, sUL, sUR, g.sw.warp_runs && lane > 0);
        if (j.L && !g.sw.up_before_left) unite_local(ops, g, p, p - 1);
        if (j.U) unite_local(ops, g, p, p - g.tile_w);
        if (j.UL) unite_local(ops, g, p, p - g.tile_w - 1);
        if (j.UR) unite_local(ops, g, p, p - g.tile_w + 1);
        if (j.L && g.sw.up_before_left) unite_local(ops, g, p, p - 1);
    }
    ops.sync();

    TilePos t;  // what count_roots_in_start reads: the lane and the row's active lanes
    t.lane = lane;
    t.active = active;
    CCL_UNROLL
    for (std::uint32_t r = 0; r < kMaxRows; ++r) {
        if (r >= rows_in || !xin) break;
        const std::uint32_t cv = c[r];
        const std::uint32_t y = y_first + r;
        const std::uint32_t i = index_of(g, x, y);
        const bool bg_value = g.has_background && cv == g.background_key;
        bool is_root = false;
        if (bg_value && g.sw.background_in_start) {
            ops.st(&g.labels[i], g.background);
        } else {
            const std::uint32_t p = (ty0 + r) * g.tile_w + lane;
            const std::uint32_t rt = g.sw.plain_flatten ? find_local_plain(ops, p) : find_local(ops, g, p);
            const std::uint32_t ry = g.fd_tile_w.div(rt);
            const std::uint32_t parent = index_of(g, x0 + (rt - ry * g.tile_w), y0 + ry);
            ops.st(&g.labels[i], parent | g.flag);
            is_root = parent == i && !bg_value;
        }
        if (!g.sw.count_after_connect) count_roots_in_start(ops, g, t, i, is_root);
    }
}

/// Start for one pixel: parent = first pixel of its run within the warp (or itself), background
/// = its final 0; the warp's lane 0 counts the warp's root run starts per Number tile.
template <PixelFormat F, class Ops>
CCL_HD void start_pixel(Ops& ops, const Params& g, const TilePos& t) {
    const std::uint32_t c = key_at<F>(g, t.x, t.y);
    const std::uint32_t i = index_of(g, t.x, t.y);
    const std::uint32_t active_mask = mask_below(t.active);
    const bool bg_value = g.has_background && c == g.background_key;
    std::uint32_t parent = i;
    if (g.sw.warp_runs) {
        const bool same_left = t.lane > 0 && joins<F>(g, c, key_at<F>(g, t.x - 1, t.y));
        // Lanes outside the mask may vote anything; lane 0 always starts a run.
        const std::uint32_t starts = (ops.ballot(active_mask, !same_left) & active_mask) | 1u;
        parent = i - (t.lane - highest_bit(starts & mask_upto(t.lane)));
    }
    if (bg_value && g.sw.background_in_start)
        ops.st(&g.labels[i], g.background);
    else
        ops.st(&g.labels[i], parent | g.flag);
    // Background-valued roots are never numbered, whichever switch marks them.
    if (!g.sw.count_after_connect) count_roots_in_start(ops, g, t, i, parent == i && !bg_value);
}

/// Connect for one pixel. Neighbours before it in raster order (8-conn: up-left, up, up-right,
/// left; 4-conn: up, left):
///     UL U UR
///     L  *
/// Skipping (switch skip_joins): with 8-conn, if L has the pixel's value then L already joined
/// everything of UL and U, and U covers UR when U has the value too, so only UR may be needed
/// (when U differs); if L differs, U covers UL and UR, else UL and UR are each needed. With
/// 4-conn, L and U of the same value are already joined when UL has it too (L–UL–U). The same
/// argument lets a run start with L, UL and U of its value join U instead of L.
/// The UR join of a tile's right column below the tile's top row reaches into the tile on the
/// right, which the fused kernel may not have started: the pixel it reaches (first column of the
/// next tile, one row up) makes it instead, as a join with its down-left neighbour.
template <PixelFormat F, class Ops>
CCL_HD void connect_pixel(Ops& ops, const Params& g, const TilePos& t) {
    const std::uint32_t x = t.x, y = t.y;
    const bool tile_uf = g.sw.tile_union_find;
    // With the tile's union-find, a pixel off the tile's top row and left column has only joins
    // inside the tile (its UR join in the right column is made by the next tile's DL join).
    if (tile_uf && x > t.x0 && y > t.y0) return;
    const std::uint32_t c = key_at<F>(g, x, y);
    const bool bg_value = g.has_background && c == g.background_key;
    if (bg_value && g.sw.background_in_start) return;
    const bool counted = !bg_value && !g.sw.count_after_connect;
    const std::uint32_t i = index_of(g, x, y);
    const bool skip = g.sw.skip_joins;
    const bool sL = x > 0 && joins<F>(g, c, key_at<F>(g, x - 1, y));
    bool sU = false, sUL = false, sUR = false;
    if (y > 0 && !image_top(g, y)) {
        sU = joins<F>(g, c, key_at<F>(g, x, y - 1));
        sUL = x > 0 && joins<F>(g, c, key_at<F>(g, x - 1, y - 1));
        sUR = g.connectivity == 8 && x + 1 < g.width && joins<F>(g, c, key_at<F>(g, x + 1, y - 1));
    }
    // Lanes past 0 share their left's warp run; with the tile's union-find every pixel past the
    // tile's first column is joined to its left by Start (the tile row is one "warp").
    const bool left_done = tile_uf ? x > t.x0 : (g.sw.warp_runs && t.lane > 0);
    Joins j = choose_joins(g, sL, sU, sUL, sUR, left_done);
    if (g.connectivity == 8 && x + 1 == t.x0 + g.tile_w && y > t.y0) j.UR = false;  // made by the pixel it reaches
    // Below the top row only the first column is left (the rest returned above): its U and UR are
    // inside the tile (made by Start), its L, UL and DL reach the tile on the left.
    if (tile_uf && y > t.y0) j.U = j.UR = false;
    // The down-left join made for the tile on the left (see above).
    bool jDL = false;
    if (g.connectivity == 8 && x == t.x0 && x > 0 && std::uint64_t(y) + 1 < g.height &&
        std::uint64_t(y) + 1 < std::uint64_t(t.y0) + g.tile_h && !image_top(g, y + 1))
        jDL = joins<F>(g, c, key_at<F>(g, x - 1, y + 1)) && (!skip || !joins<F>(g, c, key_at<F>(g, x - 1, y)));

    if (j.L && !g.sw.up_before_left) unite(ops, g, i, i - 1, counted);
    if (j.U) unite(ops, g, i, i - g.width, counted);
    if (j.UL) unite(ops, g, i, i - g.width - 1, counted);
    if (j.UR) unite(ops, g, i, i - g.width + 1, counted);
    if (j.L && g.sw.up_before_left) unite(ops, g, i, i - 1, counted);
    if (jDL) unite(ops, g, i, i + g.width - 1, counted);
}

/// Connect with tile_union_find, unfused: one thread per pixel of the tiles' top rows and left
/// columns (tile_w + tile_h − 1 a tile), @p threads a block; no votes, so warps may span tiles.
template <PixelFormat F, class Ops>
CCL_HD void connect_border_program(Ops& ops, const Params& g, std::uint32_t tid, std::uint64_t block,
                                   std::uint32_t threads) {
    const std::uint32_t per = g.tile_w + g.tile_h - 1;
    const std::uint64_t k = block * threads + tid;
    std::uint64_t tile;
    std::uint32_t b;
    if (k <= 0xFFFFFFFFu) {
        tile = g.fd_border.div(std::uint32_t(k));
        b = std::uint32_t(k) - std::uint32_t(tile) * per;
    } else {
        tile = k / per;
        b = std::uint32_t(k % per);
    }
    if (tile >= g.tiles) return;
    const std::uint32_t tid_in_tile = b < g.tile_w ? b : (b - g.tile_w + 1) * g.tile_w;
    const TilePos t = tile_pos(g, tile, tid_in_tile);
    if (t.inside) connect_pixel<F>(ops, g, t);
}

/// What a Start/Connect block does. mode 0: the fused kernel, tiles in ticket order (raster order
/// of tiles); a tile publishes its Start, then waits for the Start of the four tiles its joins
/// reach (left, up-left, up, up-right: all earlier tickets, held by running blocks, so the wait
/// ends). mode 1: Start only; mode 2: Connect only (tile = @p block). (With rows_per_thread > 1
/// Start runs start_tile_rows, a kernel of its own.)
template <PixelFormat F, class Ops>
CCL_HD void start_connect_program(Ops& ops, const Params& g, std::uint32_t tid, std::uint64_t block, int mode) {
    std::uint64_t tile = block;
    if (mode == 0) tile = ops.block_ticket(&g.tickets[0], tid);
    const TilePos t = tile_pos(g, tile, tid);
    if (mode != 2) {
        if (g.sw.tile_union_find)
            start_tile<F>(ops, g, t, tid);
        else if (t.inside)
            start_pixel<F>(ops, g, t);
    }
    if (mode == 0) {
        ops.fence();
        ops.sync();
        if (tid == 0) {
            ops.st_release(&g.done[tile], 1);
            const std::uint64_t ty = g.fd_tiles_x.div(std::uint32_t(tile)), tx = tile - ty * g.tiles_x;
            std::uint64_t wait[4];
            int n = 0;
            if (tx > 0) wait[n++] = tile - 1;
            if (ty > 0) {
                if (tx > 0) wait[n++] = tile - g.tiles_x - 1;
                wait[n++] = tile - g.tiles_x;
                if (tx + 1 < g.tiles_x) wait[n++] = tile - g.tiles_x + 1;
            }
            for (int k = 0; k < n; ++k)
                for (std::uint64_t it = 0; ops.ld_acquire(&g.done[wait[k]]) == 0; ++it) {
                    ops.bound(it, std::uint64_t(1) << 40, "tile wait");
                    ops.pause();
                }
        }
        ops.sync();
    }
    if (mode != 1 && t.inside) connect_pixel<F>(ops, g, t);
}

/// Count (count_after_connect): the roots of Number tile @p tile, summed over the block and stored
/// with one plain store; no atomics. A root holds its own index (with the flag on the flag path);
/// background pixels hold a value that is never an index. Runs after Connect, so roots are final.
template <PixelFormat F, class Ops>
CCL_HD void count_program(Ops& ops, const Params& g, std::uint32_t tid, std::uint64_t tile) {
    constexpr std::uint32_t kMaxPpt = 4;
    const std::uint32_t ppt = g.number_ppt;
    const std::uint64_t base = tile * g.number_tile + std::uint64_t(tid) * ppt;
    const std::uint32_t n = base >= g.pixels ? 0u : std::uint32_t(g.pixels - base < ppt ? g.pixels - base : ppt);
    std::uint32_t v[kMaxPpt] = {0, 0, 0, 0};
    if (n) ops.ld_own(&g.labels[base], n, v);
    std::uint32_t roots = 0;
    for (std::uint32_t j = 0; j < n; ++j) {
        const std::uint32_t i = std::uint32_t(base + j);
        if (v[j] != (i | g.flag)) continue;
        const bool bg_root = g.has_background && !g.sw.background_in_start &&
                             key_at<F>(g, g.fd_width.mod(i), g.fd_width.div(i)) == g.background_key;
        roots += bg_root ? 0u : 1u;
    }
    std::uint32_t total = 0;
    ops.block_exclusive_sum(roots, total);
    if (tid == 0) ops.st(&g.counts[tile], total);
}

/// Batches: the roots before global pixel @p pos (all images' roots are ranked together in raster
/// order of the stack): the scanned count of pos's Number tile plus that tile's roots before pos.
/// Between the scan and Number, when roots are final and not yet numbered.
template <PixelFormat F, class Ops>
CCL_HD std::uint32_t roots_before(Ops& ops, const Params& g, std::uint64_t pos) {
    const std::uint64_t tile = pos / g.number_tile;  // the end of the stack is tile number_tiles
    std::uint32_t n = g.counts[tile];
    for (std::uint64_t i64 = tile * g.number_tile; i64 < pos; ++i64) {
        const std::uint32_t i = std::uint32_t(i64);
        if (ops.ld(&g.labels[i]) != (i | g.flag)) continue;
        const bool bg_root = g.has_background && !g.sw.background_in_start &&
                             key_at<F>(g, g.fd_width.mod(i), g.fd_width.div(i)) == g.background_key;
        n += bg_root ? 0u : 1u;
    }
    return n;
}

/// Batch Base, one thread an image: image_base[b] (what Number subtracts) and the image's region
/// count N_b = roots before the next image − roots before this one.
template <PixelFormat F, class Ops>
CCL_HD void batch_base_program(Ops& ops, const Params& g, std::uint32_t* image_base, std::uint32_t* image_counts,
                               std::uint64_t images, std::uint64_t b) {
    if (b >= images) return;
    const std::uint32_t before = roots_before<F>(ops, g, b * g.image_pixels);
    const std::uint32_t upto = roots_before<F>(ops, g, (b + 1) * g.image_pixels);
    ops.st(&image_base[b], before);
    ops.st(&image_counts[b], upto - before);
}

inline constexpr std::uint32_t kNoParent = 0xFFFFFFFFu;  // never a parent on the flag path (< 2^31)

/// Writes @p label over every flagged parent on the chain from @p p (compress_walks): they are
/// all of that region, so any later walk through them ends there. A label is below every flagged
/// value, so this only ever lowers a word, and whoever else writes it writes the same label.
template <class Ops>
CCL_HD void compress_path(Ops& ops, const Params& g, std::uint32_t p, std::uint32_t label) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, g.pixels + 1, "compress walk");
        const std::uint32_t w = ops.ld_weak(&g.labels[p]);
        if ((w & kFlag) == 0) return;
        ops.st(&g.labels[p], label);
        p = w & ~kFlag;
    }
}

/// The label of the region of parent @p p on the flag path: the first unflagged value up its
/// chain. Weak loads (cached_loads) may see a stale flagged parent (still an ancestor) but never
/// a label that is not final; a root not numbered yet is re-read from L2 from then on.
template <class Ops>
CCL_HD std::uint32_t walk_to_label(Ops& ops, const Params& g, std::uint32_t p) {
    const std::uint32_t start = p;
    bool coherent = !g.sw.cached_loads;
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, std::uint64_t(1) << 40, "number walk");
        const std::uint32_t w = coherent ? ops.ld(&g.labels[p]) : ops.ld_weak(&g.labels[p]);
        if ((w & kFlag) == 0) {
            if (g.sw.compress_walks) compress_path(ops, g, start, w);
            return w;
        }
        const std::uint32_t q = w & ~kFlag;
        if (q == p) {
            coherent = true;
            ops.pause();  // a root of an earlier tile, not numbered yet
        } else {
            p = q;
        }
    }
}

/// Number on the flag path, one block a Number tile taken in ticket order (so every earlier tile is
/// held by a running block). Each thread owns number_ppt consecutive pixels (one 16-byte load and
/// store when aligned). Roots get offset + rank + 1; every other pixel walks up until it meets an
/// unflagged value, which is its region's label. A walk can only wait for a root of an earlier
/// tile, which that tile writes before it waits for anything.
template <PixelFormat F, class Ops>
CCL_HD void number_program(Ops& ops, const Params& g, std::uint32_t tid) {
    constexpr std::uint32_t kMaxPpt = 4;
    const std::uint32_t ppt = g.number_ppt;
    const std::uint64_t tile = ops.block_ticket(&g.tickets[1], tid);
    const std::uint64_t base = tile * g.number_tile + std::uint64_t(tid) * ppt;
    const std::uint32_t n = base >= g.pixels ? 0u : std::uint32_t(g.pixels - base < ppt ? g.pixels - base : ppt);
    std::uint32_t v[kMaxPpt] = {0, 0, 0, 0}, out[kMaxPpt] = {0, 0, 0, 0};
    if (n) ops.ld_own(&g.labels[base], n, v);
    std::uint32_t root_bits = 0, numbered = 0;
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kMaxPpt; ++j) {
        const std::uint32_t i = std::uint32_t(base + j);
        out[j] = v[j];
        if (j >= n || v[j] != (i | kFlag)) continue;
        root_bits |= 1u << j;
        // With background_in_start off the background's region is built like any other; its root
        // takes label 0 and everything that walks to it follows.
        const bool bg_root = g.has_background && !g.sw.background_in_start &&
                             key_at<F>(g, g.fd_width.mod(i), g.fd_width.div(i)) == g.background_key;
        if (bg_root) {
            out[j] = 0;
            ops.st(&g.labels[i], 0);
        } else {
            ++numbered;
        }
    }
    std::uint32_t total = 0;
    std::uint32_t rank = ops.block_exclusive_sum(numbered, total);
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kMaxPpt; ++j)
        if ((root_bits >> j & 1u) && out[j] != 0) {
            out[j] = g.counts[tile] + (rank++) + 1;
            if (g.image_base) out[j] -= g.image_base[g.fd_image_pixels.div(std::uint32_t(base + j))];
            ops.st(&g.labels[base + j], out[j]);
        }
    ops.check_tile_total(tid, total, g.counts[tile + 1] - g.counts[tile]);
    ops.sync();
    bool changed = root_bits != 0;
    // Pixels still to resolve: flagged, not a root (background already holds its 0).
    std::uint32_t pending = 0;
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kMaxPpt; ++j)
        if (j < n && (v[j] & kFlag) && !(root_bits >> j & 1u)) pending |= 1u << j;
    changed = changed || pending != 0;
    auto next_parent = [&]() {  // of the first pending pixel
        std::uint32_t p = kNoParent;
        CCL_UNROLL
        for (std::uint32_t j = kMaxPpt; j-- > 0;)
            if (pending >> j & 1u) p = v[j] & ~kFlag;
        return p;
    };
    auto settle = [&](std::uint32_t p, std::uint32_t label) {
        CCL_UNROLL
        for (std::uint32_t j = 0; j < kMaxPpt; ++j)
            if ((pending >> j & 1u) && (v[j] & ~kFlag) == p) {
                out[j] = label;
                pending &= ~(1u << j);
            }
    };
    while (pending) {
        const std::uint32_t p = next_parent();
        settle(p, walk_to_label(ops, g, p));
    }
    // Background pixels already hold 0: a thread of only background writes nothing.
    if (changed) ops.st_own(&g.labels[base], n, out);
}

/// Collapse on the wide path: every pixel points at its root; roots set their bit in the mask.
template <PixelFormat F, class Ops>
CCL_HD void collapse_wide_pixel(Ops& ops, const Params& g, std::uint64_t i64) {
    if (i64 >= g.pixels) return;
    const std::uint32_t i = std::uint32_t(i64);
    const std::uint32_t v = ops.ld(&g.labels[i]);
    if (v == g.background && g.sw.background_in_start && g.has_background) return;
    // Coherent loads here whatever cached_loads says: the root found is stored as the pixel's final
    // root, so it must not be a stale one.
    Params gc = g;
    gc.sw.cached_loads = false;
    const std::uint32_t r = find_root(ops, gc, v & ~g.flag);
    if (r == i) {
        const bool bg_root = g.has_background && !g.sw.background_in_start &&
                             key_at<F>(g, g.fd_width.mod(i), g.fd_width.div(i)) == g.background_key;
        if (!bg_root) ops.aor(&g.mask[i / 32], 1u << (i % 32));
    } else
        ops.amin(&g.labels[i], r | g.flag);
}

template <PixelFormat F, class Ops>
CCL_HD void collapse_wide_program(Ops& ops, const Params& g, std::uint32_t tid, std::uint64_t block) {
    const std::uint32_t threads = g.number_tile / g.number_ppt;
    for (std::uint32_t j = 0; j < g.number_ppt; ++j)
        collapse_wide_pixel<F>(ops, g, block * g.number_tile + tid + std::uint64_t(j) * threads);
}

/// Number on the wide path: a root's rank is the number of root bits before it in its tile.
template <PixelFormat F, class Ops>
CCL_HD void number_wide_pixel(Ops& ops, const Params& g, std::uint64_t i64) {
    if (i64 >= g.pixels) return;
    const std::uint32_t i = std::uint32_t(i64);
    const std::uint32_t v = ops.ld(&g.labels[i]);
    if (v == g.background && g.sw.background_in_start && g.has_background) {
        ops.st(&g.labels[i], 0);
        return;
    }
    const std::uint32_t r = v & ~g.flag;
    if (g.has_background && !g.sw.background_in_start &&
        key_at<F>(g, g.fd_width.mod(r), g.fd_width.div(r)) == g.background_key) {
        ops.st(&g.labels[i], 0);
        return;
    }
    const std::uint64_t tile = g.fd_number_tile.div(r);
    const std::uint64_t first = tile * g.number_tile;
    std::uint32_t rank = 0;
    for (std::uint64_t w = first / 32; w <= std::uint64_t(r) / 32; ++w) {
        std::uint32_t bits = ops.ld(&g.mask[w]);
        const std::uint64_t base = w * 32;
        if (base < first) bits &= ~mask_below(std::uint32_t(first - base));
        if (base + 32 > r) bits &= mask_below(std::uint32_t(r - base));
        rank += popc32(bits);
    }
    ops.st(&g.labels[i], g.counts[tile] + rank + 1);
}

template <PixelFormat F, class Ops>
CCL_HD void number_wide_program(Ops& ops, const Params& g, std::uint32_t tid, std::uint64_t block) {
    const std::uint32_t threads = g.number_tile / g.number_ppt;
    for (std::uint32_t j = 0; j < g.number_ppt; ++j)
        number_wide_pixel<F>(ops, g, block * g.number_tile + tid + std::uint64_t(j) * threads);
}

}  // namespace cclabel::cuda::detail
