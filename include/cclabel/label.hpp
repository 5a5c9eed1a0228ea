#pragma once
/// @file label.hpp
/// @brief Connected-component labelling of exact values: the host API, the same for every backend.
///
/// Two pixels are in one region when a path of 4- or 8-neighbours joins them on which every pixel
/// has exactly the same value (all channels). Regions are numbered 1..N in raster order of each
/// region's first pixel, which is what cc3d's multilabel labeller and OpenCV's SAUF give; pixels
/// of the background value (and zeros of Binary8) are 0. Regions never join across a row end.
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel {

/// Largest number of pixels a call accepts: every pixel must be numberable by a uint32_t label.
inline constexpr std::uint64_t kMaxPixels = 0xFFFFFFFFull;

/// What a call reports besides the label image.
struct LabelResult {
    /// Number of regions N, not counting the background (labels are 1..N).
    std::uint32_t count = 0;
    /// The backend that actually ran (Auto resolved).
    Backend backend = Backend::Cpu;
};

/// A label image the library allocated: row-major, tightly packed, width × height values.
struct Labels {
    std::int64_t width = 0;
    std::int64_t height = 0;
    std::uint32_t count = 0;  ///< N, background excluded
    std::vector<std::uint32_t> data;
    std::uint32_t at(std::int64_t x, std::int64_t y) const { return data[std::size_t(y * width + x)]; }
};

/// Labels @p image into @p out, which must hold image.width × image.height values (row-major,
/// tightly packed). Throws cclabel::Error on bad input; never writes outside @p out.
LabelResult label(const ImageView& image, std::uint32_t* out, const Options& options = {});

/// Labels @p image into a newly allocated label image.
Labels label(const ImageView& image, const Options& options = {});

/// Checks every argument of a call (sizes, stride, format, pointer, connectivity, background) and
/// throws the Error the call would throw. Cheap: reads no pixel.
void validate(const ImageView& image, const std::uint32_t* out, const Options& options);

/// True where the CUDA backend was built into this library and a device is present.
bool cuda_available() noexcept;

}  // namespace cclabel
