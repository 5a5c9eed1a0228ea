#pragma once
// The segment pipeline of the CUDA labeller (switch segment_runs): one thread a row segment of
// seg_w ≤ 32 pixels, runs found as bit masks, union-find over runs instead of pixels. Written once
// for the GPU kernels (src/cuda/label_cuda.cu) and the CPU executor (tests/emu), like bodies.cuh.
//
// Why: the pixel pipeline spends 150–200 instructions a pixel (ncu: instruction-bound, DRAM under
// 20 % busy). Here a thread compares its 32 pixels with their left and upper neighbours once, as
// whole words, and everything after works on runs: a construction sheet has about one run per 30
// pixels, so the union-find, the root counting and the numbering touch one word in thirty.
//
//   Start    each segment: which pixels start a run (a "node": the first pixel of a same-valued
//            run inside the segment, or the segment's first pixel), which are background, and
//            which pixels of the row above each run must join (one a touching upper run). A node's
//            word in the label buffer is its parent, set to itself; nothing else is written.
//   Carry    (seg_carry) a run going on from the left segment gets no node at the segment's first
//            pixel (but at every seg_span-th segment of a row): such a "carried" segment's first
//            pixels belong to the node of the left segment's last pixel, stored in C. With
//            seg_warp_carry Start's warps are spans and find it with a ballot and a shuffle;
//            otherwise the Carry kernel walks left over the node masks.
//   Connect  each segment joins its nodes to the upper nodes found in Start, and its first node to
//            the left segment's last when the run goes on across the seam and no upper run joins
//            them already. Union by atomicMin with retry, path halving (bodies.cuh's unite), so a
//            region's root is its first pixel in raster order.
//   Flatten  every node points at its root; each segment records its roots as a bit mask and
//            their count. CUB scans the counts: the numbers of the roots before each segment.
//   Number   a root's number is the roots before its segment + the root bits before it + 1; each
//            segment writes all its pixels' labels once (background 0). With seg_quad_number,
//            Resolve first writes each node's label into its word, and Number takes number_px
//            consecutive pixels a thread (coalesced stores).
// Extra memory: six words a segment (S, G, Zin, Zl, Zr, C below; Flatten reuses Zin and Zl for the
// root bits and counts), 0.75 bytes a pixel. Pixel indices stay below 2^32 (validation), so no
// flag bit is needed and the same path serves every size.
//
// Tolerance (Options::tolerance > 0, Switches::tolerance_segments): two neighbours join when their
// keys are close in every channel (close_keys.cuh) and neither is background. Start and Connect
// have a second instantiation (template parameter T; SegStage::StartTolerance,
// StartHalvesTolerance, ConnectTolerance), so the exact kernels' code is unchanged; Carry,
// Flatten, the scan, Resolve, CarryLabels and Number are the same kernels (they see only S, G, C).
//   Runs     a run is a maximal chain of consecutive close pixels (each step a join, so one
//            region); a background pixel is a run of its own and no node. S, G, C and carrying
//            mean what they mean for exact runs: pixel 0 is carried when it is close to the left
//            segment's last pixel, both foreground (seam closeness, not equal values).
//   Up       the upper pixels close to some pixel of a run R (8-conn: up-left, up, up-right of
//            each of its pixels; 4-conn: up), both foreground, form a set C_R over the upper
//            positions −1..n; R must join every upper run (maximal close chain of the row above)
//            that meets C_R. Equal values no longer mean "the same upper run", so Zin, Zl and Zr
//            are joins of pixel k's run with upper pixel k, k − 1 and k + 1 (any pixel of the run,
//            not only its first or last), thinned by seg_close_joins: for each upper position q
//            of C_R one witness pixel (the run's leftmost next to q), and only where q − 1 is not
//            in C_R or starts an upper run (positions −1 and n are compared with their neighbours
//            q = 0 and n − 1 across the upper seams; −1 always counts as a start). Connect takes
//            the node of the witness's run (not p.row + k: the witness need not start it) and the
//            up-right target past the segment's end through the upper-right segment's S and C
//            (a carried pixel there is no node, where an equal-valued one could not be).
// Shortcuts that assume joining is an equivalence of values, for tolerance:
//   - skip_joins (left join skipped when the up-left pixel joins both): off. L ~ UL and UL ~ C do
//     not give L ~ C through one upper run unless both joins are made, and the "stretch" logic
//     above makes them only per upper run; a left join is one union a span start.
//   - "the pixel left of a run start has another value, so the up-right pixel past the segment
//     starts a node" (Connect's up + p.n): off, replaced by the upper-right segment's node lookup.
//   - Zl only at run starts / Zr only at run ends and only without an up join: off (a middle pixel
//     can be close to an upper pixel that its neighbours are not close to).
//   - seg_uniform_warps (raw words equal over the segment and the row above): kept, made
//     correct: equal values are close (|a − a| = 0 ≤ tolerance), so the masks inside the segment
//     are all-ones as for exact, and the three pixels beside it are compared by closeness, with
//     the background tested on each pixel (a uniform background segment joins nothing).
//   - seg_warp_carry, seg_carry, seg_carry_labels, seg_start_zeroes, seg_quad_number and
//     seg_number_transpose rely on S, G and C only: unchanged.
//   - seg_start_halves: the tolerance Start holds no row of keys either way; with the switch a
//     full aligned segment is compared 8 pixels at a time (seg_masks_close_parts), without it
//     every segment pixel by pixel (seg_masks_close_pixels). Its kernel keeps the 64-register
//     cap for Gray8, Gray16 and RGB8 (label_cuda.cu).
// Checked in the emulator (tests/emu/test_emu_tolerance_segments.cpp) against the CPU tolerance
// labeller and the flood fill, and seg_close_joins against a brute force over random masks.
#include <cstdint>
#include <cstring>

#include "cclabel/detail/hd.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "cuda/kernels/bits.cuh"
#include "cuda/kernels/bodies.cuh"

namespace cclabel::cuda::detail {

inline constexpr std::uint32_t kMaxSeg = 32;

/// A loop the GPU compiler must not unroll (seg_masks_close_parts).
#if defined(__CUDACC__)
#define CCL_SEG_ROLLED _Pragma("unroll 1")
#else
#define CCL_SEG_ROLLED
#endif
/// carry_labels: C of a segment that is not carried (no pixel index: indices stay below 2^32 − 1).
inline constexpr std::uint32_t kNotCarried = 0xFFFFFFFFu;

/// Where segment @p s lies: its row, first column, pixel count and first pixel's index.
struct SegPos {
    std::uint32_t y = 0, x0 = 0, n = 0, row = 0;
};

CCL_HD SegPos seg_pos(const Params& g, std::uint32_t s) {
    SegPos p;
    p.y = g.fd_segs_x.div(s);
    p.x0 = (s - p.y * g.segs_x) * g.seg_w;
    p.n = g.width - p.x0 < g.seg_w ? g.width - p.x0 : g.seg_w;
    p.row = std::uint32_t(std::uint64_t(p.y) * g.width + p.x0);  // < 2^32 by validation
    return p;
}

/// Calls fn(s, r) for the segments of thread @p t64's strip, top to bottom: seg_rows segments of one
/// column of segments, so that a thread's joins with the row above meet a node it has just hung
/// under its root (short trees: a paper run hangs straight under the run above's root, where one
/// thread a segment, all at once, chains a column of paper runs one under the next).
template <class Fn>
CCL_HD void for_strip(const Params& g, std::uint64_t t64, Fn&& fn) {
    if (t64 >= g.seg_strips) return;
    const std::uint32_t t = std::uint32_t(t64);
    const std::uint32_t sy = g.fd_segs_x.div(t), sx = t - sy * g.segs_x;
    const std::uint64_t y0 = std::uint64_t(sy) * g.seg_rows;
    for (std::uint32_t r = 0; r < g.seg_rows && y0 + r < g.height; ++r)
        fn(std::uint32_t((y0 + r) * g.segs_x + sx), r);
}

template <PixelFormat F, bool T, class Ops>
CCL_HD void seg_connect_one(Ops& ops, const Params& g, std::uint32_t s);
template <PixelFormat F, class Ops>
CCL_HD void seg_flatten_one(Ops& ops, const Params& g, std::uint32_t s);
template <PixelFormat F, class Ops>
CCL_HD void seg_number_one(Ops& ops, const Params& g, std::uint32_t s);

/// 16 bytes from @p p (16-byte aligned) as four little-endian words.
CCL_HD void load16(const std::uint8_t* p, std::uint32_t* w) {
#if defined(__CUDA_ARCH__)
    const uint4 q = __ldg(reinterpret_cast<const uint4*>(p));
    w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
#else
    std::memcpy(w, p, 16);
#endif
}

/// Key of pixel @p k of a full segment held as words @p w (k and the format fixed at compile time
/// once unrolled): the same packing as PixelTraits<F>::key.
template <PixelFormat F>
CCL_HD std::uint32_t key_from_words(const std::uint32_t* w, std::uint32_t k) {
    constexpr std::uint32_t B = std::uint32_t(cclabel::detail::PixelTraits<F>::kBytes);
    const std::uint32_t o = k * B, i = o / 4, sh = (o % 4) * 8;
    std::uint32_t v = w[i] >> sh;
    if (sh + 8 * B > 32) v |= w[i + 1] << (32 - sh);
    if constexpr (F == PixelFormat::Binary8)
        return (v & 0xFFu) != 0 ? 1u : 0u;
    else if constexpr (B == 4)
        return v;
    else
        return v & ((1u << (8 * B % 32)) - 1u);
}

/// The keys of the kMaxSeg pixels at @p p (16-byte aligned), from 16-byte loads: the whole
/// segments of load_seg_keys and of the volume runs' load_keys (volume_runs.cuh).
template <PixelFormat F>
CCL_HD void load_whole_seg_keys(const std::uint8_t* p, std::uint32_t* keys) {
    constexpr std::uint32_t B = std::uint32_t(cclabel::detail::PixelTraits<F>::kBytes);
    constexpr std::uint32_t kWords = kMaxSeg * B / 4;
    std::uint32_t w[kWords + 1];
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kWords / 4; ++j) load16(p + 16 * j, w + 4 * j);
    w[kWords] = 0;
    CCL_UNROLL
    for (std::uint32_t k = 0; k < kMaxSeg; ++k) keys[k] = key_from_words<F>(w, k);
}

