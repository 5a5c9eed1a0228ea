#pragma once
/// @file options.hpp
/// @brief What a labelling call may be asked to do differently.
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cclabel {

/// Which implementation runs a call.
enum class Backend : int {
    /// Pictures in host memory: the CPU without a CUDA device, else whichever backend is faster for
    /// the call on this machine, from rates measured once in the process on first use (the CPU's
    /// labelling rate at the call's format and thread count, the GPU host path's fixed cost,
    /// labelling and copy rates), or given in the environment variable CCLABEL_RATES (e.g.
    /// "cpu" or "cuda" to force one, or "cpu_gpxs=2,gpu_gpxs=40,copy_gbs=12,gpu_fixed_us=300";
    /// docs/auto.md). Labels never depend on it.
    Auto = 0,
    Cpu = 1,
    Cuda = 2,
};

/// "auto", "cpu", "cuda" or "unknown".
std::string_view backend_name(Backend b) noexcept;

/// One pixel value in the caller's own type, for Options::background_value: any integer (signed or
/// unsigned, any width) or floating-point number (NaN allowed), kept exactly.
struct Scalar {
    enum class Kind : int { Signed, Unsigned, Float };
    Kind kind = Kind::Unsigned;
    std::int64_t i = 0;   ///< the value when kind is Signed
    std::uint64_t u = 0;  ///< the value when kind is Unsigned
    double f = 0;         ///< the value when kind is Float

    constexpr Scalar() = default;
    template <typename T>
        requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    constexpr Scalar(T v) noexcept {  // NOLINT: implicit, so that `o.background_value = -1;` reads naturally
        if constexpr (std::is_floating_point_v<T>) {
            kind = Kind::Float;
            f = double(v);
        } else if constexpr (std::is_signed_v<T>) {
            kind = Kind::Signed;
            i = std::int64_t(v);
        } else {
            kind = Kind::Unsigned;
            u = std::uint64_t(v);
        }
    }
};

/// Options of a labelling call. Plain values, no hidden state: the same Options give the same
/// labels on every backend and every thread count.
struct Options {
    /// 4 (edge neighbours) or 8 (edge and corner neighbours). Anything else is an Error.
    int connectivity = 8;
    /// A value whose pixels get label 0 and join nothing. One number per channel of the image's
    /// format (RGB8: {r, g, b}; RGBA8: {r, g, b, a}; Gray8/Gray16/U32: {v}), each within the
    /// channel's range; otherwise an Error. For Binary8 zero is always background, and only
    /// {0} is accepted here.
    /// For the single-channel typed formats (I8 to F64) a one-element background {v} is the value
    /// v of the image's type (so it must be representable: {40000} is an Error for I16); negative,
    /// fractional and NaN values go through background_value.
    std::optional<std::vector<std::uint64_t>> background;
    /// The background as one value of the image's own type, for any single-channel format
    /// (Binary8, Gray8, Gray16, U32, I8 to F64): e.g. -1 for I16, 0.5f or NaN for F32, 2^40 for
    /// I64. The value must be exactly representable in the format (0.1 is not a float; 0.1f is;
    /// F16 takes the doubles that binary16 holds exactly), otherwise an Error that names it. For
    /// the float formats -0.0 and +0.0 are one value and NaN means every NaN. A value absent from
    /// the picture is allowed (nothing is background). Setting both this and background is an
    /// Error; RGB8 and RGBA8 take their background per channel in background.
    std::optional<Scalar> background_value;
    Backend backend = Backend::Auto;
    /// CPU threads; 0 means every core this process may use (its CPU affinity mask, as set by
    /// taskset or a Slurm or Kubernetes cpuset, and its container's CPU quota; not the machine's
    /// count), at most one a 2^15 pixels (32,768: a 512 x 512 picture takes 8). Labels never
    /// depend on it.
    int threads = 0;
    /// Neighbouring pixels join when every channel differs by at most this much (one channel:
    /// |a - b| <= tolerance, as cc3d's `delta`), so a region is everything reachable through such
    /// steps: its ends may differ by far more. 0 (the default) is exact-value labelling, on its
    /// usual fast paths. At most the format's channel maximum (255; Gray16 65535; U32 2^32 - 1),
    /// otherwise an Error. Background pixels still join nothing, and regions are still numbered
    /// 1..N in raster order of their first pixels. Both backends, the device API and tiles
    /// (label_tiled, label_tile and seam_equivalences; not label_tiled_streamed), and volumes
    /// (label_volume, label_volume_device). The typed formats (I8 to F64) take it, or
    /// tolerance_value, in label(), label_device and the volume calls, on either backend; not in
    /// batches. Binary8 ignores it (all its foreground is one value).
    std::uint32_t tolerance = 0;
    /// The tolerance as a number of the image's values, for the typed formats (I8 to F64): e.g.
    /// 0.5 for an F32 picture (|a - b| <= 0.5, computed in double; -0 and +0 are one value; a NaN
    /// joins only a NaN, as NaNs are one value in exact labelling). Finite and at least 0; setting
    /// it with tolerance, or for another format, is an Error. label(), label_device and the volume
    /// calls, on either backend.
    std::optional<double> tolerance_value;
};

}  // namespace cclabel
