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
    enum class Op { Label, Stats, Filter, Segment };
    Op op = Op::Label;
    std::uint64_t pixels = 0;       ///< of the largest single launch (a tile, an image, a whole batch)
    PixelFormat format = PixelFormat::Gray8;
    int threads = 1;                ///< the CPU threads the call would use (resolved, ≥ 1)
    bool cpu_only = false;          ///< asks for what only the CPU does (e.g. tolerance joining)
    /// The call's picture, when Auto may time a sample of it (label()): the CPU's speed depends on
    /// what the picture holds (a drawing's long runs of paper label several times faster than the
    /// probe's blocks, noise slower), the GPU's much less. Null: the probe's rate stands.
    const Request* picture = nullptr;
};

/// Seconds = fixed + pixels × per_pixel on the CPU, at one format and thread count.
struct CpuRate {
    double fixed_s = 0;
    double per_pixel_s = 0;
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

/// Estimated seconds on the CPU and on the GPU. A picture larger than the GPU's memory goes through
/// it in tiles (label_cuda_host), moving the same bytes: the same estimate holds.
double cpu_seconds(const Workload& w, const CpuRate& r) noexcept;
double gpu_seconds(const Workload& w, const GpuHostRate& r) noexcept;

/// The decision from given rates. No GPU rate (no device, or it could not be measured) or a
/// CPU-only workload: the CPU. Otherwise the GPU only when strictly cheaper.
Backend choose_backend(const Workload& w, const CpuRate& cpu, const std::optional<GpuHostRate>& gpu) noexcept;

/// Rows [first, first + count) of a picture that Auto labels on one thread to learn how fast this
/// picture's content labels: @p bands bands spread over its height, about @p want pixels in all
/// (at least a row each). Empty when the picture is too small for a sample to be cheaper than a
/// guess (fewer rows than twice the sample's).
struct Band {
    std::int64_t first = 0, count = 0;
};
std::vector<Band> sample_bands(std::int64_t width, std::int64_t height, std::uint64_t want, int bands = 4);
/// How many times slower than the probe this picture's content labels: the sample's seconds over
/// what the probe's one-thread rate predicts for it (@p bands launches of @p sample_pixels in all),
/// kept within [1/16, 16] so that one disturbed timing cannot swing a decision without bound.
double content_factor(double sample_seconds, std::uint64_t sample_pixels, int bands, const CpuRate& one_thread) noexcept;

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
/// picture (core/probe.hpp); tens of milliseconds (about 25 ms for RGB8 at 2 threads here).
CpuRate measure_cpu_rate(Workload::Op op, PixelFormat format, int threads);

/// Applies the given rates over measured ones.
CpuRate with_given(CpuRate r, const GivenRates& g) noexcept;
GpuHostRate with_given(GpuHostRate r, const GivenRates& g) noexcept;

}  // namespace cclabel::detail
