#pragma once
// How the GPU's host path cuts a copy between a caller's rows and a packed device buffer into
// chunks that each fit one pinned staging block, and how host threads share one chunk's memcpy.
// Plain C++ (no CUDA), so that CI tests the cutting and the copying on the CPU; the CUDA side
// (cuda/host_stager.hpp) only adds the blocks, the events and the copy engine.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cclabel::detail {

/// One chunk: rows [row, row + rows) from byte @p col of each row, @p len bytes a row. Either whole
/// rows (col 0, len = row_bytes) or a piece of a single row longer than a block.
struct Chunk {
    std::size_t row = 0, rows = 0, col = 0, len = 0;
    std::size_t bytes() const { return rows * len; }
    /// Where the chunk starts in the packed buffer (rows of row_bytes back to back).
    std::size_t packed_offset(std::size_t row_bytes) const { return row * row_bytes + col; }
};

/// Walks the chunks of @p rows rows of @p row_bytes in order, each at most @p block bytes: as many
/// whole rows as fit, or pieces of a row when one row is longer than a block. A copy whose rows are
/// back to back on both sides (@p contiguous) is cut as one long row, so that a picture of narrow
/// rows still fills every block.
///
/// With @p ramp > 0 the first chunks grow from @p ramp bytes (doubling) and the last ones shrink
/// (each at most half of what is left, down to @p ramp): an upload's copy engine waits only for a
/// small first chunk to be filled, and a download ends with a small last chunk to empty, instead of
/// a whole block's host memcpy at each end (16 MiB at the host's copy rate is about half a
/// millisecond, 8% of a 50 Mpx picture's copies).
class ChunkWalk {
public:
    ChunkWalk(std::size_t rows, std::size_t row_bytes, std::size_t block, bool contiguous, std::size_t ramp = 0)
        : rows_(contiguous ? (rows > 0 && row_bytes > 0 ? 1 : 0) : rows),
          row_bytes_(contiguous ? rows * row_bytes : row_bytes),
          block_(std::max<std::size_t>(block, 1)),
          ramp_(std::min(ramp, block_)) {
        if (row_bytes_ == 0) rows_ = 0;
    }
    /// The next chunk into @p c; false when every byte has been handed out. For a contiguous walk
    /// the chunk's row is 0 and its col the byte offset.
    bool next(Chunk& c) {
        if (row_ >= rows_) return false;
        const std::size_t lim = limit();
        if (col_ == 0 && row_bytes_ <= lim) {
            const std::size_t per = lim / row_bytes_;
            c = Chunk{row_, std::min(per, rows_ - row_), 0, row_bytes_};
            row_ += c.rows;
        } else {
            c = Chunk{row_, 1, col_, std::min(lim, row_bytes_ - col_)};
            col_ += c.len;
            if (col_ == row_bytes_) {
                col_ = 0;
                ++row_;
            }
        }
        ++issued_;
        return true;
    }
    /// The whole copy's bytes.
    std::size_t total() const { return rows_ * row_bytes_; }

private:
    /// The next chunk's most bytes: the block, or less at either end of a ramped walk.
    std::size_t limit() const {
        if (ramp_ == 0) return block_;
        const std::size_t head = issued_ < 30 ? ramp_ << issued_ : block_;
        const std::size_t left = (rows_ - row_) * row_bytes_ - col_;
        return std::min({block_, std::max(head, ramp_), std::max(ramp_, (left + 1) / 2)});
    }

    std::size_t rows_, row_bytes_, block_, ramp_;
    std::size_t row_ = 0, col_ = 0, issued_ = 0;
};

/// Copies bytes [begin, end) of a chunk's flat extent (rows × len, row by row) from rows of pitch
/// @p src_pitch to rows of pitch @p dst_pitch: one host thread's share of a chunk.
inline void copy_rows_part(std::uint8_t* dst, std::size_t dst_pitch, const std::uint8_t* src, std::size_t src_pitch,
                           std::size_t len, std::size_t begin, std::size_t end) {
    if (len == 0) return;
    while (begin < end) {
        const std::size_t r = begin / len, c = begin % len;
        const std::size_t n = std::min(len - c, end - begin);
        std::memcpy(dst + r * dst_pitch + c, src + r * src_pitch + c, n);
        begin += n;
    }
}

/// How many host threads share a chunk of @p bytes: at most @p threads, and no fewer than
/// @p min_part bytes each (a thread woken for less costs more than it copies).
inline int copy_parts(std::size_t bytes, int threads, std::size_t min_part) {
    const std::size_t by_size = std::max<std::size_t>(1, bytes / std::max<std::size_t>(min_part, 1));
    return int(std::min<std::size_t>(std::size_t(std::max(threads, 1)), by_size));
}

}  // namespace cclabel::detail
