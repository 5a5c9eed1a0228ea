#pragma once
// A volume labelling call after validation (core/volume.cpp): every argument checked, the
// background resolved to a key, strides and threads resolved. The CPU volume labeller receives
// only this.
#include <cstdint>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/volume.hpp"

namespace cclabel::detail {

struct VolumeRequest {
    const std::uint8_t* data = nullptr;
    std::int64_t width = 0, height = 0, depth = 0;
    std::int64_t row_stride = 0;    ///< resolved: never 0 for a non-empty volume
    std::int64_t slice_stride = 0;  ///< resolved
    PixelFormat format = PixelFormat::Gray8;
    int connectivity = 26;  ///< 6, 18 or 26
    bool has_background = false;  ///< Binary8 always has background key 0
    std::uint32_t background_key = 0;
    std::uint32_t tolerance = 0;  ///< Options::tolerance, checked against the format's channel range
    /// The typed formats' tolerance in their values (Options::tolerance or tolerance_value); 0: exact.
    double tolerance_value = 0;
    /// The background's bits in the volume's own type (floats canonical), as Request's: what a
    /// typed volume with a tolerance compares its values' bits with (background_key is their low 32).
    std::uint64_t background_bits = 0;
    int threads = 1;  ///< resolved: ≥ 1

    std::uint64_t voxels() const { return std::uint64_t(width) * std::uint64_t(height) * std::uint64_t(depth); }
    const std::uint8_t* row(std::int64_t z, std::int64_t y) const { return data + z * slice_stride + y * row_stride; }
};

/// Validates and resolves a volume call; throws Error naming the first problem found. Typed
/// formats (I8 to F64) are validated here too (their background as a value of the type), but the
/// request's background_key is then the value's low 32 bits: core/volume.cpp maps them to keys.
/// A tolerance (a typed volume's too) is an Error unless @p takes_tolerance (label_volume and
/// label_volume_device; statistics and the certificate join exact values only).
VolumeRequest make_volume_request(const VolumeView& v, const std::uint32_t* out, const Options& options,
                                  bool takes_tolerance = false);

/// Backend::Auto for a validated untyped volume in host memory: the backend the cost model
/// (core/cost_model.hpp, Op::Volume) says is faster for it on this machine; any other backend as
/// given. The CPU where there is no device.
Backend volume_auto(const VolumeRequest& r, const std::uint32_t* out, const Options& options);

}  // namespace cclabel::detail
