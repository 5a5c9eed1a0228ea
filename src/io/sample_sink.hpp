#pragma once
// Every reader decodes rows of interleaved samples (native-endian, 1, 2, 4 or 8 bytes each) and
// hands them here; this one place decides the library format and fills the Image, row by row, so
// that memory is only touched as fast as the file really delivers pixels (a tiny file that claims
// a huge size fails on its first missing row, not after a huge zero-fill).
#include <cstdint>
#include <string>

#include "cclabel/io.hpp"
#include "io/colour_index.hpp"

namespace cclabel::io::detail {

/// Turns interleaved samples into one of the library's pixel formats (the decision and the
/// conversion of SampleSink, for readers that hand out rows instead of a whole Image).
class PixelConverter {
public:
    /// Throws Error naming @p path for a layout no format takes.
    PixelConverter(const std::string& path, int spp, int sample_bytes, bool binary = false);
    /// One sample a pixel, copied as it is into the typed format @p typed (I8 to F64).
    explicit PixelConverter(PixelFormat typed);
    PixelFormat format() const noexcept { return format_; }
    /// Converts @p pixels pixels of @p src (spp × sample_bytes each) into @p dst (the format's bytes each).
    void convert(const std::uint8_t* src, std::size_t pixels, std::uint8_t* dst);
    bool indexed() const noexcept { return mode_ == Mode::Index; }
    std::size_t colours() const noexcept { return index_.size(); }

private:
    enum class Mode { Copy, GrayAlpha8, GrayAlpha16, Index };
    PixelFormat format_ = PixelFormat::Gray8;
    Mode mode_ = Mode::Copy;
    int spp_ = 1, bytes_ = 1;
    ColourIndex index_;
};

class SampleSink {
public:
    /// @p spp samples of @p sample_bytes each per pixel. With @p binary, one byte per pixel is
    /// stored as Binary8. @p source_bytes: the file's size. Throws before reserving anything when
    /// the picture would not fit in memory or could not plausibly come out of so small a file
    /// (check_memory, check_decode_work).
    SampleSink(const std::string& path, std::int64_t width, std::int64_t height, int spp, int sample_bytes,
               std::uint64_t source_bytes, bool binary = false);
    /// One sample a pixel, stored as it is in the typed format @p typed (I8 to F64: the .npy
    /// reader's signed, float and 64-bit one-channel arrays), with the same checks.
    SampleSink(const std::string& path, std::int64_t width, std::int64_t height, PixelFormat typed,
               std::uint64_t source_bytes);

    PixelFormat format() const noexcept { return conv_.format(); }
    /// Bytes of one input row (width × spp × sample_bytes).
    std::size_t in_row_bytes() const noexcept { return in_row_; }
    std::int64_t rows_done() const noexcept { return rows_; }

    /// Appends @p n packed input rows.
    void add_rows(const std::uint8_t* src, std::int64_t n);

    /// The finished picture; throws unless every row arrived.
    Image finish(std::string description);

private:
    SampleSink(const std::string& path, std::int64_t width, std::int64_t height, int spp, int sample_bytes,
               std::uint64_t source_bytes, PixelConverter conv);

    std::string path_;
    Image img_;
    PixelConverter conv_;
    std::size_t in_row_ = 0, out_row_ = 0;
    std::int64_t rows_ = 0;
};

}  // namespace cclabel::io::detail
