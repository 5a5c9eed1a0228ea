// Label images as 32-bit (or, for 64-bit labels, 64-bit) unsigned gray TIFF, deflate-compressed with horizontal differencing
// (labels are mostly runs, which that turns into zeros). BigTIFF when the data could pass 2 GiB.
// Written strip by strip as rows arrive (LabelRowWriter), so a picture never has to be whole. A
// volume's labels are one page a slice.
#include <tiffio.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "io/io_common.hpp"
#include "io/tiff_handle.hpp"

namespace cclabel::io::detail {

namespace {

class TiffLabelSink : public LabelRowWriter::Sink {
public:
    TiffLabelSink(const std::string& path, std::int64_t width, std::int64_t height, int bytes, std::int64_t depth)
        : path_(path), width_(width), page_height_(height), pages_(depth < 0 ? 1 : depth), bytes_(bytes) {
        if (width == 0 || height == 0) fail(path, "TIFF cannot hold an image with zero width or height (write .npy instead)");
        if (depth == 0) fail(path, "TIFF cannot hold a volume of no slices (write .npy instead)");
        if (width < 0 || height < 0 || width > 0xFFFFFFFF || height > 0xFFFFFFFF || pages_ > 0xFFFF)
            fail(path, "image too large for TIFF");
        height_ = height * pages_;
        const bool big = std::uint64_t(width) * std::uint64_t(height_) * std::uint64_t(bytes) > (std::uint64_t(1) << 31);
        tiff_ = std::make_unique<TiffHandle>(path, big ? "w8" : "w");
        // Strips of about 256 KiB keep readers' buffers small.
        rows_per_strip_ = std::clamp<std::int64_t>((std::int64_t(1) << 18) / (width * bytes), 1, height);
        row_bytes_ = std::size_t(width) * std::size_t(bytes);
        strip_.reserve(std::size_t(rows_per_strip_) * row_bytes_);
        begin_page();
    }

    void write(const void* rows, std::int64_t n) override {
        if (n < 0 || n > height_ - rows_) fail(path_, "internal error: more rows than the image has");
        const auto* src = static_cast<const std::uint8_t*>(rows);
        while (n > 0) {
            // libtiff may modify the buffer it is given (byte swapping, prediction), so each strip is a copy.
            const std::int64_t page_left = page_height_ - rows_ % page_height_;
            const std::int64_t take = std::min({n, rows_per_strip_ - buffered_, page_left});
            strip_.insert(strip_.end(), src, src + std::size_t(take) * row_bytes_);
            src += std::size_t(take) * row_bytes_;
            buffered_ += take;
            rows_ += take;
            n -= take;
            if (buffered_ == rows_per_strip_ || take == page_left) flush();
            if (take == page_left) {  // a page (a volume's slice) is whole
                if (!TIFFWriteDirectory(tiff_->get())) tiff_->fail("write failed");
                if (rows_ < height_) begin_page();
            }
        }
    }

    void close() override {
        if (rows_ != height_) fail(path_, "internal error: " + std::to_string(height_ - rows_) + " rows never written");
        tiff_->close();
    }

private:
    void begin_page() {
        TIFF* tif = tiff_->get();
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, std::uint32_t(width_));
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, std::uint32_t(page_height_));
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(1));
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, std::uint16_t(8 * bytes_));
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        if (pages_ > 1) {
            TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
            TIFFSetField(tif, TIFFTAG_PAGENUMBER, std::uint16_t(rows_ / page_height_), std::uint16_t(pages_));
        }
        const bool deflate = TIFFIsCODECConfigured(COMPRESSION_ADOBE_DEFLATE) != 0;
        TIFFSetField(tif, TIFFTAG_COMPRESSION, deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
        if (deflate) {
            TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
            TIFFSetField(tif, TIFFTAG_ZIPQUALITY, 1);  // labels compress well even at the fastest level
        }
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, std::uint32_t(rows_per_strip_));
        strip_index_ = 0;
    }

    void flush() {
        if (TIFFWriteEncodedStrip(tiff_->get(), strip_index_++, strip_.data(), tmsize_t(strip_.size())) < 0) tiff_->fail("write failed");
        strip_.clear();
        buffered_ = 0;
    }

    std::string path_;
    std::int64_t width_, page_height_, pages_;
    int bytes_;
    std::int64_t height_ = 0;  // rows of all pages
    std::unique_ptr<TiffHandle> tiff_;
    std::int64_t rows_per_strip_ = 1, buffered_ = 0, rows_ = 0;
    std::size_t row_bytes_ = 0;
    std::vector<std::uint8_t> strip_;
    std::uint32_t strip_index_ = 0;
};

}  // namespace

std::unique_ptr<LabelRowWriter::Sink> open_tiff_label_sink(const std::string& path, std::int64_t width, std::int64_t height,
                                                           int label_bytes, std::int64_t depth) {
    return std::make_unique<TiffLabelSink>(path, width, height, label_bytes, depth);
}

}  // namespace cclabel::io::detail
