#pragma once
// Streaming a picture too large to hold: a TIFF page read row by row (in the library's pixel
// formats, exactly as read_image decodes it) and label images written row by row (.npy or TIFF,
// exactly as write_labels writes them). Used by the CLI's streamed labelling (src/cli/streamed.*).
#include <cstdint>
#include <memory>
#include <string>

#include "cclabel/image_view.hpp"

namespace cclabel::io {

/// Whether @p path starts like a TIFF or BigTIFF file (either byte order).
bool is_tiff_file(const std::string& path);

/// One page of a TIFF, decoded in order, a few rows at a time. Memory: the file's own band (one
/// scanline for contiguous strips, a strip of every plane for separate planes, a row of tiles for
/// tiled files) plus what the caller asks for. The file is read, not memory-mapped, so the
/// process's resident size stays that small. Throws Error("<path>: <reason>") as read_image does:
/// unsupported layouts when opened, corrupt or truncated data when the rows are read.
class TiffRowReader {
public:
    TiffRowReader(const std::string& path, int page = 0);
    ~TiffRowReader();
    TiffRowReader(const TiffRowReader&) = delete;
    TiffRowReader& operator=(const TiffRowReader&) = delete;

    std::int64_t width() const noexcept;
    std::int64_t height() const noexcept;
    PixelFormat format() const noexcept;
    std::int64_t rows_read() const noexcept;

    /// Reads the next @p n rows, packed, into @p dst (n × width × bytes_per_pixel(format()) bytes).
    void read(std::uint8_t* dst, std::int64_t n);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// A label image written row by row, never whole: by @p path's extension a TIFF (32- or 64-bit
/// unsigned, deflate, strips of about 256 KiB, BigTIFF when the data could pass 2 GiB) or a .npy
/// ('<u4' or '<u8'), byte for byte what write_labels writes. Throws Error("<path>: <reason>").
class LabelRowWriter {
public:
    /// @p label_bytes: 4 (uint32) or 8 (uint64). @p depth ≥ 0 makes the file a volume of @p depth
    /// slices of @p height rows, written slice after slice: a .npy of shape (depth, height, width),
    /// a TIFF of one page a slice; -1 (the default) a picture.
    LabelRowWriter(const std::string& path, std::int64_t width, std::int64_t height, int label_bytes,
                   std::int64_t depth = -1);
    ~LabelRowWriter();
    LabelRowWriter(const LabelRowWriter&) = delete;
    LabelRowWriter& operator=(const LabelRowWriter&) = delete;

    /// Appends @p n packed rows (the overload of the writer's label type).
    void write(const std::uint32_t* rows, std::int64_t n);
    void write(const std::uint64_t* rows, std::int64_t n);
    /// Finishes the file; throws unless every row was written.
    void close();

    class Sink;

private:
    std::unique_ptr<Sink> sink_;
    int bytes_ = 4;
};

}  // namespace cclabel::io
