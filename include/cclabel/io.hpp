#pragma once
/// @file io.hpp
/// @brief Reading pictures and writing label images (libpng, libtiff; PPM/PGM and NumPy .npy).
#include <cstdint>
#include <string>
#include <vector>

#include "cclabel/image_view.hpp"

namespace cclabel::io {

/// A decoded picture, tightly packed in one of the library's pixel formats.
struct Image {
    std::int64_t width = 0;
    std::int64_t height = 0;
    PixelFormat format = PixelFormat::Gray8;
    std::vector<std::uint8_t> pixels;  ///< width × height × bytes_per_pixel(format)
    /// What the file held, e.g. "png rgb 8-bit", "tiff gray 16-bit", "npy uint32".
    std::string description;

    ImageView view() const { return make_view(pixels.data(), width, height, format); }
};

/// Reads a PNG, TIFF, PPM/PGM or .npy file, chosen by the file's first bytes.
///
/// Formats: 8-bit gray → Gray8; 16-bit gray → Gray16; 32-bit unsigned or signed gray (TIFF, npy
/// uint32/int32) → U32; 8-bit RGB → RGB8; 8-bit RGBA → RGBA8; 8-bit gray+alpha → RGBA8 (g, g, g, a);
/// palette PNGs are expanded to their colours (two entries of one colour are one colour); npy bool →
/// Binary8. Pictures whose pixels have more than 32 bits (16-bit RGB/RGBA, 16-bit gray+alpha is
/// packed into U32 as g | a << 16) are stored as U32 colour indices: distinct colours numbered in raster
/// order of first appearance, which keeps exact equality and so the labels.
/// Throws Error("<path>: <reason>") for a missing, corrupt, truncated or unsupported file.
Image read_image(const std::string& path);

/// Writes a label image: 32-bit unsigned TIFF for .tif/.tiff, NumPy .npy (uint32, shape (height,
/// width), C order) for .npy; any other extension is an Error.
void write_labels(const std::string& path, const std::uint32_t* labels, std::int64_t width, std::int64_t height);

/// Writes an 8-bit RGB PNG preview: every label a stable pseudo-random colour, background black.
void write_preview_png(const std::string& path, const std::uint32_t* labels, std::int64_t width,
                       std::int64_t height);

/// The preview colour of @p label as 0xRRGGBB (0 for the background; never 0 for a region).
std::uint32_t preview_colour(std::uint32_t label);

}  // namespace cclabel::io
