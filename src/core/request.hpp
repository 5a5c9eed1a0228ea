#pragma once
// A labelling call after validation: every argument checked, background resolved to a key.
// Backends receive only this, so none of them re-validates or re-interprets Options.
#include <cstdint>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::detail {

struct Request {
    const std::uint8_t* data = nullptr;
    std::int64_t width = 0;
    std::int64_t height = 0;
    std::int64_t stride = 0;  ///< resolved: never 0 for a non-empty image
    PixelFormat format = PixelFormat::Gray8;
    int connectivity = 8;
    bool has_background = false;  ///< Binary8 always has background key 0
    std::uint32_t background_key = 0;
    /// The background's bits in the image's own type (floats canonical): what the typed formats
    /// (I8 to F64) map to a key with their pixels (core/format_keys.hpp). background_key holds
    /// their low 32 bits, which is the key only for the formats of 32 bits or fewer.
    std::uint64_t background_bits = 0;
    int threads = 1;  ///< resolved: ≥ 1
    std::uint32_t tolerance = 0;  ///< Options::tolerance, checked against the format's channel range
    /// The typed formats' tolerance in their values (Options::tolerance or tolerance_value); 0: exact.
    double tolerance_value = 0;

    std::uint64_t pixels() const { return std::uint64_t(width) * std::uint64_t(height); }
    const std::uint8_t* row(std::int64_t y) const { return data + y * stride; }
};

/// Throws Error for a negative size or row stride (make_request's first checks, which
/// label_tiled's pictures of more than 2^32 - 1 pixels need without the pixel limit).
void check_size_and_stride(const ImageView& image);

/// Validates and resolves a call; throws Error naming the first problem found. A tolerance on a
/// typed format is an Error unless @p typed_tolerance (label()'s CPU path; the keyed paths of
/// batches, statistics and the GPU join exact values only).
Request make_request(const ImageView& image, const std::uint32_t* out, const Options& options,
                     bool typed_tolerance = false);

}  // namespace cclabel::detail
