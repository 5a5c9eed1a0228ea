#pragma once
// The launch planner: every size, grid and workspace offset of a CUDA labelling call, computed on
// the host in 64-bit arithmetic from the picture's size and the launch shape. Pure, so CI tests it
// at sizes up to 2^32 − 1 pixels and at the grid limits without a GPU.
#include <cstdint>
#include <string>

#include "cuda/tuning.hpp"

namespace cclabel::cuda::detail {

inline constexpr std::uint64_t kMaxGridX = 0x7FFFFFFFull;  // gridDim.x limit (compute capability ≥ 3.0)
inline constexpr std::uint64_t kWorkspaceAlign = 256;
/// The segment pipeline's per-segment words: S, G, Zin, Zl, Zr (segments.cuh) and C (seg_carry).
inline constexpr std::uint64_t kSegArrays = 6;
/// Below this many pixels every index fits in 31 bits, so parent pointers carry a flag bit and
/// numbering needs no memory beyond the per-tile counts.
inline constexpr std::uint64_t kFlagPathLimit = std::uint64_t(1) << 31;

struct LaunchPlan {
    std::uint64_t pixels = 0;
    std::uint32_t width = 0, height = 0;
    LaunchShape shape{};
    std::uint64_t tiles_x = 0, tiles_y = 0, tiles = 0;  ///< Start/Connect tiles
    std::uint32_t tile_threads = 0;   ///< tile_w × tile_h: one thread a pixel (Connect, fused Start)
    std::uint32_t rows_per_thread = 1;  ///< of Start's own kernel (see LaunchShape::rows_per_thread)
    std::uint32_t start_threads = 0;  ///< tile_threads / rows_per_thread
    std::uint64_t border_blocks = 0;  ///< Connect with tile_union_find: tile_w + tile_h − 1 threads a tile, tile_threads a block
    std::uint64_t number_tiles = 0;  ///< Number blocks, one count each
    std::uint32_t number_threads = 0;
    bool wide = false;               ///< numbering through the root bitmask (≥ 2^31 pixels or forced)
    bool segments = false;           ///< the segment pipeline (Switches::segment_runs)
    std::uint64_t segs_x = 0, segs = 0;  ///< segments a row, in all
    std::uint64_t seg_strips = 0;        ///< threads: strips of seg_rows segments of one column
    std::uint64_t seg_blocks = 0;        ///< of shape.seg_threads threads, one a strip
    std::uint64_t quads_x = 0, quads = 0;  ///< seg_quad_number's Number: shape.number_px pixels a thread
    std::uint64_t quad_blocks = 0;         ///< of shape.seg_threads threads
    bool quad = false;                     ///< Resolve, then Number number_px pixels a thread
    bool carry = false;                    ///< Switches::seg_carry in effect (needs quad)
    bool warp_carry = false;               ///< carry found by Start's warps (Switches::seg_warp_carry); else the Carry kernel runs
    std::uint64_t start_lanes_x = 0;       ///< warp_carry: Start threads a row (segs_x rounded up to whole spans)
    std::uint64_t start_blocks = 0;        ///< Start's blocks of shape.seg_threads threads
    std::uint64_t off_seg = 0;           ///< kSegArrays arrays of seg_words uint32 (S, G, Zin, Zl, Zr, C)
    std::uint64_t seg_words = 0;         ///< segs + 1, rounded up to the workspace alignment
    std::uint64_t scan_items = 0;        ///< what CUB scans: number_tiles + 1, or segs + 1
    // Workspace layout (bytes from the workspace start). [zero_begin, zero_end) is cleared per call.
    std::uint64_t off_counts = 0;   ///< number_tiles + 1 uint32 (scanned in place; the last is N)
    std::uint64_t off_done = 0;     ///< tiles uint32: Start of a tile is published
    std::uint64_t off_tickets = 0;  ///< 4 uint32: tile tickets of the ordered kernels
    std::uint64_t off_mask = 0;     ///< wide only: ceil(pixels / 32) uint32 root bits
    std::uint64_t mask_words = 0;
    std::uint64_t zero_end = 0;
    std::uint64_t off_scan_temp = 0;  ///< CUB's temporary storage
    std::uint64_t scan_temp_bytes = 0;
    std::uint64_t workspace_bytes = 0;
    std::string error;  ///< non-empty when the call cannot be launched (says why)
};

inline std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

/// Checks @p s: a human-readable reason when it cannot run on a GPU, else "". @p for_gpu also
/// demands the warp width of real hardware.
inline std::string check_shape(const LaunchShape& s, bool for_gpu) {
    if (s.warp_w == 0 || s.warp_w > 32) return "warp_w must be 1..32";
    if (s.tile_w == 0 || s.tile_h == 0 || s.tile_w % s.warp_w != 0) return "tile_w must be a positive multiple of warp_w";
    if (std::uint64_t(s.tile_w) * s.tile_h > 1024) return "tile_w * tile_h must be at most 1024";
    if (s.number_ppt == 0 || s.number_ppt > 4) return "number_ppt must be 1..4";
    if (s.rows_per_thread == 0 || s.rows_per_thread > 8) return "rows_per_thread must be 1..8";
    if (s.seg_w == 0 || s.seg_w > 32) return "seg_w must be 1..32";
    if (s.seg_threads == 0 || s.seg_threads > 1024) return "seg_threads must be 1..1024";
    if (s.seg_rows == 0) return "seg_rows must be at least 1";
    if (s.seg_span == 0) return "seg_span must be at least 1";
    if (s.number_px == 0 || s.number_px > kMaxNumberPx)
        return "number_px must be 1.." + std::to_string(kMaxNumberPx);
    if (s.number_tile == 0 || s.number_tile % s.number_ppt != 0 || s.number_tile / s.number_ppt > 1024)
        return "number_tile must be a multiple of number_ppt, at most 1024 threads";
    if (for_gpu) {
        if (s.warp_w != 32) return "warp_w must be 32 on the GPU";
        if ((s.number_tile / s.number_ppt) % 32 != 0) return "number_tile / number_ppt must be a multiple of 32 on the GPU";
        // Start holds two rows of 32 keys in registers (about 96 a thread): at most 512 a block.
        if (s.seg_threads % 32 != 0 || s.seg_threads > 512) return "seg_threads must be a multiple of 32, at most 512, on the GPU";
    }
    return {};
}

/// Plans a call on a width × height picture (already validated: W·H ≤ 2^32 − 1). @p scan_temp_bytes
/// is what CUB asked for to scan the plan's scan_items counts (the caller plans once with 0 to learn
/// scan_items, queries CUB, and plans again; 0 in host tests).
/// The rows a Start thread owns for @p shape with @p switches: rows_per_thread where it applies
/// (see LaunchShape), else 1.
inline std::uint32_t start_rows(const LaunchShape& shape, const Switches& switches) {
    const std::uint32_t r = shape.rows_per_thread;
    if (r <= 1 || shape.tile_w != shape.warp_w || shape.tile_h % r != 0 || !switches.tile_union_find ||
        switches.fuse_start_connect)
        return 1;
    return r;
}

inline LaunchPlan plan_launch(std::uint64_t width, std::uint64_t height, const LaunchShape& shape, bool force_wide,
                              std::uint64_t scan_temp_bytes, bool for_gpu = true, const Switches& switches = {}) {
    LaunchPlan p;
    p.shape = shape;
    p.error = check_shape(shape, for_gpu);
    if (!p.error.empty()) return p;
    if (width > 0xFFFFFFFFull || height > 0xFFFFFFFFull || (width && height > 0xFFFFFFFFull / width)) {
        p.error = "more than 2^32 - 1 pixels";
        return p;
    }
    p.width = std::uint32_t(width);
    p.height = std::uint32_t(height);
    p.pixels = width * height;
    if (p.pixels == 0) return p;
    p.tiles_x = (width + shape.tile_w - 1) / shape.tile_w;
    p.tiles_y = (height + shape.tile_h - 1) / shape.tile_h;
    p.tiles = p.tiles_x * p.tiles_y;
    p.tile_threads = shape.tile_w * shape.tile_h;
    p.rows_per_thread = start_rows(shape, switches);
    p.start_threads = p.tile_threads / p.rows_per_thread;
    p.border_blocks = (p.tiles * (shape.tile_w + shape.tile_h - 1) + p.tile_threads - 1) / p.tile_threads;
    p.number_tiles = (p.pixels + shape.number_tile - 1) / shape.number_tile;
    p.number_threads = shape.number_tile / shape.number_ppt;
    p.segments = switches.segment_runs;
    p.quad = p.segments && switches.seg_quad_number;
    p.carry = p.quad && switches.seg_carry;
    p.warp_carry = p.carry && switches.seg_warp_carry && shape.seg_span == shape.warp_w && shape.seg_rows == 1 &&
                   shape.seg_threads % shape.warp_w == 0;
    p.wide = !p.segments && (force_wide || p.pixels >= kFlagPathLimit);
    p.segs_x = (width + shape.seg_w - 1) / shape.seg_w;
    p.segs = p.segs_x * height;
    p.seg_strips = p.segs_x * ((height + shape.seg_rows - 1) / shape.seg_rows);
    p.seg_blocks = (p.seg_strips + shape.seg_threads - 1) / shape.seg_threads;
    // Rows of few segments take a whole span of lanes each: past the grid's limits (a picture of
    // thousands of millions of narrow rows), the Carry kernel instead.
    if (p.warp_carry) {
        const std::uint64_t lanes = align_up(p.segs_x, shape.seg_span) * height;
        if (lanes > 0xFFFFFFFFull || (lanes + shape.seg_threads - 1) / shape.seg_threads > kMaxGridX) p.warp_carry = false;
    }
    p.start_lanes_x = p.warp_carry ? align_up(p.segs_x, shape.seg_span) : p.segs_x;
    p.start_blocks = p.warp_carry ? (p.start_lanes_x * height + shape.seg_threads - 1) / shape.seg_threads : p.seg_blocks;
    p.quads_x = (width + shape.number_px - 1) / shape.number_px;
    p.quads = p.quads_x * height;
    p.quad_blocks = (p.quads + shape.seg_threads - 1) / shape.seg_threads;
    p.scan_items = p.segments ? p.segs + 1 : p.number_tiles + 1;
    if (p.segments) {
        if (p.seg_blocks > kMaxGridX || p.seg_strips > 0xFFFFFFFFull || p.quad_blocks > kMaxGridX ||
            p.quads > 0xFFFFFFFFull) {
            p.error = "too many segments for one grid";
            return p;
        }
        // Six words a segment and CUB's scratch; nothing to clear (every word read was written
        // by an earlier kernel of the call: C only for the segments Carry gives one).
        p.seg_words = align_up(p.segs + 1, kWorkspaceAlign / 4);
        p.off_seg = 0;
        std::uint64_t o = kSegArrays * 4 * p.seg_words;
        p.zero_end = 0;
        p.off_scan_temp = o;
        p.scan_temp_bytes = scan_temp_bytes;
        p.workspace_bytes = align_up(o + scan_temp_bytes, kWorkspaceAlign);
        return p;
    }
    if (p.tiles > kMaxGridX || p.number_tiles > kMaxGridX || p.border_blocks > kMaxGridX) {
        p.error = "too many tiles for one grid";
        return p;
    }
    std::uint64_t o = 0;
    p.off_counts = o;
    o = align_up(o + 4 * (p.number_tiles + 1), kWorkspaceAlign);
    p.off_done = o;
    o = align_up(o + 4 * p.tiles, kWorkspaceAlign);
    p.off_tickets = o;
    o = align_up(o + 16, kWorkspaceAlign);
    if (p.wide) {
        p.mask_words = (p.pixels + 31) / 32;
        p.off_mask = o;
        o = align_up(o + 4 * p.mask_words, kWorkspaceAlign);
    }
    p.zero_end = o;
    p.off_scan_temp = o;
    p.scan_temp_bytes = scan_temp_bytes;
    o = align_up(o + scan_temp_bytes, kWorkspaceAlign);
    p.workspace_bytes = o;
    return p;
}

}  // namespace cclabel::cuda::detail
