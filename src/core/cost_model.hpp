#pragma once
// Backend::Auto for pictures in host memory: estimate what the call would cost on each backend on
// this machine and take the cheaper one. The CPU labels in place; the GPU's host path copies the
// picture in, labels it and copies the labels out, so for a host picture it wins only where its
// labelling rate repays the copies and its fixed cost (allocations, launches, synchronisation).
// Both sides are affine in the picture: seconds = fixed + pixels × per-pixel + bytes × per-byte.
//
// The rates are this machine's, measured once in the process on first use (src/core/auto_rates.cpp)
// or given in CCLABEL_RATES; nothing here is tuned on one card. Ties and unknowns go to the CPU: it
// needs no device context and is always there. Data already on the GPU never comes here: the device
// API and the Python package label it where it is (the ecosystem's rule: CuPy, OpenCV's T-API and
// kornia follow the data).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::detail {

struct Request;  // core/request.hpp

/// What Auto decides for: the operation, its size and where its data is.
struct Workload {
    enum class Op { Label, Tolerance, Stats, Filter, Segment, Adjacency, Volume };
    Op op = Op::Label;
    std::uint64_t pixels = 0;       ///< of the largest single launch (a tile, an image, a whole batch)
    PixelFormat format = PixelFormat::Gray8;
    int threads = 1;                ///< the CPU threads the call would use (resolved, ≥ 1)
    /// The call's picture, when Auto may look at it (label()): the CPU's speed depends on what the
    /// picture holds (noise labels ten times slower than a drawing of the same size), the GPU's
    /// much less. Null: the picture is taken to be like the probe.
    const Request* picture = nullptr;
    /// The picture's break density (core/probe.hpp), when known (resolve_auto measures it from
    /// `picture` for close calls); negative: unknown, the probe's is assumed.
    double density = -1;
    /// The share of the picture's runs that are its background, sampled with the density (0: no
    /// background, or not looked at). The CPU's run path skips a background run's joins with the
    /// row above (cpu/run_rows.hpp): a 50 dpi drawing labelled 1.3-1.7x faster with its paper as
    /// background at the same density. The GPU's kernels skip background pixels too, but its host
    /// path's time is mostly the copies, which move every pixel and label alike, so its estimate
    /// takes no discount.
    double background_share = 0;
    /// Images of a batch (label_batch), each of about pixels / images: the CPU labels them side by
    /// side, an image a thread while there are more images than threads, so it pays a call's fixed
    /// cost once a round of images, not once. 1: one picture.
    std::uint64_t images = 1;
    /// A volume's connectivity (Op::Volume: 6, 18 or 26; `pixels` are its voxels and `picture`
    /// its slices one under another, or its first slice): the CPU's rate is measured at it, as the
    /// work a voxel does grows with its neighbours. 0 for pictures.
    int connectivity = 0;
};

/// Above this break density (runs shorter than four pixels on average) the CPU labels a picture
/// pixel by pixel (label_cpu.cpp's kRunLengthMin), where a background saves no joins of runs.
inline constexpr double kRunPathDensity = 0.25;

/// Seconds = fixed + pixels × per-pixel on the CPU, at one format and thread count. A run-based
/// labeller's per-pixel cost grows with the picture's break density (the share of neighbouring
/// pixels that differ: a drawing's paper a few percent, noise one half), so it is measured at three
/// densities (probes of 64 × 64 blocks, 8 × 8 blocks and noise) and read off the line through them;
/// without knots (a given rate) per_pixel_s is the whole rate.
struct CpuRate {
    double fixed_s = 0;
    double per_pixel_s = 0;     ///< at probe_density, for a picture not looked at
    double probe_density = 0;
    int knots = 0;              ///< 0, or 3: (density, per-pixel) at each probe, densities rising
    double knot_density[3] = {0, 0, 0};
    double knot_per_pixel[3] = {0, 0, 0};
    /// Per-pixel seconds at @p density: the line through the knots (flat outside them). With
    /// @p background_share of the runs background, on the run path (density below kRunPathDensity),
    /// less that share of the line's rise above the sparsest knot: what the knots add to the pass
    /// over the pixels is the runs' work, and a background run's joins, the costly part of it, are
    /// skipped. (Timed, the probes themselves saved almost nothing with one of their values as
    /// background, their rows mostly repeating the row above, which joins nothing anyway; the
    /// drawings that do save, and noise, which the pixel path labels a little slower with a
    /// background, would not have been told apart by them.)
    double per_pixel_at(double density, double background_share = 0) const noexcept;
};
/// The GPU's host path: seconds = fixed + pixels × per_pixel + bytes copied × per_byte. The path
/// stages every copy through its own pinned buffers, so the kind of host memory the picture is in
/// does not change its rate; one per-byte rate serves both.
struct GpuHostRate {
    double fixed_s = 0;
    double per_pixel_s = 0;  ///< labelling on the device
    double per_byte_s = 0;   ///< copies in and out
};

/// Bytes one pixel of @p w moves to and from the GPU (picture in, labels out; statistics and
/// filters move the labels in too).
std::uint64_t bytes_per_pixel_moved(const Workload& w) noexcept;

/// Estimated seconds on the CPU (@p r the rate at w.threads threads) and on the GPU. A picture larger than the GPU's memory goes through
/// it in tiles (label_cuda_host), moving the same bytes: the same estimate holds.
double cpu_seconds(const Workload& w, const CpuRate& r) noexcept;
double gpu_seconds(const Workload& w, const GpuHostRate& r) noexcept;

/// Whether the picture's density and background could change the decision between the CPU and
/// @p gpu_s seconds on the GPU: the CPU's estimate over every density and background share (its
/// sparsest knot with all runs background, up to its densest) straddles @p gpu_s. Where it does
/// not, resolve_auto decides without sampling the picture (the decision took about 10 us of a 128² call,
/// a 4,096-pixel sample among it, H100 host, 2026-12-07).
bool density_can_decide(const Workload& w, const CpuRate& cpu, double gpu_s) noexcept;

/// The decision from given rates. No GPU rate (no device, or it could not be measured) or a
/// CPU-only workload: the CPU. Otherwise the GPU only when strictly cheaper.
Backend choose_backend(const Workload& w, const CpuRate& cpu, const std::optional<GpuHostRate>& gpu) noexcept;

/// Rates given in the environment (CCLABEL_RATES), parsed from a text such as
///   "cpu_gpxs=1.5,cpu_fixed_us=5,gpu_gpxs=40,gpu_fixed_us=200,copy_gbs=12"
/// (any subset; Gpx/s = 1e9 pixels a second, GB/s = 1e9 bytes a second, in and out alike) or "cpu"
/// / "cuda" to force a backend. A rate given for a side spares that side's measurement. Throws
/// Error naming the variable and the bad item.
struct GivenRates {
    std::optional<Backend> force;
    std::optional<double> cpu_gpxs, cpu_fixed_us, gpu_gpxs, gpu_fixed_us, copy_gbs;
};
GivenRates parse_rates(const std::string& text);

/// The CPU's rate for @p op on this machine at @p format and @p threads, measured on the probe
/// pictures (core/probe.hpp); 5-8 ms for RGB8 at 2 threads on the 2-core build machine. Op::Volume
/// labels probe volumes at @p connectivity.
CpuRate measure_cpu_rate(Workload::Op op, PixelFormat format, int threads, int connectivity = 0);

/// Applies the given rates over measured ones.
CpuRate with_given(CpuRate r, const GivenRates& g) noexcept;
GpuHostRate with_given(GpuHostRate r, const GivenRates& g) noexcept;

}  // namespace cclabel::detail
