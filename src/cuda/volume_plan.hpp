#pragma once
// The volume labeller's launch planner (src/cuda/volume_cuda.cu, kernels/volume_bodies.cuh): its
// grids and workspace offsets, computed on the host in 64-bit arithmetic. Pure, so CI tests it at
// sizes up to 2^32 - 1 voxels without a GPU, and the emulator launches exactly what the GPU does.
#include <cstdint>
#include <cstring>
#include <string>

#include "core/request.hpp"
#include "core/volume_request.hpp"
#include "cuda/kernels/volume_bodies.cuh"
#include "cuda/kernels/volume_runs.cuh"

namespace cclabel::cuda::detail {

/// Each idea of the volume kernels as a switch (the picture pipeline's Switches, cuda/tuning.hpp):
/// flipping one never changes the labels, only the time. bench_volume turns them off by name
/// (--off, or --each-off for a row with each one off); the emulator's tests run each one off.
struct VolumeSwitches {
    /// A voxel joins only the earlier neighbours of its value that no join it already made
    /// covers: once it joined neighbour k, every earlier neighbour adjacent to k is joined to it
    /// through k (kernels/volume_bodies.cuh, cover_mask). Neighbours are tried in the order that
    /// covers most first (under 26 the voxel below covers all twelve others), those in the tile
    /// first, so that Border makes only the joins Local could not. Off: a voxel skips only the
    /// neighbours its left neighbour covers when that has its value (covered_by_left).
    bool cover = true;
    /// With cover, Local first stores each voxel's first join as its parent (a plain store, then
    /// a barrier) and makes atomic unions only for the joins after it (kernels/volume_bodies.cuh).
    /// Off: every join an atomic union.
    bool prelink = true;
    /// Exact labelling by runs along x instead of voxels (kernels/volume_runs.cuh): Start,
    /// Connect, Flatten and Number over 32-voxel row segments in place of Local, Border, Flatten
    /// and Number (cover, prelink and the tiles then play no part). A tolerance keeps the voxel
    /// kernels. Off by default until it is measured on a GPU: bench_volume --on runs turns it on.
    bool runs = false;
};

/// The names of VolumeSwitches' members, as --off, --on and the tests take them.
inline constexpr const char* kVolumeSwitchNames[] = {"cover", "prelink", "runs"};

/// The switch called @p name; null when there is none of that name.
inline bool* volume_switch(VolumeSwitches& s, const char* name) {
    return std::strcmp(name, "cover") == 0     ? &s.cover
           : std::strcmp(name, "prelink") == 0 ? &s.prelink
           : std::strcmp(name, "runs") == 0    ? &s.runs
                                               : nullptr;
}

/// Turns off the switch called @p name; false when there is none of that name.
inline bool volume_switch_off(VolumeSwitches& s, const char* name) {
    bool* flag = volume_switch(s, name);
    if (flag) *flag = false;
    return flag != nullptr;
}

/// Turns on the switch called @p name (bench_volume --on); false when there is none of that name.
inline bool volume_switch_on(VolumeSwitches& s, const char* name) {
    bool* flag = volume_switch(s, name);
    if (flag) *flag = true;
    return flag != nullptr;
}

/// The shape of the volume labeller's launches. Tiles of Local and Border are tile_x × tile_y ×
/// tile_z voxels (at most kVolumeMaxTileVoxels: the shared arrays), per_thread voxels a thread
/// (at most 512 threads on the GPU, 1024 in the emulator); on the GPU tile_x is a multiple of the
/// warp, and so are the threads.
struct VolumeShape {
    /// 2048 voxels, 4 a thread: Border's work and the joins through global memory scale with the
    /// voxels on the tiles' faces they look back through (the first slice, the first and last
    /// rows and columns), about 0.44 a voxel here against 0.81 in the 32 × 4 × 4 tiles of one
    /// voxel a thread before per_thread (bench_volume --tile 32x4x4/1 measures those).
    std::uint32_t tile_x = 32, tile_y = 8, tile_z = 8;
    std::uint32_t voxel_threads = 256;  ///< threads a block of the voxel-wise kernels (Flatten, Number)
    std::uint32_t warp_w = 32;          ///< Flatten's root bits are one word a warp: 32 on the GPU
    /// Voxels a thread of Local and Border: thread i takes the tile's voxels i, i + threads, ...
    /// A tile of 512 threads is then per_thread times larger, so fewer of its voxels lie on its
    /// faces (Border's work) and fewer joins cross tiles through global memory.
    std::uint32_t per_thread = 4;
    VolumeSwitches switches{};
    /// switches.runs: segments a thread of the run kernels takes down z (vruns::for_strip), and
    /// their blocks' threads (a multiple of 32 on the GPU).
    std::uint32_t run_strip = 8, run_threads = 256;
};

/// The most voxels a tile: Local's shared parents and keys, 8 bytes a voxel (16 KiB).
inline constexpr std::uint32_t kVolumeMaxTileVoxels = 2048;

/// The most threads a block of the run kernels on the GPU (their launch bounds).
inline constexpr std::uint32_t kVolumeMaxRunThreads = 256;

/// The shape for a volume of @p depth slices: @p s (VolumeShape{} by default), its tiles cut down to
/// the smallest power of two of slices that holds the volume (fewer voxels a thread first, then
/// fewer threads), so that a stack of one to four slices does not leave most of each tile's
/// threads outside the volume (32 × 8 × 1 tiles, one voxel a thread, for one slice).
inline VolumeShape volume_shape_for_depth(std::uint64_t depth, VolumeShape s = {}) {
    while (s.tile_z > 1 && s.tile_z / 2 >= depth) {
        s.tile_z /= 2;
        if (s.per_thread > 1) s.per_thread /= 2;
    }
    return s;
}

/// The public call's shape for a volume of @p depth slices and @p connectivity: 26-connected
/// volumes take volume_shape_for_depth's 32 × 8 × 8 tiles of four voxels a thread; 6- and
/// 18-connected ones the 32 × 4 × 4 tiles of one voxel a thread (cut down the same way for thin
/// volumes). On the H100 (512³, 2026-12-07, bench_volume --tile 32x4x4/1,32x8x8/4) the large tiles
/// were faster on 5 of the 7 volumes at 26 (blobs 9.3 against 10.5 ms, Voronoi 8.5 against 10.1)
/// but slower on 6 of 7 at 6 (binary 0.5: 8.9 against 7.8 ms) and at 18 (5 labels: 19.5 against
/// 16.7); every row in bench/RESULTS.md, "sixteenth session (second run)".
inline VolumeShape volume_shape_for(std::uint64_t depth, int connectivity) {
    if (connectivity == 26) return volume_shape_for_depth(depth);
    VolumeShape s{};
    s.tile_y = 4;
    s.tile_z = 4;
    s.per_thread = 1;
    return volume_shape_for_depth(depth, s);
}

struct VolumePlan {
    std::uint64_t voxels = 0;
    std::uint64_t tiles_x = 0, tiles_y = 0, tiles_z = 0, tiles = 0;
    std::uint32_t tile_threads = 0, tile_voxels = 0;
    std::uint32_t steps = 1;  ///< Border's blocks a tile (per_thread): its grid is tiles × steps
    std::uint64_t voxel_blocks = 0;  ///< Flatten and Number: one thread a voxel
    std::uint64_t words = 0;         ///< root bits: one word a 32 voxels
    // Workspace (bytes from its start): root bits, the per-word root counts (words + 1, scanned in
    // place: the last is N), CUB's scratch.
    std::uint64_t off_mask = 0, off_prefix = 0, off_scan_temp = 0;
    std::uint64_t scan_items = 0;
    std::uint64_t scan_temp_bytes = 0;
    std::uint64_t workspace_bytes = 0;
    // switches.runs (kernels/volume_runs.cuh): segments of 32 voxels along x; the root bits and
    // counts above are then a word a segment (words = segments), and two more words a segment
    // hold the node and background masks.
    bool runs = false;
    std::uint64_t segs_x = 0, segments = 0;
    std::uint64_t run_strips = 0;  ///< threads of the run kernels: a strip of run_strip segments each
    std::uint64_t run_blocks = 0;
    std::uint64_t off_seg_s = 0, off_seg_bg = 0;
    std::string error;  ///< non-empty when the call cannot be launched (says why)
};

inline constexpr std::uint64_t kVolumeAlign = 256;
inline constexpr std::uint64_t kVolumeMaxGrid = 0x7FFFFFFFull;

/// Plans a width × height × depth volume (validated: at most 2^32 - 1 voxels). @p scan_temp_bytes
/// is what CUB asks to scan scan_items words (plan once with 0 to learn scan_items).
inline VolumePlan plan_volume(std::uint64_t width, std::uint64_t height, std::uint64_t depth, const VolumeShape& s,
                              std::uint64_t scan_temp_bytes, bool for_gpu = true) {
    auto up = [](std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; };
    VolumePlan p;
    const std::uint64_t v = std::uint64_t(s.tile_x) * s.tile_y * s.tile_z;
    const std::uint64_t t = s.per_thread ? v / s.per_thread : 0;
    // On the GPU at most 512 threads a tile: the kernels' launch bounds.
    if (s.tile_x == 0 || s.tile_y == 0 || s.tile_z == 0 || v > kVolumeMaxTileVoxels)
        p.error = "tile of 1 to 2048 voxels";
    else if (s.per_thread == 0 || v % s.per_thread != 0 || t > (for_gpu ? 512u : 1024u))
        p.error = for_gpu ? "per_thread must divide the tile's voxels into 1 to 512 threads on the GPU"
                          : "per_thread must divide the tile's voxels into 1 to 1024 threads";
    else if (s.voxel_threads == 0 || s.voxel_threads > 1024 || s.warp_w == 0 || s.voxel_threads % s.warp_w != 0)
        p.error = "voxel_threads must be a multiple of warp_w, at most 1024";
    else if (for_gpu && (s.warp_w != 32 || s.tile_x % 32 != 0 || t % 32 != 0))
        p.error = "warp_w, tile_x and the tile's threads must be 32 (or a multiple) on the GPU";
    else if (s.warp_w != 32) p.error = "warp_w must be 32: a word of root bits is a warp's vote";
    else if (width > 0xFFFFFFFFull || height > 0xFFFFFFFFull || depth > 0xFFFFFFFFull ||
             (width && height && depth && (height > 0xFFFFFFFFull / width || depth > 0xFFFFFFFFull / (width * height))))
        p.error = "more than 2^32 - 1 voxels";
    if (!p.error.empty()) return p;
    p.voxels = width * height * depth;
    if (p.voxels == 0) return p;
    p.tiles_x = (width + s.tile_x - 1) / s.tile_x;
    p.tiles_y = (height + s.tile_y - 1) / s.tile_y;
    p.tiles_z = (depth + s.tile_z - 1) / s.tile_z;
    p.tiles = p.tiles_x * p.tiles_y * p.tiles_z;
    p.tile_threads = std::uint32_t(t);
    p.tile_voxels = std::uint32_t(v);
    p.steps = s.per_thread;  // ≤ 2048, within gridDim.y
    p.voxel_blocks = (p.voxels + s.voxel_threads - 1) / s.voxel_threads;
    if (p.tiles > kVolumeMaxGrid || p.voxel_blocks > kVolumeMaxGrid) {
        p.error = "too many tiles for one grid";
        return p;
    }
    p.words = (p.voxels + 31) / 32;
    if (s.switches.runs) {
        if (s.run_strip == 0 || s.run_threads == 0 || s.run_threads > 1024 ||
            (for_gpu && (s.run_threads % 32 != 0 || s.run_threads > kVolumeMaxRunThreads))) {
            p.error = "run_strip must be at least 1, run_threads 1 to 1024 (on the GPU a multiple of 32, at most 256)";
            return p;
        }
        p.runs = true;
        p.segs_x = (width + vruns::kSeg - 1) / vruns::kSeg;
        p.segments = p.segs_x * height * depth;  // ≤ voxels
        p.run_strips = p.segs_x * height * ((depth + s.run_strip - 1) / s.run_strip);
        p.run_blocks = (p.run_strips + s.run_threads - 1) / s.run_threads;
        if (p.run_blocks > kVolumeMaxGrid) {
            p.error = "too many segments for one grid";
            return p;
        }
        p.words = p.segments;
    }
    p.scan_items = p.words + 1;
    p.off_mask = 0;
    p.off_prefix = up(4 * p.words, kVolumeAlign);
    p.off_scan_temp = p.off_prefix + up(4 * p.scan_items, kVolumeAlign);
    if (p.runs) {
        p.off_seg_s = p.off_scan_temp;
        p.off_seg_bg = p.off_seg_s + up(4 * p.segments, kVolumeAlign);
        p.off_scan_temp = p.off_seg_bg + up(4 * p.segments, kVolumeAlign);
    }
    p.scan_temp_bytes = scan_temp_bytes;
    p.workspace_bytes = up(p.off_scan_temp + scan_temp_bytes, kVolumeAlign);
    return p;
}

/// Whether a validated volume request is labelled with a tolerance (CloseKeys): Binary8's one
/// foreground value is labelled exactly whatever the tolerance, as on the CPU.
inline bool volume_tolerance(const cclabel::detail::VolumeRequest& r) {
    return r.tolerance != 0 && r.format != PixelFormat::Binary8;
}

/// @p s as request @p r is labelled with it: the run kernels (switches.runs) label exactly, so a
/// tolerance (untyped or typed) keeps the voxel kernels and their plan.
inline VolumeShape shape_for_request(const cclabel::detail::VolumeRequest& r, VolumeShape s) {
    if (volume_tolerance(r) || r.tolerance_value > 0) s.switches.runs = false;
    return s;
}

/// A typed picture with a tolerance (Request::tolerance_value > 0) as the GPU labels it: a volume
/// of one slice under the volume programs with CloseValues, whose joins read the typed values (the
/// picture pipeline's shared keys are 32-bit words, and a 64-bit or float value has no key that
/// keeps its distances). 4-connectivity is 6 there and 8 is 26 (in one slice the other offsets
/// lie outside the volume). Its VolParams take tolerance_value and background_bits on top.
struct TypedPicture {
    cclabel::detail::VolumeRequest volume;
    double tolerance_value = 0;
    std::uint64_t background_bits = 0;
};

inline TypedPicture typed_picture(const cclabel::detail::Request& r) {
    TypedPicture p;
    cclabel::detail::VolumeRequest& v = p.volume;
    v.data = r.data;
    v.width = r.width;
    v.height = r.height;
    v.depth = r.pixels() ? 1 : 0;
    v.row_stride = r.stride;
    v.slice_stride = r.stride * r.height;
    v.format = r.format;
    v.connectivity = r.connectivity == 4 ? 6 : 26;
    v.has_background = r.has_background;
    v.background_key = r.background_key;
    v.threads = 1;
    p.tolerance_value = r.tolerance_value;
    p.background_bits = r.background_bits;
    return p;
}

/// The launch shape of a typed picture's labelling: one slice, 32 x 16 voxels a tile (one a thread).
inline VolumeShape typed_picture_shape() {
    VolumeShape s{};
    s.tile_x = 32;
    s.tile_y = 16;
    s.tile_z = 1;
    s.per_thread = 1;
    return s;
}

namespace vol {

/// The programs' parameters for a validated request of an untyped format and its plan.
inline VolParams make_vol_params(const cclabel::detail::VolumeRequest& r, const VolumePlan& plan, const VolumeShape& s,
                                 std::uint32_t* labels, std::uint32_t* mask, std::uint32_t* prefix) {
    VolParams g;
    g.data = r.data;
    g.row_stride = r.row_stride;
    g.slice_stride = r.slice_stride;
    g.width = std::uint32_t(r.width), g.height = std::uint32_t(r.height), g.depth = std::uint32_t(r.depth);
    g.voxels = plan.voxels;
    g.labels = labels;
    g.mask = mask;
    g.prefix = prefix;
    g.tile_x = s.tile_x, g.tile_y = s.tile_y, g.tile_z = s.tile_z;
    g.tile_threads = plan.tile_threads, g.tile_voxels = plan.tile_voxels;
    g.prelink = s.switches.prelink;
    g.tiles_x = std::uint32_t(plan.tiles_x), g.tiles_y = std::uint32_t(plan.tiles_y);
    g.fd_tile_x = FastDiv(s.tile_x);
    g.fd_tile_xy = FastDiv(s.tile_x * s.tile_y);
    g.fd_tiles_x = FastDiv(g.tiles_x);
    g.fd_tiles_xy = FastDiv(std::uint32_t(plan.tiles_x * plan.tiles_y));  // ≤ tiles < 2^31
    // Binary8's keys are 0 and 1, and 0 is always its background.
    g.has_background = r.has_background || r.format == PixelFormat::Binary8;
    g.background_key = r.format == PixelFormat::Binary8 ? 0u : r.background_key;
    g.tolerance = r.tolerance;
    return g;
}

}  // namespace vol

namespace vruns {

/// The run kernels' parameters (switches.runs) for a validated request of an untyped format, its
/// plan and the workspace @p ws it planned.
inline RunParams make_run_params(const cclabel::detail::VolumeRequest& r, const VolumePlan& plan, const VolumeShape& s,
                                 std::uint32_t* labels, std::uint8_t* ws) {
    RunParams g;
    g.data = r.data;
    g.row_stride = r.row_stride;
    g.slice_stride = r.slice_stride;
    g.width = std::uint32_t(r.width), g.height = std::uint32_t(r.height), g.depth = std::uint32_t(r.depth);
    g.voxels = plan.voxels;
    g.labels = labels;
    g.roots = reinterpret_cast<std::uint32_t*>(ws + plan.off_mask);
    g.counts = reinterpret_cast<std::uint32_t*>(ws + plan.off_prefix);
    g.seg_s = reinterpret_cast<std::uint32_t*>(ws + plan.off_seg_s);
    g.seg_bg = reinterpret_cast<std::uint32_t*>(ws + plan.off_seg_bg);
    g.segs_x = std::uint32_t(plan.segs_x);
    g.segs_xy = std::uint32_t(plan.segs_x * std::uint64_t(r.height));  // ≤ voxels < 2^32
    g.strip = s.run_strip;
    g.strips = plan.run_strips;
    g.fd_width = FastDiv(g.width);
    g.fd_segs_x = FastDiv(g.segs_x);
    g.fd_segs_xy = FastDiv(g.segs_xy);
    // Binary8's keys are 0 and 1, and 0 is always its background.
    g.has_background = r.has_background || r.format == PixelFormat::Binary8;
    g.background_key = r.format == PixelFormat::Binary8 ? 0u : r.background_key;
    return g;
}

}  // namespace vruns
}  // namespace cclabel::cuda::detail
