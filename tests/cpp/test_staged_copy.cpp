// The GPU host path's cutting of a copy into staging chunks and its threads' shares of one chunk
// (core/staged_copy.hpp), on the CPU: every byte of every row lands once, in order, whatever the
// block, pitch and thread count; the chunks never pass a block.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "core/staged_copy.hpp"

namespace cclabel::detail {
namespace {

/// Emulates the path: rows of @p row_bytes at pitch @p src_pitch go chunk by chunk through a
/// "block" of @p block bytes (packed, as the copy engine takes it) into a packed "device" buffer,
/// then back out chunk by chunk into rows at pitch @p dst_pitch; each chunk's memcpy split into
/// @p parts shares as threads would take them.
void round_trip(std::size_t rows, std::size_t row_bytes, std::size_t src_pitch, std::size_t dst_pitch,
                std::size_t block, int parts, std::size_t ramp = 0) {
    std::vector<std::uint8_t> src(rows * src_pitch + 1);
    std::iota(src.begin(), src.end(), std::uint8_t(7));
    std::vector<std::uint8_t> device(rows * row_bytes, 0), staging(block, 0);
    std::vector<std::uint8_t> dst(rows * dst_pitch + 1, 0xEE);
    auto copy = [&](std::uint8_t* d, std::size_t dp, const std::uint8_t* s, std::size_t sp, const Chunk& c) {
        const std::size_t total = c.bytes();
        for (int p = 0; p < parts; ++p)
            copy_rows_part(d, dp, s, sp, c.len, total * std::size_t(p) / std::size_t(parts),
                           total * std::size_t(p + 1) / std::size_t(parts));
    };
    std::size_t seen = 0;
    ChunkWalk up(rows, row_bytes, block, src_pitch == row_bytes, ramp);
    for (Chunk c; up.next(c);) {
        ASSERT_LE(c.bytes(), block);
        ASSERT_GT(c.bytes(), 0u);
        copy(staging.data(), c.len, src.data() + c.row * src_pitch + c.col, src_pitch, c);
        std::copy(staging.begin(), staging.begin() + std::ptrdiff_t(c.bytes()),
                  device.begin() + std::ptrdiff_t(c.packed_offset(row_bytes)));
        seen += c.bytes();
    }
    ASSERT_EQ(seen, rows * row_bytes);
    ChunkWalk down(rows, row_bytes, block, dst_pitch == row_bytes, ramp);
    for (Chunk c; down.next(c);) {
        ASSERT_LE(c.bytes(), block);
        std::copy(device.begin() + std::ptrdiff_t(c.packed_offset(row_bytes)),
                  device.begin() + std::ptrdiff_t(c.packed_offset(row_bytes) + c.bytes()), staging.begin());
        copy(dst.data() + c.row * dst_pitch + c.col, dst_pitch, staging.data(), c.len, c);
    }
    for (std::size_t y = 0; y < rows; ++y) {
        for (std::size_t x = 0; x < row_bytes; ++x) {
            ASSERT_EQ(device[y * row_bytes + x], src[y * src_pitch + x]) << "device row " << y << " byte " << x;
            ASSERT_EQ(dst[y * dst_pitch + x], src[y * src_pitch + x]) << "host row " << y << " byte " << x;
        }
        for (std::size_t x = row_bytes; x < dst_pitch; ++x)
            ASSERT_EQ(dst[y * dst_pitch + x], 0xEE) << "the padding of row " << y << " was written";
    }
    ASSERT_EQ(dst.back(), 0xEE) << "wrote past the last row";
}

TEST(StagedCopy, EveryByteLandsOnceWhateverTheCut) {
    for (std::size_t block : {1u, 7u, 64u, 300u, 4096u, 1u << 20})
        for (std::size_t row_bytes : {1u, 3u, 97u, 388u, 1000u})
            for (std::size_t pad : {0u, 5u})
                for (int parts : {1, 3, 8})
                    for (std::size_t ramp : {0u, 1u, 5u, 64u})
                        round_trip(13, row_bytes, row_bytes + pad, row_bytes + (pad ? 0 : 3), block, parts, ramp);
}

TEST(StagedCopy, ARampedWalkStartsAndEndsWithSmallChunks) {
    // Contiguous: 10,000 bytes in blocks of 1024 from a ramp of 64: 64, 128, 256, 512, 1024, ...,
    // then at most half of what is left, the last chunk no more than the ramp.
    for (bool contiguous : {true, false}) {
        ChunkWalk w(contiguous ? 10000 : 2500, contiguous ? 1 : 4, 1024, contiguous, 64);
        std::vector<std::size_t> sizes;
        std::size_t total = 0;
        for (Chunk c; w.next(c);) {
            sizes.push_back(c.bytes());
            total += c.bytes();
            ASSERT_LE(c.bytes(), 1024u);
        }
        ASSERT_EQ(total, 10000u);
        ASSERT_GE(sizes.size(), 6u);
        EXPECT_EQ(sizes[0], 64u);
        EXPECT_EQ(sizes[1], 128u);
        EXPECT_EQ(sizes[4], 1024u);
        EXPECT_LE(sizes.back(), 64u) << "contiguous " << contiguous;
        std::size_t left = 10000;
        for (std::size_t s : sizes) {  // past the head, no chunk takes more than half of what is left
            if (s > 64 && left < 2048) EXPECT_LE(s, (left + 1) / 2);
            left -= s;
        }
    }
    // A ramp of 0 is the plain walk: every chunk a whole block but the last.
    ChunkWalk plain(10000, 1, 1024, true, 0);
    Chunk c;
    ASSERT_TRUE(plain.next(c));
    EXPECT_EQ(c.bytes(), 1024u);
}

TEST(StagedCopy, ChunksFillTheBlockWhenRowsAreBackToBack) {
    // 1000 rows of 3 bytes, packed: cut as one long row, so 64-byte blocks are full but the last.
    ChunkWalk w(1000, 3, 64, true);
    std::size_t n = 0, total = 0;
    for (Chunk c; w.next(c); ++n) {
        total += c.bytes();
        if (total < 3000) {
            EXPECT_EQ(c.bytes(), 64u);
        }
    }
    EXPECT_EQ(total, 3000u);
    EXPECT_EQ(n, (3000u + 63) / 64);
    // Padded rows: whole rows only (21 of 3 bytes a block).
    ChunkWalk p(1000, 3, 64, false);
    Chunk c;
    ASSERT_TRUE(p.next(c));
    EXPECT_EQ(c.rows, 21u);
    EXPECT_EQ(c.len, 3u);
}

TEST(StagedCopy, EmptyCopiesHaveNoChunks) {
    Chunk c;
    EXPECT_FALSE(ChunkWalk(0, 10, 64, true).next(c));
    EXPECT_FALSE(ChunkWalk(5, 0, 64, false).next(c));
    EXPECT_FALSE(ChunkWalk(0, 10, 64, false).next(c));
}

TEST(StagedCopy, ThreadsShareOnlyWhatIsWorthWaking) {
    EXPECT_EQ(copy_parts(100, 16, 1 << 20), 1);
    EXPECT_EQ(copy_parts(16u << 20, 16, 1 << 20), 16);
    EXPECT_EQ(copy_parts(5u << 20, 16, 1 << 20), 5);
    EXPECT_EQ(copy_parts(5u << 20, 0, 1 << 20), 1);
    EXPECT_EQ(copy_parts(5u << 20, 4, 0), 4);
}

}  // namespace
}  // namespace cclabel::detail