/// The keys of the @p n pixels from (x0, y); entries from n on are 0. A full, 16-byte-aligned
/// segment is read with 16-byte loads, anything else pixel by pixel (any stride, any alignment).
template <PixelFormat F>
CCL_HD void load_seg_keys(const Params& g, std::uint32_t x0, std::uint32_t y, std::uint32_t n, std::uint32_t* keys) {
    constexpr std::uint32_t B = std::uint32_t(cclabel::detail::PixelTraits<F>::kBytes);
    const std::uint8_t* p = g.img + std::int64_t(y) * g.stride + std::int64_t(x0) * B;
    if (n == kMaxSeg && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0) {
        load_whole_seg_keys<F>(p, keys);
        return;
    }
    CCL_UNROLL
    for (std::uint32_t k = 0; k < kMaxSeg; ++k) keys[k] = k < n ? key_at<F>(g, x0 + k, y) : 0u;
}

/// seg_uniform_warps: whether the full segment at (x0, y) and the pixels above it all hold one value,
/// its key then in @p v. Both rows must be 16-byte aligned (else false: the caller compares pixel by
/// pixel). Compared as raw words, never as keys: a row whose bytes repeat every 4 pixels (B words) and
/// whose first 4 pixels have one key has one key throughout, and the row above is the same bytes.
template <PixelFormat F>
CCL_HD bool seg_uniform_with_above(const Params& g, std::uint32_t x0, std::uint32_t y, std::uint32_t& v) {
    constexpr std::uint32_t B = std::uint32_t(cclabel::detail::PixelTraits<F>::kBytes);
    constexpr std::uint32_t kWords = kMaxSeg * B / 4;
    const std::uint8_t* p = g.img + std::int64_t(y) * g.stride + std::int64_t(x0) * B;
    const std::uint8_t* q = p - g.stride;
    if (((reinterpret_cast<std::uintptr_t>(p) | reinterpret_cast<std::uintptr_t>(q)) & 15u) != 0) return false;
    std::uint32_t c[kWords], a[kWords];
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kWords / 4; ++j) {
        load16(p + 16 * j, c + 4 * j);
        load16(q + 16 * j, a + 4 * j);
    }
    bool same = true;
    CCL_UNROLL
    for (std::uint32_t i = 0; i < kWords; ++i) same &= c[i] == a[i] && (i + B >= kWords || c[i] == c[i + B]);
    v = key_from_words<F>(c, 0);
    CCL_UNROLL
    for (std::uint32_t k = 1; k < 4; ++k) same &= key_from_words<F>(c, k) == v;
    return same;
}

/// The comparison masks of Start (bit k: pixel k of the segment) for one segment.
struct SegMasks {
    std::uint32_t E = 0, BG = 0, U = 0, UL = 0, UR = 0, c0 = 0;  // c0: the key of pixel 0
};

/// Tolerance (T): SegMasks' masks say "close keys" instead of "equal keys", with no background
/// test (seg_close_joins applies BG and ABG), plus the row above's own masks, which exact runs do
/// not need (a struct of its own, so that the exact kernels' code stays as it was):
///   UE     upper pixel k close to upper pixel k − 1 (k = 0: the upper-left pixel, when there is one);
///   ABG    upper pixel k background;
///   ue_n   the upper-right pixel (past the segment's end) close to upper pixel n − 1;
///   al_fg, ar_fg  the upper-left / upper-right pixel exists and is not background.
struct SegCloseMasks : SegMasks {
    std::uint32_t UE = 0, ABG = 0;
    bool ue_n = false, al_fg = false, ar_fg = false;
};

/// Whether @p k is the background's key.
CCL_HD bool seg_is_bg(const Params& g, std::uint32_t k) { return g.has_background && k == g.background_key; }

/// 8 bytes from @p p (8-byte aligned) as two little-endian words.
CCL_HD void load8(const std::uint8_t* p, std::uint32_t* w) {
#if defined(__CUDA_ARCH__)
    const uint2 q = __ldg(reinterpret_cast<const uint2*>(p));
    w[0] = q.x, w[1] = q.y;
#else
    std::memcpy(w, p, 8);
#endif
}

/// Switches::seg_start_halves: the masks of a full segment of 32 whose row and the row above start
/// on 16 bytes (below the image's top row), compared 16 pixels at a time, so that only 16 keys of
/// each row are held at once (the whole segment's 64 keys held Start to ~104 registers, a quarter
/// of the multiprocessor's threads). The key of pixel 15's upper-right neighbour comes from the
/// second half's first load.
template <PixelFormat F>
CCL_HD SegMasks seg_masks_halves(const Params& g, std::uint32_t x0, std::uint32_t y) {
    constexpr std::uint32_t B = std::uint32_t(cclabel::detail::PixelTraits<F>::kBytes);
    constexpr std::uint32_t kHalf = kMaxSeg / 2, kWords = kHalf * B / 4;
    static_assert(kWords % 4 == 0, "a half segment is whole 16-byte loads");
    const std::uint8_t* p = g.img + std::int64_t(y) * g.stride + std::int64_t(x0) * B;
    const std::uint8_t* q = p - g.stride;
    const bool has_l = x0 > 0, has_r = x0 + kMaxSeg < g.width;
    SegMasks m;
    std::uint32_t last_c = has_l ? key_at<F>(g, x0 - 1, y) : 0u;
    std::uint32_t last_a = has_l ? key_at<F>(g, x0 - 1, y - 1) : 0u;
    std::uint32_t pending = 0;  // the key of pixel 15, whose upper-right pixel is the second half's first
    CCL_UNROLL
    for (std::uint32_t h = 0; h < 2; ++h) {
        std::uint32_t cw[kWords + 1], aw[kWords + 1];
        CCL_UNROLL
        for (std::uint32_t j = 0; j < kWords / 4; ++j) {
            load16(p + h * kHalf * B + 16 * j, cw + 4 * j);
            load16(q + h * kHalf * B + 16 * j, aw + 4 * j);
        }
        cw[kWords] = aw[kWords] = 0;
        CCL_UNROLL
        for (std::uint32_t k = 0; k < kHalf; ++k) {
            const std::uint32_t K = h * kHalf + k, bit = 1u << K;
            const std::uint32_t ck = key_from_words<F>(cw, k), ak = key_from_words<F>(aw, k);
            if (K == 0) m.c0 = ck;
            if (K > 0 && ck == last_c) m.E |= bit;
            if (g.has_background && ck == g.background_key) m.BG |= bit;
            if (ak == ck) m.U |= bit;
            if ((K > 0 || has_l) && last_a == ck) m.UL |= bit;
            if (h == 1 && k == 0 && ak == pending) m.UR |= 1u << (kHalf - 1);
            if (k + 1 < kHalf) {
                if (key_from_words<F>(aw, k + 1 < kHalf ? k + 1 : k) == ck) m.UR |= bit;
            } else if (h == 0) {
                pending = ck;
            } else if (has_r && key_at<F>(g, x0 + kMaxSeg, y - 1) == ck) {
                m.UR |= bit;
            }
            last_c = ck;
            last_a = ak;
        }
    }
    return m;
}

