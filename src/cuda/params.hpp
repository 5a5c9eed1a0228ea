#pragma once
// The kernels' parameters for one call, from the validated request and its launch plan. The GPU
// launcher and the CPU executor in tests/emu both build them here, so that what CI emulates and
// what the GPU runs cannot drift apart; each caller then points them at its own buffers.
#include "core/request.hpp"
#include "cuda/kernels/bodies.cuh"
#include "cuda/kernels/segments.cuh"
#include "cuda/launch.hpp"
#include "cuda/tuning.hpp"

namespace cclabel::cuda::detail {

inline Params make_params(const cclabel::detail::Request& r, const LaunchPlan& plan, const Tuning& tuning) {
    Params g;
    g.img = r.data;
    g.stride = r.stride;
    g.width = plan.width;
    g.height = plan.height;
    g.pixels = plan.pixels;
    g.tile_w = tuning.shape.tile_w;
    g.tile_h = tuning.shape.tile_h;
    g.warp_w = tuning.shape.warp_w;
    g.number_tile = tuning.shape.number_tile;
    g.number_ppt = tuning.shape.number_ppt;
    g.rows_per_thread = plan.rows_per_thread;
    g.tiles_x = std::uint32_t(plan.tiles_x);
    g.tiles = plan.tiles;
    g.flag = plan.wide || plan.segments ? 0u : kFlag;  // the segment path needs no flag
    g.background = plan.wide ? kWideBackground : 0u;
    g.has_background = r.has_background;
    g.background_key = r.background_key;
    g.connectivity = r.connectivity;
    g.tolerance = r.tolerance;
    g.sw = tuning.switches;
    g.fd_tile_w = FastDiv(g.tile_w);
    g.fd_tiles_x = FastDiv(g.tiles_x ? g.tiles_x : 1);
    g.fd_warp_w = FastDiv(g.warp_w);
    g.fd_number_tile = FastDiv(g.number_tile);
    g.fd_width = FastDiv(g.width ? g.width : 1);
    g.fd_border = FastDiv(g.tile_w + g.tile_h - 1);
    g.seg_w = tuning.shape.seg_w;
    g.segs_x = std::uint32_t(plan.segs_x);
    g.segs = plan.segs;
    g.seg_rows = tuning.shape.seg_rows;
    g.seg_strips = plan.seg_strips;
    g.quads_x = std::uint32_t(plan.quads_x);
    g.quads = plan.quads;
    g.fd_quads_x = FastDiv(g.quads_x ? g.quads_x : 1);
    g.fd_seg_w = FastDiv(g.seg_w);
    g.fd_segs_x = FastDiv(g.segs_x ? g.segs_x : 1);
    g.seg_carry = plan.carry;
    g.seg_warp_carry = plan.warp_carry;
    // Start writes every C only in its span form, and only Resolve's path reads labels from nodes.
    g.carry_labels = tuning.switches.seg_carry_labels && plan.warp_carry && plan.quad;
    g.start_lanes_x = std::uint32_t(plan.start_lanes_x);
    g.start_lanes = plan.start_lanes_x * plan.height;
    g.fd_start_lanes_x = FastDiv(g.start_lanes_x ? g.start_lanes_x : 1);
    g.number_px = tuning.shape.number_px;
    g.number_in_segment = g.seg_w % g.number_px == 0;
    // Whole groups of 8 in whole warps of a power-of-two width, so a warp's pixels are contiguous.
    g.number_transpose = tuning.switches.seg_number_transpose && g.number_px == 8 && g.number_in_segment &&
                         g.width % 8 == 0 && g.warp_w >= 2 && (g.warp_w & (g.warp_w - 1)) == 0 &&
                         tuning.shape.seg_threads % g.warp_w == 0;
    g.fd_seg_span = FastDiv(tuning.shape.seg_span ? tuning.shape.seg_span : 1);
    // Start zeroes whole background segments in its span warps (segments of 32, so a span's quads are
    // 8 a segment), and only the transposed Number knows to skip them.
    g.start_zeroes = tuning.switches.seg_start_zeroes && plan.warp_carry && plan.quad && g.number_transpose &&
                     g.seg_w == kMaxSeg;
    return g;
}

/// Makes @p g a batch of images of @p image_h rows stacked (its height a multiple of image_h); the
/// caller points image_base at the Batch Base kernel's output before Number.
inline void set_batch(Params& g, std::uint32_t image_h) {
    g.image_h = image_h;
    g.image_pixels = g.width * image_h;  // < 2^31: stacks stay below 2^31 pixels
    g.fd_image_h = FastDiv(image_h);
    g.fd_image_pixels = FastDiv(g.image_pixels ? g.image_pixels : 1);
}

}  // namespace cclabel::cuda::detail
