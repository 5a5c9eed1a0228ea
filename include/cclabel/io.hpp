#pragma once
/// @file io.hpp
/// @brief Reading pictures and writing label images (libpng, libtiff; PPM/PGM and NumPy .npy).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/volume.hpp"

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

/// A decoded volume: depth slices of height rows of width voxels, tightly packed (z, then y, then x),
/// in one of the library's pixel formats.
struct Volume {
    std::int64_t width = 0;
    std::int64_t height = 0;
    std::int64_t depth = 0;
    PixelFormat format = PixelFormat::Gray8;
    std::vector<std::uint8_t> voxels;  ///< width × height × depth × bytes_per_pixel(format)
    /// What the file held, e.g. "npy uint16", "tiff gray 8-bit, 40 pages".
    std::string description;

    VolumeView view() const { return make_volume_view(voxels.data(), width, height, depth, format); }
};

/// Reads a volume. A .npy array of shape (Z, Y, X) is Z slices, each voxel read as read_image reads
/// a one-channel array's pixel (bool → Binary8, uint8/16/32 → Gray8/Gray16/U32, the signed, float
/// and 64-bit dtypes → the typed formats, byte-swapped and Fortran order as there); a (Y, X) array
/// is one slice. Any other file is read page by page as PageReader reads it, each page one slice
/// (a multi-page TIFF is a stack; a PNG is one slice); the pages must share size and format.
/// Throws Error("<path>: <reason>") as read_image does, and naming the first page that differs.
Volume read_volume(const std::string& path);

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

/// Writes a label volume of width × height × depth labels (z, then y, then x): NumPy .npy (uint32,
/// shape (depth, height, width), C order) for .npy, a 32-bit unsigned TIFF of one page a slice for
/// .tif/.tiff; any other extension is an Error, as is a TIFF of an empty volume.
void write_volume_labels(const std::string& path, const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                         std::int64_t depth);

/// Writes an 8-bit RGB PNG preview: every label a stable pseudo-random colour, background black.
void write_preview_png(const std::string& path, const std::uint32_t* labels, std::int64_t width,
                       std::int64_t height);

/// The preview colour of @p label as 0xRRGGBB (0 for the background; never 0 for a region).
std::uint32_t preview_colour(std::uint32_t label);

}  // namespace cclabel::io