/// seg_start_halves with a tolerance (T): seg_masks_halves' masks and SegMasks' T masks, 8 pixels
/// at a time in a loop that is not unrolled (8-byte loads where 8 pixels are not whole 16 bytes).
/// Unrolled, or 16 pixels at a time, the compiler hoisted the later parts' loads above the
/// closeness tests and spilled (12 to 406 bytes at 64 registers, 72 to 160 at 128).
template <PixelFormat F>
CCL_HD SegCloseMasks seg_masks_close_parts(const Params& g, std::uint32_t x0, std::uint32_t y) {
    constexpr std::uint32_t B = std::uint32_t(cclabel::detail::PixelTraits<F>::kBytes);
    constexpr std::uint32_t kPart = 8, kParts = kMaxSeg / kPart, kWords = kPart * B / 4;
    static_assert(kPart * B % 8 == 0, "a part is whole 8-byte loads");
    const std::uint8_t* p = g.img + std::int64_t(y) * g.stride + std::int64_t(x0) * B;
    const std::uint8_t* q = p - g.stride;
    const bool has_l = x0 > 0, has_r = x0 + kMaxSeg < g.width;
    SegCloseMasks m;
    std::uint32_t last_c = has_l ? key_at<F>(g, x0 - 1, y) : 0u;
    std::uint32_t last_a = has_l ? key_at<F>(g, x0 - 1, y - 1) : 0u;
    m.al_fg = has_l && !seg_is_bg(g, last_a);
    std::uint32_t pending = 0;  // the key of the previous part's last pixel
    CCL_SEG_ROLLED
    for (std::uint32_t h = 0; h < kParts; ++h) {
        std::uint32_t cw[kWords + 1], aw[kWords + 1];
        if constexpr (kPart * B % 16 == 0) {
            CCL_UNROLL
            for (std::uint32_t j = 0; j < kWords / 4; ++j) {
                load16(p + h * kPart * B + 16 * j, cw + 4 * j);
                load16(q + h * kPart * B + 16 * j, aw + 4 * j);
            }
        } else {
            CCL_UNROLL
            for (std::uint32_t j = 0; j < kWords / 2; ++j) {
                load8(p + h * kPart * B + 8 * j, cw + 2 * j);
                load8(q + h * kPart * B + 8 * j, aw + 2 * j);
            }
        }
        cw[kWords] = aw[kWords] = 0;
        std::uint32_t E = 0, BG = 0, U = 0, UL = 0, UR = 0, UE = 0, ABG = 0;  // bit k: pixel h · kPart + k
        CCL_UNROLL
        for (std::uint32_t k = 0; k < kPart; ++k) {
            const std::uint32_t bit = 1u << k;
            const std::uint32_t ck = key_from_words<F>(cw, k), ak = key_from_words<F>(aw, k);
            const bool l_ok = k > 0 || h > 0 || has_l;
            if (k == 0 && h == 0) m.c0 = ck;
            if ((k > 0 || h > 0) && keys_close<F>(ck, last_c, g.tolerance)) E |= bit;
            if (seg_is_bg(g, ck)) BG |= bit;
            if (keys_close<F>(ak, ck, g.tolerance)) U |= bit;
            if (l_ok && keys_close<F>(last_a, ck, g.tolerance)) UL |= bit;
            if (l_ok && keys_close<F>(ak, last_a, g.tolerance)) UE |= bit;
            if (seg_is_bg(g, ak)) ABG |= bit;
            if (k == 0 && h > 0 && keys_close<F>(ak, pending, g.tolerance)) m.UR |= 1u << (h * kPart - 1);
            if (k + 1 < kPart) {
                if (keys_close<F>(key_from_words<F>(aw, k + 1 < kPart ? k + 1 : k), ck, g.tolerance)) UR |= bit;
            } else {
                pending = ck;
            }
            last_c = ck;
            last_a = ak;
        }
        const std::uint32_t sh = h * kPart;
        m.E |= E << sh, m.BG |= BG << sh, m.U |= U << sh, m.UL |= UL << sh, m.UR |= UR << sh;
        m.UE |= UE << sh, m.ABG |= ABG << sh;
    }
    if (has_r) {  // the upper-right pixel past the segment: last_a and pending are pixel 31's
        const std::uint32_t ar = key_at<F>(g, x0 + kMaxSeg, y - 1);
        if (keys_close<F>(ar, pending, g.tolerance)) m.UR |= 1u << (kMaxSeg - 1);
        m.ar_fg = !seg_is_bg(g, ar);
        m.ue_n = keys_close<F>(ar, last_a, g.tolerance);
    }
    return m;
}

/// seg_start_halves, any other segment (partial, rows not on 16 bytes, or the image's top row when
/// @p above is false): the same masks from one pixel at a time, holding no row of keys.
template <PixelFormat F>
CCL_HD SegMasks seg_masks_pixels(const Params& g, std::uint32_t x0, std::uint32_t y, std::uint32_t n, bool above) {
    const bool has_l = x0 > 0, has_r = x0 + n < g.width;
    SegMasks m;
    std::uint32_t last_c = has_l ? key_at<F>(g, x0 - 1, y) : 0u;
    std::uint32_t last_a = has_l && above ? key_at<F>(g, x0 - 1, y - 1) : 0u;
    std::uint32_t next_a = above ? key_at<F>(g, x0, y - 1) : 0u;
    for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t bit = 1u << k, ck = key_at<F>(g, x0 + k, y);
        if (k == 0) m.c0 = ck;
        if (k > 0 && ck == last_c) m.E |= bit;
        if (g.has_background && ck == g.background_key) m.BG |= bit;
        if (above) {
            const std::uint32_t ak = next_a;
            const bool r_ok = k + 1 < n || has_r;
            next_a = r_ok ? key_at<F>(g, x0 + k + 1, y - 1) : 0u;
            if (ak == ck) m.U |= bit;
            if ((k > 0 || has_l) && last_a == ck) m.UL |= bit;
            if (r_ok && next_a == ck) m.UR |= bit;
            last_a = ak;
        }
        last_c = ck;
    }
    return m;
}

/// seg_masks_pixels with a tolerance: SegCloseMasks one pixel at a time (every segment of the
/// tolerance Start without seg_start_halves; partial or unaligned ones with it).
template <PixelFormat F>
CCL_HD SegCloseMasks seg_masks_close_pixels(const Params& g, std::uint32_t x0, std::uint32_t y, std::uint32_t n, bool above) {
    const bool has_l = x0 > 0, has_r = x0 + n < g.width;
    SegCloseMasks m;
    std::uint32_t last_c = has_l ? key_at<F>(g, x0 - 1, y) : 0u;
    std::uint32_t last_a = has_l && above ? key_at<F>(g, x0 - 1, y - 1) : 0u;
    std::uint32_t next_a = above ? key_at<F>(g, x0, y - 1) : 0u;
    m.al_fg = has_l && above && !seg_is_bg(g, last_a);
    for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t bit = 1u << k, ck = key_at<F>(g, x0 + k, y);
        if (k == 0) m.c0 = ck;
        if (k > 0 && keys_close<F>(ck, last_c, g.tolerance)) m.E |= bit;
        if (seg_is_bg(g, ck)) m.BG |= bit;
        if (above) {
            const std::uint32_t ak = next_a;
            const bool l_ok = k > 0 || has_l, r_ok = k + 1 < n || has_r;
            next_a = r_ok ? key_at<F>(g, x0 + k + 1, y - 1) : 0u;
            if (keys_close<F>(ak, ck, g.tolerance)) m.U |= bit;
            if (l_ok && keys_close<F>(last_a, ck, g.tolerance)) m.UL |= bit;
            if (r_ok && keys_close<F>(next_a, ck, g.tolerance)) m.UR |= bit;
            if (l_ok && keys_close<F>(ak, last_a, g.tolerance)) m.UE |= bit;
            if (seg_is_bg(g, ak)) m.ABG |= bit;
            if (k + 1 == n && has_r) {
                m.ar_fg = !seg_is_bg(g, next_a);
                m.ue_n = keys_close<F>(next_a, ak, g.tolerance);
            }
            last_a = ak;
        }
        last_c = ck;
    }
    return m;
}

/// Tolerance: the joins of a segment's runs with the row above, from its raw masks @p m over its
/// @p n pixels. Returns the run continuations E (bit k: pixel k goes on with pixel k − 1's run,
/// both foreground) and the join masks, bit k naming the witness pixel k of a run R:
///   Zin  R joins the upper run through upper pixel k;  Zl  ... through k − 1;  Zr  ... through k + 1.
/// J0, Jm, Jp are the candidate joins (close, both foreground) to upper k, k − 1, k + 1. For an
/// upper position q next to R (q ∈ C_R) the witness is R's leftmost pixel with a candidate to q
/// (the others are dropped: "canonical"), and the join is made only where q − 1 ∉ C_R or q
/// starts an upper run (UE at q clear): the positions of C_R within one upper run then join it
/// once a stretch. R is the part of the run inside the segment (a carried run is joined again
/// by the segment to its left: at most a few redundant unions at a seam). "k − i ∈ R(k)" is
/// E, E2 = E & E << 1, E3 = E2 & E << 2 at bit k.
struct SegCloseJoins {
    std::uint32_t E = 0, Zin = 0, Zl = 0, Zr = 0;
};

