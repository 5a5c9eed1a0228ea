#pragma once
/// @file io.hpp
/// @brief Reading pictures and writing label images (libpng, libtiff; PPM/PGM and NumPy .npy).
#include <cstdint>
#include <memory>
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
/// Formats: 8-bit gray → Gray8; 16-bit gray → Gray16; 32-bit unsigned or signed gray (TIFF) and npy
/// uint32 → U32; 8-bit RGB → RGB8; 8-bit RGBA → RGBA8; 8-bit gray+alpha → RGBA8 (g, g, g, a);
/// palette PNGs are expanded to their colours (two entries of one colour are one colour); npy bool →
/// Binary8. One-channel npy arrays of int8, int16, int32, int64, uint64, float16, float32 and float64
/// ((H, W) or (H, W, 1)) → the typed formats I8, I16, I32, I64, U64, F16, F32, F64, their values as
/// stored (byte-swapped to native order, Fortran order transposed), which the host API labels by
/// value (floats: -0 == +0, every NaN one value). Pictures whose pixels have more than 32 bits
/// (16-bit RGB/RGBA, 16-bit gray+alpha is packed into U32 as g | a << 16; several channels of a
/// 16-, 32- or 64-bit npy dtype, up to 64 bits a pixel, float samples made canonical first) are stored
/// as U32 colour indices: distinct colours numbered in raster order of first appearance, which keeps
/// exact equality and so the labels.
/// Throws Error("<path>: <reason>") for a missing, corrupt, truncated or unsupported file.
Image read_image(const std::string& path);

/// One page of a document: a PDF page rendered at a resolution, a TIFF directory, or the one
/// picture of any other file.
struct Page {
    int index = 0;  ///< 0-based
    int count = 1;  ///< pages in the file
    /// Size, format and description always; the pixels too, unless the page lives in a renderer's
    /// buffer (PDF), which `rendered` keeps alive and `rendered_view` describes (with its stride).
    Image image;
    std::shared_ptr<const void> rendered;
    ImageView rendered_view;

    ImageView view() const { return rendered ? rendered_view : image.view(); }
};

/// Options of PageReader.
struct PageOptions {
    double dpi = 150;  ///< PDF rendering resolution (pixels per inch)
};

/// Reads a file page by page: PDF (rendered by Poppler's C++ library to RGB8 on white paper, with
/// anti-aliasing; only where the build found poppler-cpp, otherwise opening a PDF is an Error
/// saying so), TIFF (every directory a page, each decoded as read_image decodes the first), and
/// any other format read_image takes as one page. The file is chosen by its first bytes.
/// Throws Error("<path>: <reason>") as read_image does.
class PageReader {
public:
    explicit PageReader(const std::string& path, const PageOptions& options = {});
    ~PageReader();
    PageReader(PageReader&&) noexcept;
    PageReader& operator=(PageReader&&) noexcept;

    int pages() const;
    /// Page @p index, 0 ≤ index < pages(); throws Error naming the file and page otherwise, or
    /// when the page cannot be decoded (the other pages may still be read).
    Page read(int index);

    /// Whether this build reads PDF files.
    static bool reads_pdf();

    class Source;

private:
    std::string path_;
    std::unique_ptr<Source> source_;
};

/// Writes a label image: 32-bit unsigned TIFF for .tif/.tiff, NumPy .npy (uint32, shape (height,
/// width), C order) for .npy; any other extension is an Error.
void write_labels(const std::string& path, const std::uint32_t* labels, std::int64_t width, std::int64_t height);

/// The same for 64-bit labels (cclabel::label_tiled's uint64 output, for images of more than
/// 2^32 − 1 pixels): .npy '<u8', or a 64-bit unsigned TIFF (BigTIFF past 4 GiB).
void write_labels(const std::string& path, const std::uint64_t* labels, std::int64_t width, std::int64_t height);

/// Writes an 8-bit RGB PNG preview: every label a stable pseudo-random colour, background black.
void write_preview_png(const std::string& path, const std::uint32_t* labels, std::int64_t width,
                       std::int64_t height);

/// The preview colour of @p label as 0xRRGGBB (0 for the background; never 0 for a region).
std::uint32_t preview_colour(std::uint32_t label);

}  // namespace cclabel::io
