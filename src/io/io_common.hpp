#pragma once
// Shared by the readers and writers: error messages that name the file, size limits, and the
// per-format entry points that read_image.cpp dispatches to.
#include <cstdint>
#include <cstdio>
#include <string>

#include "cclabel/io.hpp"
#include "io/tiff_stream.hpp"

namespace cclabel::io::detail {

/// The limit of uint32 labels: every pixel must get a distinct uint32_t label.
inline constexpr std::uint64_t kMaxPixels = 0xFFFFFFFFull;
/// The readers' limit, above kMaxPixels because label_tiled() labels larger pictures (into uint64
/// labels); 2^40 keeps every byte count of a picture (at most 8 bytes a pixel) far from overflow.
inline constexpr std::uint64_t kMaxReadPixels = std::uint64_t(1) << 40;

/// What one picture may cost to decode, the limits every reader shares (SampleSink applies them
/// to every picture read whole, the TIFF row decoder to every page streamed). A small hostile file
/// must be refused at its header, not after seconds of decoding or gigabytes of memory.
///
/// Work is counted in bytes: the decoded picture's bytes (tile padding included) plus kRowCost for
/// every row, since each row costs a library call, a filter and a copy however narrow it is (a
/// 1-pixel-wide PNG of 5e8 rows kept a decoder busy for minutes). A file of up to kSmallFileBytes
/// may cost kFreeDecodeBytes: about 0.3 s of CPU in a release build here, under 2 s in the fuzz
/// build (256 MiB took up to 0.65 s and 11 s), which is what bounds every small hostile input. A
/// larger file may cost up to kMaxExpansion times its size: deflate's own limit (1032:1), so no
/// PNG or deflate TIFF that could exist is refused on this ground, however blank the page (an
/// 806 Mpx RGB drawing, mostly white paper, needs a file of at least 2.3 MB, which deflate cannot
/// beat anyway), while a file of absurdly many rows still is. docs/decode_limits.md says what this
/// means for users.
inline constexpr std::uint64_t kRowCost = 64;
inline constexpr std::uint64_t kSmallFileBytes = std::uint64_t(1) << 20;
inline constexpr std::uint64_t kFreeDecodeBytes = std::uint64_t(128) << 20;
inline constexpr std::uint64_t kMaxExpansion = 1032;

/// The memory a decoded picture may take: this machine's physical memory (or, where that cannot
/// be read, 2^40 bytes).
std::uint64_t memory_budget();

/// Throws unless @p bytes (what a picture held whole needs) fit in memory_budget(); @p what names
/// the picture, e.g. "a 3 x 4 rgb8 picture".
void check_memory(const std::string& path, std::uint64_t bytes, const std::string& what);

/// Throws unless decoding @p height rows of @p row_bytes each (the decoded picture, tile padding
/// included) is plausible for @p source_bytes of file: at most kFreeDecodeBytes for a file of up to
/// kSmallFileBytes, else max(kFreeDecodeBytes, kMaxExpansion × source_bytes), with kRowCost per row. 64-bit arithmetic, no wrap. @p claim words
/// the claim for the message ("" : "the header claims <height> rows of <row_bytes> bytes").
void check_decode_work(const std::string& path, std::uint64_t row_bytes, std::uint64_t height, std::uint64_t source_bytes,
                       const std::string& claim = "");

/// Throws Error("<path>: <reason>"), with the reason folded onto one line.
[[noreturn]] void fail(const std::string& path, const std::string& reason);

/// Throws unless width × height is at most @p limit (64-bit arithmetic, no wrap): kMaxReadPixels
/// for a picture read, kMaxPixels for uint32 labels written.
void check_pixels(const std::string& path, std::uint64_t width, std::uint64_t height,
                  std::uint64_t limit = kMaxReadPixels);

/// Whether @p magic (at least 4 bytes) starts a TIFF or BigTIFF file, either byte order.
inline bool is_tiff_magic(const unsigned char* magic) {
    return (magic[0] == 'I' && magic[1] == 'I' && (magic[2] == 42 || magic[2] == 43) && magic[3] == 0) ||
           (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && (magic[3] == 42 || magic[3] == 43));
}

/// Owns a FILE*; closes it on every path out of a reader.
class File {
public:
    File(const std::string& path, const char* mode);
    ~File();
    File(const File&) = delete;
    File& operator=(const File&) = delete;
    std::FILE* get() const noexcept { return f_; }
    /// Reads exactly n bytes or throws "truncated" naming what was being read.
    void read_exact(void* dst, std::size_t n, const char* what);

private:
    std::string path_;
    std::FILE* f_ = nullptr;
};

Image read_png(const std::string& path, std::uint64_t file_size);
Image read_tiff(const std::string& path, std::uint64_t file_size);
Image read_pnm(const std::string& path, std::uint64_t file_size);
Image read_npy(const std::string& path, std::uint64_t file_size);
/// A (Z, Y, X) .npy array of one channel as the picture of its Z · Y rows (z, then y), @p depth set
/// to Z; a (Y, X) array is one slice (depth 1).
Image read_npy_volume(const std::string& path, std::uint64_t file_size, std::int64_t& depth);

}  // namespace cclabel::io::detail

namespace cclabel::io {
/// What LabelRowWriter writes through: rows of label_bytes-wide labels, in order.
class LabelRowWriter::Sink {
public:
    virtual ~Sink() = default;
    virtual void write(const void* rows, std::int64_t n) = 0;
    virtual void close() = 0;
};
}  // namespace cclabel::io

namespace cclabel::io::detail {

/// The sinks of LabelRowWriter; @p depth as there (-1: a picture of @p height rows; else a volume of
/// @p depth slices of @p height rows).
std::unique_ptr<LabelRowWriter::Sink> open_npy_label_sink(const std::string& path, std::int64_t width, std::int64_t height,
                                                          int label_bytes, std::int64_t depth);
std::unique_ptr<LabelRowWriter::Sink> open_tiff_label_sink(const std::string& path, std::int64_t width, std::int64_t height,
                                                           int label_bytes, std::int64_t depth);

}  // namespace cclabel::io::detail