CCL_HD SegCloseJoins seg_close_joins(const SegCloseMasks& m, std::uint32_t n, bool eight) {
    const std::uint32_t valid = mask_below(n), top = 1u << (n - 1);
    const std::uint32_t nb = ~m.BG & valid, anb = ~m.ABG & valid;
    const std::uint32_t anb_l = (anb << 1) | (m.al_fg ? 1u : 0u);  // bit k: upper k − 1 foreground
    const std::uint32_t anb_r = (anb >> 1) | (m.ar_fg ? top : 0u);  // bit k: upper k + 1 foreground
    SegCloseJoins j;
    const std::uint32_t E = m.E & nb & (nb << 1) & ~1u;
    j.E = E;
    const std::uint32_t J0 = m.U & nb & anb;
    const std::uint32_t UE = m.UE & anb & anb_l;  // bit k: upper k goes on with upper k − 1's run
    if (!eight) {
        j.Zin = J0 & ~((J0 << 1) & E & UE);
        return j;
    }
    const std::uint32_t Jm = m.UL & nb & anb_l;
    const std::uint32_t Jp = m.UR & nb & anb_r;
    const std::uint32_t UEr = (UE >> 1) | (m.ue_n && m.ar_fg && (anb & top) ? top : 0u);  // UE at upper k + 1
    const std::uint32_t E2 = E & (E << 1), E3 = E2 & (E << 2);
    // q = k + 1: canonical always; q − 1 = k ∈ C_R through k − 1 (Jp), k (J0) or k + 1 (Jm).
    j.Zr = Jp & ~((((Jp << 1) & E) | J0 | ((Jm & E) >> 1)) & UEr);
    // q = k: the witness unless k − 1 ∈ R reaches q by Jp; q − 1 ∈ C_R through k − 2, k − 1, k.
    j.Zin = J0 & ~((Jp << 1) & E) & ~((((Jp << 2) & E2) | ((J0 << 1) & E) | Jm) & UE);
    // q = k − 1: the witness unless k − 2 (Jp) or k − 1 (J0) in R reaches q; q − 1 through k − 3..k − 1.
    j.Zl = Jm & ~(((Jp << 2) & E2) | ((J0 << 1) & E)) &
           ~((((Jp << 3) & E3) | ((J0 << 2) & E2) | ((Jm << 1) & E)) & (UE << 1));
    return j;
}

/// Background pixels of a segment from its S and G words (G's bit 0 is a flag, see Start).
CCL_HD std::uint32_t seg_background(std::uint32_t S, std::uint32_t G) {
    return (G & ~1u) | ((S & 1u) || (G & 1u) ? 0u : 1u);
}

/// seg_start_zeroes: whether all @p n pixels of a segment are background, from its S and G words.
/// Start decides which segments it zeroes, and Number which it skips, by this one test on the same
/// words, so the two cannot disagree.
CCL_HD bool seg_all_background(std::uint32_t S, std::uint32_t G, std::uint32_t n) {
    const std::uint32_t valid = mask_below(n);
    return n > 0 && (seg_background(S, G) & valid) == valid;
}

/// What Start of one segment leaves to its caller: the node mask, whether pixel 0 is carried, and
/// the segment's first pixel.
struct SegStarted {
    std::uint32_t S = 0, row = 0, n = 0;  // n: the segment's pixels (0: no segment, a lane past the row)
    bool carried = false;
    bool all_background = false;  ///< every pixel of the segment is background (seg_all_background)
};

/// Start of segment @p s (see the file comment). The masks, bit k for the segment's pixel k:
///   S    nodes (non-background run starts; bit 0 always, unless background or carried);
///   G    background pixels, except bit 0: with S bit 0, "join the left segment's last node";
///        without, "carried" (pixel 0 goes on with the left segment's last run; else it is
///        background);
///   Zin  joins to the upper pixel k: k is in a run and is the first of a stretch of upper pixels
///        of the run's value touching it (all one upper run, so one join a stretch);
///   Zl   (8-conn) a run starting at k joins the upper pixel k − 1 (up-left of its first pixel);
///   Zr   (8-conn) a run ending at k joins the upper pixel k + 1 (up-right of its last pixel).
/// A run going on from the left segment joins it only if no upper pixel joins both already
/// (skip_joins): with 8-conn, when the upper-left pixel has its value (the left pixel's upper
/// neighbour then joins both); with 4-conn, when the upper and upper-left pixels both have it.
/// Segment @p s is row @p r of its strip: @p c holds the keys of the strip's previous row
/// on entry (unless r is 0) and this row's on return; @p a is scratch for the row above.
/// With @p uniform (seg_uniform_warps: a full segment of 32 whose pixels and the 32 above hold the
/// key *uniform, r 0) the masks follow from the three pixels beside it, and @p c is not filled.
/// With @p H (seg_start_halves) no row of keys is held: the masks come from seg_masks_halves or
/// seg_masks_pixels, @p c and @p a are not used, and a strip reads each row above again.
template <PixelFormat F, bool H, class Ops>
CCL_HD SegStarted seg_start_one(Ops& ops, const Params& g, std::uint32_t s, std::uint32_t r, std::uint32_t* c,
                                std::uint32_t* a, const std::uint32_t* uniform = nullptr) {
    const SegPos p = seg_pos(g, s);
    const std::uint32_t n = p.n, x0 = p.x0, y = p.y, valid = mask_below(n);
    // The row above is the strip's previous row, still in registers (read from the picture
    // only at the strip's top).
    if constexpr (!H) {
        CCL_UNROLL
        for (std::uint32_t k = 0; k < kMaxSeg; ++k) a[k] = c[k];
    }
    std::uint32_t E = 0, BG = 0, U = 0, UL = 0, UR = 0;
    bool e0 = false;
    if (uniform) {
        const std::uint32_t v = *uniform;
        E = ~1u;
        if (g.has_background && v == g.background_key) BG = ~0u;
        e0 = x0 > 0 && key_at<F>(g, x0 - 1, y) == v;
        U = ~0u;
        UL = ~1u | (x0 > 0 && key_at<F>(g, x0 - 1, y - 1) == v ? 1u : 0u);
        UR = ~(1u << 31) | (x0 + n < g.width && key_at<F>(g, x0 + n, y - 1) == v ? 1u << 31 : 0u);
    } else if constexpr (H) {
        const bool above = y > 0 && !image_top(g, y);
        const std::uint8_t* row = g.img + std::int64_t(y) * g.stride + std::int64_t(x0) * cclabel::detail::PixelTraits<F>::kBytes;
        const bool aligned = above && n == kMaxSeg &&
                             ((reinterpret_cast<std::uintptr_t>(row) | reinterpret_cast<std::uintptr_t>(row - g.stride)) & 15u) == 0;
        const SegMasks m = aligned ? seg_masks_halves<F>(g, x0, y) : seg_masks_pixels<F>(g, x0, y, n, above);
        E = m.E, BG = m.BG, U = m.U, UL = m.UL, UR = m.UR;
        e0 = x0 > 0 && key_at<F>(g, x0 - 1, y) == m.c0;
        (void)r;
    } else {
        load_seg_keys<F>(g, x0, y, n, c);
        CCL_UNROLL
        for (std::uint32_t k = 0; k < kMaxSeg; ++k) {
            if (k > 0 && k < n && c[k] == c[k - 1]) E |= 1u << k;
            if (g.has_background && k < n && c[k] == g.background_key) BG |= 1u << k;
        }
        e0 = x0 > 0 && key_at<F>(g, x0 - 1, y) == c[0];
        if (y > 0 && !image_top(g, y)) {
            if (r == 0) load_seg_keys<F>(g, x0, y - 1, n, a);
            const bool has_l = x0 > 0, has_r = x0 + n < g.width;
            const std::uint32_t al = has_l ? key_at<F>(g, x0 - 1, y - 1) : 0u;
            const std::uint32_t ar = has_r ? key_at<F>(g, x0 + n, y - 1) : 0u;
            CCL_UNROLL
            for (std::uint32_t k = 0; k < kMaxSeg; ++k) {
                if (k >= n) break;
                if (a[k] == c[k]) U |= 1u << k;
                const bool l_ok = k > 0 || has_l;
                const std::uint32_t l = k > 0 ? a[k > 0 ? k - 1 : 0] : al;
                if (l_ok && l == c[k]) UL |= 1u << k;
                const bool r_ok = k + 1 < n || has_r;
                const std::uint32_t rr = k + 1 < n ? a[k + 1 < kMaxSeg ? k + 1 : k] : ar;
                if (r_ok && rr == c[k]) UR |= 1u << k;
            }
        }
    }
    const std::uint32_t RS = (~E | 1u) & valid;  // run starts, background runs included
    const std::uint32_t nonbg = ~BG & valid;
    // A carried pixel 0 is no node and joins nothing itself: the left segment's last pixel, of
    // its run, has joined the upper pixels at and left of it (the stretch through the pixel
    // above-left), and its node is this run's.
    const std::uint32_t sx = s - p.y * g.segs_x;
    const bool carried = g.seg_carry && e0 && (BG & 1u) == 0 && g.fd_seg_span.mod(sx) != 0;
    const std::uint32_t S = RS & nonbg & (carried ? ~1u : ~0u);
    // Upper pixels touching a run, one join per stretch: a stretch goes on from k − 1 inside
    // the same run, or (8-conn) from the up-left pixel of the run's first pixel.
    const std::uint32_t same_run_prev = (U << 1) & ~RS;
    std::uint32_t Zin, Zl = 0, Zr = 0;
    if (g.connectivity == 8) {
        Zin = U & ~same_run_prev & ~(RS & UL) & nonbg;
        Zl = S & UL;
        const std::uint32_t RE = ((RS >> 1) | (1u << (n - 1))) & valid;  // run ends
        Zr = RE & UR & ~U & nonbg;
    } else {
        Zin = U & ~same_run_prev & nonbg;
    }
    bool join_left = e0 && (BG & 1u) == 0 && !carried;
    if (join_left && g.sw.skip_joins && (UL & 1u) && (g.connectivity == 8 || (U & 1u))) join_left = false;
    for (std::uint32_t m = S; m; m &= m - 1) {
        const std::uint32_t i = p.row + ffs32(m) - 1;
        ops.st(&g.labels[i], i);
    }
    const std::uint32_t G = (BG & ~1u) | (join_left || carried ? 1u : 0u);
    ops.st(&g.seg_s[s], S);
    ops.st(&g.seg_g[s], G);
    ops.st(&g.seg_zin[s], Zin);
    ops.st(&g.seg_zl[s], Zl);
    ops.st(&g.seg_zr[s], Zr);
    return SegStarted{S, p.row, n, carried, seg_all_background(S, G, n)};
}

