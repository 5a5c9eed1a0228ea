// Label images as 32-bit (or, for 64-bit labels, 64-bit) unsigned gray TIFF, deflate-compressed with horizontal differencing
// (labels are mostly runs, which that turns into zeros). BigTIFF when the data could pass 4 GiB.
#include <tiffio.h>

#include <algorithm>
#include <vector>

#include "io/io_common.hpp"
#include "io/tiff_handle.hpp"

namespace cclabel::io::detail {

namespace {

template <typename T>
void write_tiff(const std::string& path, const T* labels, std::int64_t width, std::int64_t height) {
    constexpr std::int64_t kBytes = sizeof(T);
    if (width == 0 || height == 0) fail(path, "TIFF cannot hold an image with zero width or height (write .npy instead)");
    if (width > 0xFFFFFFFF || height > 0xFFFFFFFF) fail(path, "image too large for TIFF");
    const bool big = std::uint64_t(width) * std::uint64_t(height) * kBytes > (std::uint64_t(1) << 31);
    TiffHandle tiff(path, big ? "w8" : "w");
    TIFF* tif = tiff.get();
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, std::uint32_t(width));
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, std::uint32_t(height));
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(1));
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, std::uint16_t(8 * kBytes));
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    const bool deflate = TIFFIsCODECConfigured(COMPRESSION_ADOBE_DEFLATE) != 0;
    TIFFSetField(tif, TIFFTAG_COMPRESSION, deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
    if (deflate) {
        TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
        TIFFSetField(tif, TIFFTAG_ZIPQUALITY, 1);  // labels compress well even at the fastest level
    }
    // Strips of about 256 KiB keep readers' buffers small.
    const std::uint32_t rows = std::uint32_t(std::clamp<std::int64_t>((std::int64_t(1) << 18) / (width * kBytes), 1, height));
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows);

    // libtiff may modify the buffer it is given (byte swapping, prediction), so each strip is a copy.
    std::vector<T> strip;
    std::uint32_t index = 0;
    for (std::int64_t y = 0; y < height; y += rows, ++index) {
        const std::int64_t n = std::min<std::int64_t>(rows, height - y);
        const T* src = labels + std::size_t(y) * std::size_t(width);
        strip.assign(src, src + std::size_t(n) * std::size_t(width));
        if (TIFFWriteEncodedStrip(tif, index, strip.data(), tmsize_t(strip.size() * kBytes)) < 0) tiff.fail("write failed");
    }
    if (!TIFFWriteDirectory(tif)) tiff.fail("write failed");
    tiff.close();
}

}  // namespace

void write_tiff_labels(const std::string& path, const std::uint32_t* labels, std::int64_t width, std::int64_t height) {
    write_tiff(path, labels, width, height);
}

void write_tiff_labels(const std::string& path, const std::uint64_t* labels, std::int64_t width, std::int64_t height) {
    write_tiff(path, labels, width, height);
}

}  // namespace cclabel::io::detail
