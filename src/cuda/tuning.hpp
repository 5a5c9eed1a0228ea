#pragma once
// The CUDA backend's algorithm switches and launch shape: laboratory knobs for the tests, the CPU
// executor of the kernels (tests/emu) and the benchmarks, not part of the public API (a user's call
// always runs with the defaults; cuda/label_tuned.hpp takes a Tuning). Plain host types (no CUDA
// headers) so that code built without nvcc can name them.
#include <cstdint>

namespace cclabel::cuda {

/// Each idea of the CUDA labeller as a switch. Most default on (those off say why); flipping one never changes the
/// labels, only the time (the benchmark measures each one off in turn).
struct Switches {
    /// The segment pipeline (src/cuda/kernels/segments.cuh): a thread takes seg_w pixels of a row,
    /// finds their runs and their joins with the row above as bit masks, and the union-find, the
    /// root counting and the numbering work on runs, not pixels; every label is written once.
    /// Off: the pixel pipeline below (Start, Connect, Number, one thread a pixel), which the
    /// switches after this one tune; with it on, of those only skip_joins (the left join across a
    /// segment seam), path_halving and cached_loads apply.
    bool segment_runs = true;
    /// Segment pipeline: a Resolve kernel writes each run's label into its node's word, then Number
    /// takes LaunchShape::number_px pixels a thread and reads labels, so a warp's stores are
    /// contiguous (32 · number_px words).
    /// Off: Number takes a segment a thread (32 labels, 128 bytes, a warp's stores 128 bytes apart).
    bool seg_quad_number = true;
    /// Segment pipeline: a run that goes on from the segment to its left has no node of its own
    /// there: its pixels belong to the left segment's last node, which a Carry kernel finds for
    /// each such segment (a walk left over the segments' node masks, at most seg_span of them).
    /// A paper row then has a node every seg_span segments instead of one a segment (the 800 dpi
    /// sheet: 9 instead of 33 million nodes with the paper labelled), and no left joins but at the
    /// span starts. Needs seg_quad_number (Number a segment a thread reads only its own nodes).
    bool seg_carry = true;
    /// Segment pipeline, with seg_carry: Start finds each carried segment's node itself, so no
    /// Carry kernel runs. Each Start warp takes one span of a row (seg_span equal to the warp
    /// width, seg_rows 1); a carried segment's node is the last node of the nearest segment to its
    /// left in the span holding one, which one ballot and one shuffle give. Off (or another span or
    /// strip shape): the Carry kernel walks left over the node masks written by Start.
    bool seg_warp_carry = true;
    /// Segment pipeline, Number at 8 pixels a thread on pictures whose width is a multiple of 8: a
    /// warp exchanges its labels by shuffles so that each store instruction writes 512 contiguous
    /// bytes (a thread storing its own 8 pixels leaves 16-byte gaps between lanes). On the H200
    /// (fc0c651, 800 dpi) 5.39 / 4.39 ms against 5.55 / 4.71 ms off (bench/RESULTS.md). Off: each
    /// thread stores its own pixels.
    bool seg_number_transpose = true;
    /// Segment pipeline, Start with seg_warp_carry and segments of 32: a warp whose 32 segments are
    /// each one value over their 32 pixels and the 32 above (paper), told from the raw 16-byte
    /// words, takes every lane's masks from the three pixels beside its segment, with none of the
    /// 5 × 32 key comparisons. Decided for the whole warp: a lane-by-lane choice (tried, fc0c651)
    /// left lanes idle while the others compared and was slower. Off: every segment compares keys.
    bool seg_uniform_warps = true;
    /// Segment pipeline, Start with seg_warp_carry and segments of 32 (rows on 16 bytes, below the
    /// top row): the masks are compared 16 pixels at a time (segments.cuh, seg_masks_halves), so a
    /// thread holds 16 keys of each row instead of 32, and the Start kernel is built for at most
    /// 64 registers (two blocks of 512 threads a multiprocessor, twice the threads in flight).
    /// Off: the whole segment's keys are loaded at once.
    bool seg_start_halves = true;
    /// Segment pipeline, with seg_warp_carry and seg_quad_number: Start writes every segment's C
    /// (~0 when not carried) and a CarryLabels kernel after Resolve turns each carried segment's C
    /// from its node into that node's label, so Number loads a group's C together with its masks
    /// (one round trip to memory) instead of masks, then C, then the label (three): on a sheet
    /// with the paper labelled, most of Number's pixel groups lie in carried paper segments.
    /// CarryLabels takes 8 segments a thread. Off: Number follows C to the node's label itself.
    bool seg_carry_labels = true;
    /// Segment pipeline, with seg_warp_carry, segments of 32 and the transposed Number: Start's warp
    /// writes the labels (0) of every segment that is background throughout, with stores of 512
    /// contiguous bytes, and Number skips those segments' stores. With the paper as background
    /// about 95 % of the labels are such zeros: they are written while Start waits on the picture
    /// (Start reads 2.4 GB at about half the bandwidth at 800 dpi), instead of by Number, which
    /// then writes only the ink's segments. Off by default until measured on the GPU: the
    /// emulator and the GPU tests check its labels, bench_cuda's --flip measures it. Off: Number
    /// writes every label.
    bool seg_start_zeroes = false;
    /// Tolerance (Options::tolerance > 0) runs the segment pipeline (segments.cuh: runs are chains of
    /// close pixels, each run joins every upper run that some pixel of it is close to, once a
    /// stretch; Start and Connect instantiated apart, so the exact kernels are unchanged) when
    /// segment_runs is on for the call. Checked in the emulator against the tolerance flood fill
    /// (tests/emu/test_emu_tolerance_segments.cpp) and on the GPU (ToleranceCuda.*). The 800 dpi
    /// sheet with tolerance 64 on the device: 8.0 ms against 13.4 with the pixel pipeline, 1.64x
    /// exact labelling's 4.9 (H100, twentieth session). Off: for_tolerance takes the pixel pipeline
    /// with joins(). CCLABEL_CUDA_OFF=tolerance_segments turns it off for the whole process
    /// (label_cuda.cu), for bench_graph's A/B.
    bool tolerance_segments = true;
    /// Connect joins the row above (up-left, up, up-right) before the left neighbour, so a pixel
    /// attaches to a row that is mostly joined already instead of chaining along its own row.
    bool up_before_left = true;
    /// Start finds each warp's same-valued runs with one __ballot_sync: a pixel points at the first
    /// pixel of its run within the warp, and only a run's first lane joins left.
    bool warp_runs = true;
    /// Connect skips joins that another pixel already makes (8-conn: a pixel whose left neighbour
    /// has its value needs at most the up-right join; 4-conn: the up join is skipped when the left
    /// and up-left neighbours have its value).
    bool skip_joins = true;
    /// find() halves paths while walking, with the same atomicMin as the joins.
    bool path_halving = true;
    /// Background pixels get label 0 in Start and take part in nothing after. Off: they are
    /// labelled like any value and their region is mapped to 0 at the end.
    bool background_in_start = true;
    /// Start and Connect run as one kernel over tiles taken in raster order; a tile joins its
    /// neighbours once their Start is published. Off (the default: faster on the H200, see
    /// bench/RESULTS.md): two kernels, the picture read twice.
    bool fuse_start_connect = false;
    /// Start builds each tile's components with a union-find in shared memory (block-local), so
    /// every pixel points straight at its tile-component's first pixel; Connect then makes only the
    /// joins that leave the tile (its top row and left column), one thread per border pixel.
    bool tile_union_find = true;
    /// Roots are counted per Number tile by a Count kernel after Connect (plain loads, a block
    /// sum, one store per tile). Off (the default: with tile_union_find Start has one root per
    /// tile component left to count, and the extra read of the labels cost more than those
    /// atomics, bench/RESULTS.md): Start counts its roots with atomicAdd and every union
    /// subtracts one with another atomicAdd.
    bool count_after_connect = false;
    /// find() and Number's walks read parents with weak loads that may hit L1 (a stale parent is
    /// still an ancestor: parents only decrease); a walk that meets a root not numbered yet re-reads
    /// it from L2. Off: every hop is a relaxed device-scope load (an L2 round trip). Off by default
    /// since seg_carry: on the H200 at 5b36681 the 800 dpi sheet took 6.63 / 4.85 ms with it off
    /// against 7.2–7.5 / 6.4–7.4 ms with it on (paper labelled / background; bench/RESULTS.md).
    bool cached_loads = false;
    /// Start reads each pixel's value from the picture once into shared memory; the run vote and
    /// the tile's joins compare neighbours there. Off: every comparison re-reads the picture
    /// (an RGB8 neighbour is three byte loads, four neighbours and the vote a pixel).
    bool shared_keys = true;
    /// Start flattens the finished tile forest with plain shared loads, no path halving: the lanes
    /// of a run walk the same words, which shared memory broadcasts, where an atomicMin on each of
    /// them serialised the warp. Off: the flatten halves paths with atomicMin like the joins.
    bool plain_flatten = true;
    /// Number's walks write the label they found over every parent they passed (path
    /// compression), so the tile roots chained across the picture by Connect are walked once, not
    /// once per pixel's tile. Off: walks only read.
    bool compress_walks = true;
};

/// Launch geometry. tile_w × tile_h pixels per block of Start/Connect, one thread a pixel (or a
/// column of rows_per_thread pixels in Start); a warp
/// is warp_w consecutive pixels of one row. On the GPU warp_w is 32 and tile_w a multiple of 32,
/// tile_w × tile_h ≤ 1024. number_tile is the pixels per block (and per root count) of Number, each
/// thread taking number_ppt (1, 2 or 4) consecutive pixels; on the GPU number_tile / number_ppt is a
/// multiple of 32. The CPU executor of the kernels takes any small values (e.g. 4 × 2, warp 4).
struct LaunchShape {
    std::uint32_t tile_w = 32;
    std::uint32_t tile_h = 32;
    std::uint32_t warp_w = 32;
    std::uint32_t number_tile = 1024;
    std::uint32_t number_ppt = 4;
    /// Start with tile_union_find: each thread owns this many consecutive rows of one column of
    /// its tile, so the barriers, the tile arithmetic and the neighbour reads (the pixel above is
    /// the thread's own previous row; left and the row above's diagonals come by warp shuffles)
    /// are paid once for several pixels. Used where the tile is one warp wide (tile_w == warp_w),
    /// tile_h is a multiple of it, and Start runs as its own kernel with the tile union-find;
    /// otherwise Start takes one pixel a thread. At most 8.
    std::uint32_t rows_per_thread = 4;
    /// The segment pipeline: pixels of a row a thread (1..32; 32 on the GPU, where a full aligned
    /// segment is read with 16-byte loads), and threads a block (128: faster than 256 in both H200
    /// runs that compared them, 5.90 / 4.82 against 6.11 / 5.08 ms at 800 dpi; bench/RESULTS.md).
    std::uint32_t seg_w = 32;
    std::uint32_t seg_threads = 128;
    /// Segments of one column a thread takes, top to bottom (a strip): the row above is then in
    /// its registers, and its joins upward meet nodes it has just hung under their roots. Default 1:
    /// on the H200 strips of 16 were slower (800 dpi labelled 12.7 vs 10.0 ms; 100 dpi 2.5x slower).
    std::uint32_t seg_rows = 1;
    /// seg_carry: every seg_span-th segment of a row (counted from the row's start) keeps a node at
    /// its first pixel, so that a carried run is found at most seg_span − 1 segments to the left.
    std::uint32_t seg_span = 32;
    /// seg_quad_number's Number: consecutive pixels of a row a thread (1..16), stored as 16-byte
    /// words where aligned. More pixels a thread load each segment's masks and nodes once for
    /// more pixels and keep more stores in flight per load latency.
    std::uint32_t number_px = 8;
};

/// The most pixels a thread of the segment pipeline's Number takes (LaunchShape::number_px).
inline constexpr std::uint32_t kMaxNumberPx = 16;

/// Everything that tunes a call without changing its labels.
struct Tuning {
    Switches switches{};
    LaunchShape shape{};
    /// Test hook: use the numbering for images of 2^31 pixels or more (a root bitmask of one bit a
    /// pixel) also on small images, so that it is tested without a 9 GB picture.
    bool force_wide_numbering = false;
    /// label_batch_device: the most pixels one set of launches takes (images stacked into one
    /// picture); 0 means as many as stay below 2^31. Smaller values test and measure the chunking.
    std::uint64_t batch_stack_pixels = 0;
};

/// The public calls (label_device, label_batch_device, the host API's GPU path) label pictures and
/// stacks of fewer pixels than this with the pixel pipeline: its three launches beat the segment
/// pipeline's seven there. Measured on the H200 (2026-12-06, scripts/gpu_small_pipelines.sh) at 0.33
/// to 0.66 of the segment pipeline's time at 0.26 and 0.8 Mpx, 0.44 to 0.89 at 1 Mpx and 0.56 to 0.63
/// on 3.1 Mpx sheets; from 2^22 pixels it is mixed (0.76 to 1.64), as the H100's run of the day
/// before found at 3.1 and 4.2 Mpx.
/// The tuned calls run what they are given, so tests and benchmarks reach both pipelines at any size.
inline constexpr std::uint64_t kPixelPipelineBelow = std::uint64_t(1) << 22;

/// The defaults for a call of @p pixels pixels (kPixelPipelineBelow).
inline Tuning default_tuning(std::uint64_t pixels) {
    Tuning t;
    if (pixels < kPixelPipelineBelow) t.switches.segment_runs = false;
    return t;
}

/// @p t for a call with a tolerance. With tolerance_segments (and segment_runs) the segment pipeline,
/// whose tolerance Start and Connect compare closeness (segments.cuh's head comment lists the
/// shortcuts it drops or mends). Otherwise the pixel pipeline, whose Start and Connect compare
/// neighbours through `joins` (kernels/bodies.cuh), without the shortcuts that hold only when
/// joining is an equivalence of values: skipped joins (L joined to U through UL needs L ~ UL ~ U,
/// not L ~ U) and background pixels kept in the forest (a close foreground neighbour must never
/// reach them). Start takes one pixel a thread (start_tile_rows compares the keys it holds in
/// registers for equality). skip_joins, background_in_start and rows_per_thread are the pixel
/// pipeline's and set either way (the segment pipeline's tolerance Start never skips a left join).
inline Tuning for_tolerance(Tuning t) {
    if (!t.switches.tolerance_segments) t.switches.segment_runs = false;
    t.switches.skip_joins = false;
    t.switches.background_in_start = true;
    t.shape.rows_per_thread = 1;
    return t;
}

}  // namespace cclabel::cuda