/// Start of segment @p s with a tolerance (T; see the file comment): the same words as
/// seg_start_one, from closeness. Runs are chains of close foreground pixels (seg_close_joins' E),
/// pixel 0 is carried or joins left when close to the left segment's last pixel (both foreground),
/// and Zin, Zl, Zr are seg_close_joins' witnesses. No skipped left join (skip_joins needs an
/// equivalence). A uniform segment (@p uniform, as for seg_start_one: equal raw words over both
/// rows) has every pixel close to its neighbours inside, and the three pixels beside it are
/// compared by closeness. No row of keys is held: with @p H (seg_start_halves) full aligned
/// segments are compared 8 pixels at a time (seg_masks_close_parts), others and every segment
/// without H pixel by pixel (seg_masks_close_pixels): seg_start_one's 2 × 32 keys in registers
/// and their closeness tests spilled.
template <PixelFormat F, bool H, class Ops>
CCL_HD SegStarted seg_start_one_close(Ops& ops, const Params& g, std::uint32_t s, const std::uint32_t* uniform = nullptr) {
    const SegPos p = seg_pos(g, s);
    const std::uint32_t n = p.n, x0 = p.x0, y = p.y, valid = mask_below(n), top = 1u << (n - 1);
    const bool above = y > 0 && !image_top(g, y);
    const bool has_l = x0 > 0, has_r = x0 + n < g.width;
    SegCloseMasks m;
    if (uniform) {  // a full segment, below the top row
        const std::uint32_t v = *uniform;
        m.c0 = v;
        m.E = valid & ~1u;
        m.U = valid;
        m.UL = m.UE = valid & ~1u;
        m.UR = valid & ~top;
        if (seg_is_bg(g, v)) m.BG = m.ABG = valid;
        if (has_l) {
            const std::uint32_t al = key_at<F>(g, x0 - 1, y - 1);
            if (keys_close<F>(al, v, g.tolerance)) m.UL |= 1u, m.UE |= 1u;
            m.al_fg = !seg_is_bg(g, al);
        }
        if (has_r) {
            const std::uint32_t ar = key_at<F>(g, x0 + n, y - 1);
            if (keys_close<F>(ar, v, g.tolerance)) m.UR |= top, m.ue_n = true;
            m.ar_fg = !seg_is_bg(g, ar);
        }
    } else if constexpr (H) {
        const std::uint8_t* row = g.img + std::int64_t(y) * g.stride + std::int64_t(x0) * cclabel::detail::PixelTraits<F>::kBytes;
        const bool aligned = above && n == kMaxSeg &&
                             ((reinterpret_cast<std::uintptr_t>(row) | reinterpret_cast<std::uintptr_t>(row - g.stride)) & 15u) == 0;
        m = aligned ? seg_masks_close_parts<F>(g, x0, y) : seg_masks_close_pixels<F>(g, x0, y, n, above);
    } else {
        m = seg_masks_close_pixels<F>(g, x0, y, n, above);
    }
    const std::uint32_t cl = has_l ? key_at<F>(g, x0 - 1, y) : 0u;
    const bool e0 = has_l && (m.BG & 1u) == 0 && !seg_is_bg(g, cl) && keys_close<F>(cl, m.c0, g.tolerance);
    const SegCloseJoins j = seg_close_joins(m, n, g.connectivity == 8);
    const std::uint32_t RS = (~j.E | 1u) & valid;  // run starts, background pixels included
    const std::uint32_t nonbg = ~m.BG & valid;
    const std::uint32_t sx = s - p.y * g.segs_x;
    const bool carried = g.seg_carry && e0 && g.fd_seg_span.mod(sx) != 0;
    const std::uint32_t S = RS & nonbg & (carried ? ~1u : ~0u);
    const bool join_left = e0 && !carried;
    for (std::uint32_t mm = S; mm; mm &= mm - 1) {
        const std::uint32_t i = p.row + ffs32(mm) - 1;
        ops.st(&g.labels[i], i);
    }
    const std::uint32_t G = (m.BG & ~1u) | (join_left || carried ? 1u : 0u);
    ops.st(&g.seg_s[s], S);
    ops.st(&g.seg_g[s], G);
    ops.st(&g.seg_zin[s], j.Zin);
    ops.st(&g.seg_zl[s], j.Zl);
    ops.st(&g.seg_zr[s], j.Zr);
    return SegStarted{S, p.row, n, carried, seg_all_background(S, G, n)};
}

/// seg_start_zeroes: the labels (0) of the segments of bit set in @p zero among a span (segments of
/// 32, the first pixel @p first_px; segment @p last the span's last in its row, of @p last_n pixels),
/// written by the span's warp together: in pass i lane l stores the 4 pixels of quad i · W + l of the
/// span (8 quads a segment), so each store instruction covers 16 · W contiguous bytes. A lane storing
/// its own segment's 32 labels would leave 112 bytes between lanes, each 32-byte sector written by
/// two instructions (Number's transposed stores exist for that reason). The width is a multiple of 8
/// (the transposed Number), so quads are whole. Everything is derived from the span's first pixel,
/// not from the row and column: Start's halves kernel has no register to spare across its loads.
template <class Ops>
CCL_HD void seg_zero_span(Ops& ops, const Params& g, std::uint32_t first_px, std::uint32_t lane, std::uint32_t zero,
                          std::uint32_t last, std::uint32_t last_n) {
    constexpr std::uint32_t kQuadsPerSeg = kMaxSeg / 4;
    const std::uint32_t none[4] = {0u, 0u, 0u, 0u};
    for (std::uint32_t i = 0; i < kQuadsPerSeg; ++i) {
        const std::uint32_t q = i * g.warp_w + lane, j = q / kQuadsPerSeg;
        if ((zero >> j & 1u) && (j < last || 4 * (q % kQuadsPerSeg) < last_n))
            ops.st_own(&g.labels[first_px + 4 * q], 4, none);
    }
}

/// Start with seg_warp_carry: thread t is segment column t mod start_lanes_x of row t / start_lanes_x
/// (lanes past the row's segments take part in the warp's votes only), so a warp is one span of a
/// row, whose first segment is never carried. A carried segment's node is the last node of the
/// nearest segment to its left holding one: the segments between are carried whole (no node).
template <PixelFormat F, bool H, bool T, class Ops>
CCL_HD void seg_start_span_program(Ops& ops, const Params& g, std::uint64_t t64) {
    if (t64 >= g.start_lanes) return;  // whole warps: start_lanes is a multiple of the warp width
    const std::uint32_t t = std::uint32_t(t64);
    const std::uint32_t y = g.fd_start_lanes_x.div(t), sx = t - y * g.start_lanes_x;
    const std::uint32_t lane = g.fd_warp_w.mod(sx);  // sx's place in its span (seg_span == warp_w)
    const std::uint32_t all = mask_below(g.warp_w);
    std::uint32_t c[kMaxSeg] = {}, a[kMaxSeg] = {};
    const bool real = sx < g.segs_x;
    const std::uint32_t s = y * g.segs_x + sx;  // < segs when real
    // seg_uniform_warps: when every segment of the span is uniform over both rows (paper), the whole
    // warp takes the short path; a span with anything else on it compares keys in every lane (a
    // lane-by-lane choice would leave the warp's lanes idle while the others compare).
    std::uint32_t v = 0;
    bool uniform = false;
    if (g.sw.seg_uniform_warps && real && g.seg_w == kMaxSeg) {
        const std::uint32_t x0 = sx * kMaxSeg;
        uniform = x0 + kMaxSeg <= g.width && y > 0 && !image_top(g, y) && seg_uniform_with_above<F>(g, x0, y, v);
    }
    const bool warp_uniform = g.sw.seg_uniform_warps && (ops.ballot(all, uniform) & all) == all;
    SegStarted st;
    if constexpr (T) {
        (void)c, (void)a;
        if (real) st = seg_start_one_close<F, H>(ops, g, s, warp_uniform ? &v : nullptr);
    } else {
        if (real) st = seg_start_one<F, H>(ops, g, s, 0, c, a, warp_uniform ? &v : nullptr);
    }
    const std::uint32_t with_node = ops.ballot(all, st.S != 0) & all & mask_below(lane);
    const std::uint32_t src = with_node ? highest_bit(with_node) : lane;
    const std::uint32_t node = ops.shfl(all, st.S ? st.row + highest_bit(st.S) : 0u, src);
    if (st.carried) ops.st(&g.seg_c[s], node);
    else if (real && g.carry_labels) ops.st(&g.seg_c[s], kNotCarried);  // Number loads every C
    if (g.start_zeroes) {
        const std::uint32_t zero = ops.ballot(all, st.all_background) & all;  // warp-uniform
        if (zero) {
            // Lane 0 is always in the row (rows are whole spans rounded up); the last lane in it may
            // hold a short segment.
            const std::uint32_t last = highest_bit(ops.ballot(all, st.n != 0) & all);
            const std::uint32_t first_px = ops.shfl(all, st.row, 0), last_n = ops.shfl(all, st.n, last);
            seg_zero_span(ops, g, first_px, lane, zero, last, last_n);
        }
    }
}

/// Start; @p H: Switches::seg_start_halves (a kernel of its own on the GPU, built for fewer registers);
/// @p T: with a tolerance (seg_start_one_close).
template <PixelFormat F, bool H, bool T, class Ops>
CCL_HD void seg_start_program(Ops& ops, const Params& g, std::uint64_t t64) {
    if (g.seg_warp_carry) return seg_start_span_program<F, H, T>(ops, g, t64);
    if constexpr (T) {
        for_strip(g, t64, [&](std::uint32_t s, std::uint32_t) { seg_start_one_close<F, H>(ops, g, s); });
    } else {
        std::uint32_t c[kMaxSeg] = {}, a[kMaxSeg] = {};
        for_strip(g, t64, [&](std::uint32_t s, std::uint32_t r) { seg_start_one<F, H>(ops, g, s, r, c, a); });
    }
}

/// Whether segment @p s's pixel 0 is carried (seg_carry), from its S and G words.
CCL_HD bool seg_carried(std::uint32_t S, std::uint32_t G) { return (S & 1u) == 0 && (G & 1u) != 0; }

/// Carry (seg_carry) of a strip: each carried segment's C, the node of the left segment's last
/// pixel. The segments passed on the way are carried whole (no node); the walk ends at most at the
/// span's first segment, whose pixel 0 is never carried. Nothing writes S or G now, so the walk's
/// loads may come from L1 whatever cached_loads says.
template <PixelFormat F, class Ops>
CCL_HD void seg_carry_program(Ops& ops, const Params& g, std::uint64_t t64) {
    for_strip(g, t64, [&](std::uint32_t s, std::uint32_t) {
        const std::uint32_t S = ops.ld_weak(&g.seg_s[s]);
        if (S & 1u) return;
        if (!seg_carried(S, ops.ld_weak(&g.seg_g[s]))) return;
        const SegPos p = seg_pos(g, s);
        std::uint32_t back = 1, sl = ops.ld_weak(&g.seg_s[s - 1]);
        for (; sl == 0 && back < g.fd_seg_span.d; ++back) sl = ops.ld_weak(&g.seg_s[s - back - 1]);
        ops.st(&g.seg_c[s], p.row - back * g.seg_w + highest_bit(sl));
    });
}

/// Connect of segment @p s: the joins Start found, the row above first. @p T: with a tolerance, a
/// Zl witness need not start its run, and the up-right pixel past the segment's end may be carried.
template <PixelFormat F, bool T, class Ops>
CCL_HD void seg_connect_program(Ops& ops, const Params& g, std::uint64_t t64) {
    for_strip(g, t64, [&](std::uint32_t s, std::uint32_t) { seg_connect_one<F, T>(ops, g, s); });
}

template <PixelFormat F, bool T, class Ops>
CCL_HD void seg_connect_one(Ops& ops, const Params& g, std::uint32_t s) {
    const std::uint32_t zin = ops.ld(&g.seg_zin[s]), zl = ops.ld(&g.seg_zl[s]), zr = ops.ld(&g.seg_zr[s]);
    const std::uint32_t gm = ops.ld(&g.seg_g[s]);
    if ((zin | zl | zr) == 0 && (gm & 1u) == 0) return;
    const std::uint32_t S = ops.ld(&g.seg_s[s]);
    if ((zin | zl | zr) == 0 && (S & 1u) == 0) return;  // G's bit 0 says "carried", not "join left"
    const SegPos p = seg_pos(g, s);
    // The node of pixel k of segment @p seg (nodes @p m, first pixel @p row), k not background: a
    // node at or before k, else the segment is carried and C holds the node.
    auto node_of = [&](std::uint32_t seg, std::uint32_t m, std::uint32_t row, std::uint32_t k) {
        const std::uint32_t before = m & mask_upto(k);
        return before ? row + highest_bit(before) : ops.ld(&g.seg_c[seg]);
    };
    auto node_here = [&](std::uint32_t k) { return node_of(s, S, p.row, k); };
    const std::uint32_t up = p.row - g.width;  // the pixel above the segment's first
    std::uint32_t sa = 0;
    if (zin | zl | zr) sa = ops.ld(&g.seg_s[s - g.segs_x]);
    // The upper run through upper pixel k has its value, so it is not background.
    auto node_above = [&](std::uint32_t k) { return node_of(s - g.segs_x, sa, up, k); };
    for (std::uint32_t m = zin; m; m &= m - 1) {
        const std::uint32_t k = ffs32(m) - 1;
        unite(ops, g, node_here(k), node_above(k), false);
    }
    for (std::uint32_t m = zl; m; m &= m - 1) {
        const std::uint32_t k = ffs32(m) - 1;
        std::uint32_t target;
        if (k > 0) {
            target = node_above(k - 1);
        } else {  // the up-left pixel ends the segment above-left (a full segment)
            const std::uint32_t sal = ops.ld(&g.seg_s[s - g.segs_x - 1]);
            target = node_of(s - g.segs_x - 1, sal, up - g.seg_w, g.seg_w - 1);
        }
        if constexpr (T)
            unite(ops, g, node_here(k), target, false);
        else
            unite(ops, g, p.row + k, target, false);
    }
    for (std::uint32_t m = zr; m; m &= m - 1) {
        const std::uint32_t k = ffs32(m) - 1;
        // Past the segment's end the up-right pixel is the next upper segment's first, and a node
        // even with seg_carry: it has this run's value and the pixel left of it has not (Zr is
        // set only without the up join), so it starts a run.
        std::uint32_t target;
        if constexpr (T) {  // the up-right pixel past the end may be carried: its segment's node
            if (k + 1 < p.n) {
                target = node_above(k + 1);
            } else {
                const std::uint32_t sar = ops.ld(&g.seg_s[s - g.segs_x + 1]);
                target = node_of(s - g.segs_x + 1, sar, up + p.n, 0);
            }
        } else {
            target = k + 1 < p.n ? node_above(k + 1) : up + p.n;
        }
        unite(ops, g, node_here(k), target, false);
    }
    if ((gm & 1u) && (S & 1u)) {
        const std::uint32_t sl = ops.ld(&g.seg_s[s - 1]);
        unite(ops, g, p.row, node_of(s - 1, sl, p.row - g.seg_w, g.seg_w - 1), false);
    }
}

/// Flatten of a strip: every node points at its root; a segment's root bits and count go to seg_zin
/// and seg_zl (no longer needed). Roots no longer change, so a walk with cached loads may meet
/// stale parents (still ancestors: compressions only lower them) but never a stale root: the L1
/// holds nothing from before this kernel.
template <PixelFormat F, class Ops>
CCL_HD void seg_flatten_program(Ops& ops, const Params& g, std::uint64_t t64) {
    for_strip(g, t64, [&](std::uint32_t s, std::uint32_t) { seg_flatten_one<F>(ops, g, s); });
}

template <PixelFormat F, class Ops>
CCL_HD void seg_flatten_one(Ops& ops, const Params& g, std::uint32_t s) {
    const std::uint32_t S = ops.ld(&g.seg_s[s]);
    const SegPos p = seg_pos(g, s);
    std::uint32_t roots = 0;
    for (std::uint32_t m = S; m; m &= m - 1) {
        const std::uint32_t k = ffs32(m) - 1, i = p.row + k;
        const std::uint32_t r = find_root(ops, g, i);
        if (r == i)
            roots |= 1u << k;
        else
            ops.st(&g.labels[i], r);
    }
    ops.st(&g.seg_zin[s], roots);
    ops.st(&g.seg_zl[s], popc32(roots));
    if (s + 1 == g.segs) ops.st(&g.seg_zl[s + 1], 0u);  // the scan's last item: its sum is N
}

/// The label of root @p r (a pixel index) once the counts are scanned. Nothing that Number reads
/// changes during Number, so its loads may be served by L1 (cached_loads).
template <class Ops>
CCL_HD std::uint32_t seg_ld(Ops& ops, const Params& g, const std::uint32_t* p) {
    return g.sw.cached_loads ? ops.ld_weak(p) : ops.ld(p);
}

/// Batches number each image from 1: the roots of the images before row @p y's (0 for one image).
template <class Ops>
CCL_HD std::uint32_t seg_image_base(Ops& ops, const Params& g, std::uint32_t y) {
    if (!g.image_h) return 0;
    return seg_ld(ops, g, &g.seg_zl[std::uint64_t(y - g.fd_image_h.mod(y)) * g.segs_x]);
}

template <class Ops>
CCL_HD std::uint32_t seg_root_number(Ops& ops, const Params& g, std::uint32_t r) {
    const std::uint32_t ry = g.fd_width.div(r), rx = r - ry * g.width;
    const std::uint32_t sx = g.fd_seg_w.div(rx);
    const std::uint32_t rs = ry * g.segs_x + sx;  // < segs
    const std::uint32_t bits = seg_ld(ops, g, &g.seg_zin[rs]) & mask_below(rx - sx * g.seg_w);
    return seg_ld(ops, g, &g.seg_zl[rs]) + popc32(bits) + 1;
}

/// Number of segment @p s: every pixel's label, written once. A thread reads only its own nodes'
/// words (set by Flatten) before overwriting them, and the roots' masks and counts, which no one
/// writes now.
template <PixelFormat F, class Ops>
CCL_HD void seg_number_program(Ops& ops, const Params& g, std::uint64_t t64) {
    for_strip(g, t64, [&](std::uint32_t s, std::uint32_t) { seg_number_one<F>(ops, g, s); });
}

template <PixelFormat F, class Ops>
CCL_HD void seg_number_one(Ops& ops, const Params& g, std::uint32_t s) {
    const std::uint32_t S = seg_ld(ops, g, &g.seg_s[s]);
    const SegPos p = seg_pos(g, s);
    const std::uint32_t bg = seg_background(S, seg_ld(ops, g, &g.seg_g[s]));  // never carried here
    const std::uint32_t base = seg_image_base(ops, g, p.y);
    std::uint32_t out[kMaxSeg];
    std::uint32_t cur = 0;
    CCL_UNROLL
    for (std::uint32_t k = 0; k < kMaxSeg; ++k) {
        if (k < p.n && (S >> k & 1u)) {
            const std::uint32_t i = p.row + k;
            cur = seg_root_number(ops, g, seg_ld(ops, g, &g.labels[i])) - base;
        }
        out[k] = (bg >> k & 1u) ? 0u : cur;
    }
    ops.st_row(&g.labels[p.row], p.n, out);
}

/// Resolve (seg_quad_number) of a strip: each node's word becomes its region's label, so that Number
/// can then read labels instead of walking to roots while other threads overwrite words.
template <PixelFormat F, class Ops>
CCL_HD void seg_resolve_program(Ops& ops, const Params& g, std::uint64_t t64) {
    for_strip(g, t64, [&](std::uint32_t s, std::uint32_t) {
        const std::uint32_t S = seg_ld(ops, g, &g.seg_s[s]);
        if (S == 0) return;
        const SegPos p = seg_pos(g, s);
        const std::uint32_t base = seg_image_base(ops, g, p.y);
        for (std::uint32_t m = S; m; m &= m - 1) {
            const std::uint32_t i = p.row + ffs32(m) - 1;
            ops.st(&g.labels[i], seg_root_number(ops, g, seg_ld(ops, g, &g.labels[i])) - base);
        }
    });
}

/// CarryLabels (carry_labels), after Resolve: a carried segment's C becomes its node's label, which
/// Resolve has written into the node's word; other segments' C stays kNotCarried. A thread takes
/// kCarryLabelsPerThread segments a warp width apart (a warp's loads stay contiguous, and a thread
/// has that many in flight): a thread a segment spent 0.1 ms of launch and index arithmetic on the
/// 800 dpi sheet's 25 million segments.
inline constexpr std::uint32_t kCarryLabelsPerThread = 8;

/// CarryLabels' blocks of @p threads: whole warps of @p warp_w, kCarryLabelsPerThread segments a thread.
inline std::uint64_t carry_labels_blocks(std::uint64_t segs, std::uint32_t warp_w, std::uint32_t threads) {
    const std::uint64_t per_warp = std::uint64_t(warp_w) * kCarryLabelsPerThread;
    const std::uint64_t lanes = (segs + per_warp - 1) / per_warp * warp_w;
    return (lanes + threads - 1) / threads;
}

template <PixelFormat F, class Ops>
CCL_HD void seg_carry_labels_program(Ops& ops, const Params& g, std::uint64_t t64) {
    const std::uint64_t W = g.warp_w, lane = t64 % W, first = (t64 - lane) * kCarryLabelsPerThread + lane;
    std::uint32_t c[kCarryLabelsPerThread];
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kCarryLabelsPerThread; ++j) {
        const std::uint64_t s = first + j * W;
        c[j] = s < g.segs ? ops.ld(&g.seg_c[s]) : kNotCarried;
    }
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kCarryLabelsPerThread; ++j)
        if (c[j] != kNotCarried) ops.st(&g.seg_c[first + j * W], seg_ld(ops, g, &g.labels[c[j]]));
}

/// The labels of the @p P pixels of row @p y from @p x0 (row's first pixel @p row), a group that lies
/// in one segment: the masks shifted to the group's first pixel k0, one label load a run start
/// (predicated, all in flight at once) and one select a pixel. S, G and C are read-only since
/// Flatten, so they may come from L1. Returns whether Start has written the group's labels already
/// (seg_start_zeroes: its segment is background throughout); @p out is filled either way.
template <class Ops>
CCL_HD bool seg_number_in_segment(Ops& ops, const Params& g, std::uint32_t y, std::uint32_t x0, std::uint32_t row,
                                  std::uint32_t P, std::uint32_t* out) {
    const std::uint32_t sx = g.fd_seg_w.div(x0), k0 = x0 - sx * g.seg_w;
    const std::uint32_t s = y * g.segs_x + sx, first = row + sx * g.seg_w;
    const std::uint32_t S = ops.ld_weak(&g.seg_s[s]), G = ops.ld_weak(&g.seg_g[s]);
    const std::uint32_t left = g.width - sx * g.seg_w, seg_n = left < g.seg_w ? left : g.seg_w;
    const bool zeroed = g.start_zeroes && seg_all_background(S, G, seg_n);
    // carry_labels: C is already the carried run's label (or kNotCarried), loaded with S and G.
    const std::uint32_t cl = g.carry_labels ? ops.ld_weak(&g.seg_c[s]) : 0u;
    const std::uint32_t bg = seg_background(S, G) >> k0, starts = S >> k0;
    std::uint32_t label = 0;
    if (((starts | bg) & 1u) == 0) {  // pixel k0 goes on with a run begun left of it
        const std::uint32_t before = S & mask_below(k0);
        if (before)
            label = seg_ld(ops, g, &g.labels[first + highest_bit(before)]);
        else
            label = g.carry_labels ? cl : seg_ld(ops, g, &g.labels[ops.ld_weak(&g.seg_c[s])]);
    }
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kMaxNumberPx; ++j) {
        if (j >= P) break;
        if (starts >> j & 1u) label = seg_ld(ops, g, &g.labels[first + k0 + j]);
        out[j] = (bg >> j & 1u) ? 0u : label;
    }
    return zeroed;
}

/// Number with seg_number_transpose (8 pixels a thread, width a multiple of 8, so a warp's W groups
/// are 8·W contiguous pixels): each lane works out its 8 labels, then the warp exchanges them by
/// shuffles so that each of its two stores is W · 16 contiguous bytes, lane l storing pixels
/// 4(W·q + l) .. + 3 of the warp's (a lane storing its own 8 would leave 16-byte gaps between a
/// store's lanes, every 32-byte sector written half by each of two instructions).
template <PixelFormat F, class Ops>
CCL_HD void seg_number_transposed_program(Ops& ops, const Params& g, std::uint64_t t64) {
    const std::uint32_t W = g.warp_w, lane = std::uint32_t(t64) & (W - 1);  // W a power of two
    const std::uint64_t warp_first = t64 - lane;
    if (warp_first >= g.quads) return;  // the whole warp is past the picture
    std::uint32_t v[kMaxNumberPx] = {};
    bool zeroed = true;  // seg_start_zeroes: Start wrote this lane's group (a lane past the picture writes nothing)
    if (t64 < g.quads) {
        const std::uint32_t t = std::uint32_t(t64);
        const std::uint32_t y = g.fd_quads_x.div(t), x0 = (t - y * g.quads_x) * 8;
        zeroed = seg_number_in_segment(ops, g, y, x0, std::uint32_t(std::uint64_t(y) * g.width), 8, v);
    }
    const std::uint32_t all = mask_below(W);
    // A warp whose groups Start wrote (paper as background) has nothing to exchange or store.
    std::uint32_t zeroed_lanes = 0;
    if (g.start_zeroes) {
        zeroed_lanes = ops.ballot(all, zeroed) & all;
        if (zeroed_lanes == all) return;
    }
    CCL_UNROLL
    for (std::uint32_t q = 0; q < 2; ++q) {
        const std::uint32_t src = q * (W / 2) + lane / 2;
        std::uint32_t w[4];
        CCL_UNROLL
        for (std::uint32_t i = 0; i < 4; ++i) {
            const std::uint32_t lo = ops.shfl(all, v[i], src), hi = ops.shfl(all, v[4 + i], src);
            w[i] = (lane & 1u) ? hi : lo;
        }
        // Lane src's group holds these 4 pixels, so its segment is theirs.
        const bool written = zeroed_lanes >> src & 1u;
        const std::uint64_t px = 8 * warp_first + 4 * (std::uint64_t(W) * q + lane);
        if (px < g.pixels && !written) ops.st_own(&g.labels[px], 4, w);  // groups are whole: 4 pixels inside
    }
}

/// Number after Resolve (seg_quad_number): one thread number_px consecutive pixels of a row, so a
/// warp stores 32 · number_px · 4 contiguous bytes at once (a thread a segment stores 128 bytes,
/// 32 threads 128 bytes apart). A pixel's label is its node's word, which Resolve made final: the
/// node's own pixel is overwritten with the value it already holds, so no thread can read a word
/// in flux.
template <PixelFormat F, class Ops>
CCL_HD void seg_quad_number_program(Ops& ops, const Params& g, std::uint64_t t64) {
    if (g.number_transpose) return seg_number_transposed_program<F>(ops, g, t64);
    if (t64 >= g.quads) return;
    const std::uint32_t t = std::uint32_t(t64), P = g.number_px;
    const std::uint32_t y = g.fd_quads_x.div(t), x0 = (t - y * g.quads_x) * P;
    const std::uint32_t n = g.width - x0 < P ? g.width - x0 : P;
    const std::uint32_t row = std::uint32_t(std::uint64_t(y) * g.width);
    std::uint32_t out[kMaxNumberPx];
    if (g.number_in_segment) {
        seg_number_in_segment(ops, g, y, x0, row, P, out);
        ops.st_own(&g.labels[row + x0], n, out);
        return;
    }
    std::uint32_t last_s = 0xFFFFFFFFu, S = 0, bg = 0, last_node = 0xFFFFFFFFu, label = 0;
    std::uint32_t carry = 0;
    std::uint32_t sx = g.fd_seg_w.div(x0), k = x0 - sx * g.seg_w;
    CCL_UNROLL
    for (std::uint32_t j = 0; j < kMaxNumberPx; ++j) {
        out[j] = 0;
        if (j >= n) continue;
        if (k == g.seg_w) {  // the next segment
            ++sx;
            k = 0;
        }
        const std::uint32_t s = y * g.segs_x + sx;
        if (s != last_s) {
            S = seg_ld(ops, g, &g.seg_s[s]);
            const std::uint32_t G = seg_ld(ops, g, &g.seg_g[s]);
            bg = seg_background(S, G);
            carry = seg_carried(S, G) ? seg_ld(ops, g, &g.seg_c[s]) : 0u;
            last_s = s;
        }
        const std::uint32_t kk = k++;
        if (bg >> kk & 1u) continue;
        const std::uint32_t before = S & mask_upto(kk);
        if (!before && g.carry_labels) {  // carried: C is the label
            out[j] = label = carry;
            last_node = 0xFFFFFFFFu;
            continue;
        }
        const std::uint32_t node = before ? row + sx * g.seg_w + highest_bit(before) : carry;
        if (node != last_node) {
            label = seg_ld(ops, g, &g.labels[node]);
            last_node = node;
        }
        out[j] = label;
    }
    ops.st_own(&g.labels[row + x0], n, out);
}

/// The segment pipeline's kernels, in launch order (the CUB scan runs between Flatten and Resolve).
/// StartHalves is Start with Switches::seg_start_halves.
/// StartTolerance, StartHalvesTolerance and ConnectTolerance are Start, StartHalves and Connect with a
/// tolerance (Params::tolerance > 0; the other stages are the same for both).
enum class SegStage {
    Start,
    StartHalves,
    Carry,
    Connect,
    Flatten,
    Resolve,
    CarryLabels,
    QuadNumber,
    Number,
    StartTolerance,
    StartHalvesTolerance,
    ConnectTolerance
};

/// One thread of stage @p S: thread @p t is a strip (a pixel quad for QuadNumber). The GPU kernel
/// and the emulator both call this, so the stage list is written once.
template <SegStage S, PixelFormat F, class Ops>
CCL_HD void seg_stage_program(Ops& ops, const Params& g, std::uint64_t t) {
    if constexpr (S == SegStage::Start) seg_start_program<F, false, false>(ops, g, t);
    else if constexpr (S == SegStage::StartHalves) seg_start_program<F, true, false>(ops, g, t);
    else if constexpr (S == SegStage::StartTolerance) seg_start_program<F, false, true>(ops, g, t);
    else if constexpr (S == SegStage::StartHalvesTolerance) seg_start_program<F, true, true>(ops, g, t);
    else if constexpr (S == SegStage::Carry) seg_carry_program<F>(ops, g, t);
    else if constexpr (S == SegStage::Connect) seg_connect_program<F, false>(ops, g, t);
    else if constexpr (S == SegStage::ConnectTolerance) seg_connect_program<F, true>(ops, g, t);
    else if constexpr (S == SegStage::Flatten) seg_flatten_program<F>(ops, g, t);
    else if constexpr (S == SegStage::Resolve) seg_resolve_program<F>(ops, g, t);
    else if constexpr (S == SegStage::CarryLabels) seg_carry_labels_program<F>(ops, g, t);
    else if constexpr (S == SegStage::QuadNumber) seg_quad_number_program<F>(ops, g, t);
    else seg_number_program<F>(ops, g, t);
}

/// Batches: each image's region count from the scanned counts (one thread an image).
template <class Ops>
CCL_HD void seg_batch_counts_program(Ops& ops, const Params& g, std::uint32_t* image_counts, std::uint64_t images,
                                     std::uint64_t b) {
    if (b >= images) return;
    const std::uint64_t per = std::uint64_t(g.image_h) * g.segs_x;
    ops.st(&image_counts[b], ops.ld(&g.seg_zl[(b + 1) * per]) - ops.ld(&g.seg_zl[b * per]));
}

}  // namespace cclabel::cuda::detail
