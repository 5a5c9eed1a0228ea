// The streamed labelling of TIFF pages (src/cli/streamed.*, io::TiffRowReader, io::LabelRowWriter):
// labels equal label() on the whole picture for stripped and tiled files of several formats, odd
// sizes, tiles that cut every region, 1-row bands, both connectivities, with and without a
// background, uint32 and uint64 output.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "cclabel/cclabel.hpp"
#include "cli/streamed.hpp"
#include "cli/stream_test_util.hpp"
#include "io/tiff_stream.hpp"

namespace cclabel::cli {
namespace {

using iotest::TempDir;
using iotest::TiffSpec;

/// Blobs of a few values over noise: regions of every size, most crossing any tile edge.
std::vector<std::uint8_t> blobs(std::uint32_t w, std::uint32_t h, int spp, int bytes, std::uint32_t seed) {
    std::mt19937 rng(seed);
    const std::size_t px = std::size_t(w) * h;
    std::vector<std::uint8_t> v(px * std::size_t(spp * bytes));
    std::vector<int> cls(px);
    const int cx = int(rng() % std::max(w, 1u)), cy = int(rng() % std::max(h, 1u));
    for (std::uint32_t y = 0; y < h; ++y)
        for (std::uint32_t x = 0; x < w; ++x) {
            const int dx = int(x) - cx, dy = int(y) - cy;
            int c = ((dx * dx + dy * dy) / 97 + (x / 9 + y / 7) % 2) % 3;
            if (rng() % 16 == 0) c = 3 + int(rng() % 2);  // specks
            cls[std::size_t(y) * w + x] = c;
        }
    for (std::size_t i = 0; i < px; ++i)
        for (int s = 0; s < spp * bytes; ++s) v[i * std::size_t(spp * bytes) + std::size_t(s)] = std::uint8_t(cls[i] * 40 + s);
    return v;
}

std::vector<std::uint64_t> read_npy_values(const std::string& path) {
    const std::vector<std::uint8_t> b = iotest::read_bytes(path);
    EXPECT_GE(b.size(), 10u);
    const std::size_t len = b[8] | std::size_t(b[9]) << 8;
    const std::string head(b.begin() + 10, b.begin() + 10 + std::ptrdiff_t(len));
    const std::size_t bytes = head.find("'<u8'") != std::string::npos ? 8 : 4;
    std::vector<std::uint64_t> v((b.size() - 10 - len) / bytes);
    for (std::size_t i = 0; i < v.size(); ++i) std::memcpy(&v[i], b.data() + 10 + len + i * bytes, bytes);
    return v;
}

struct Case {
    const char* name;
    TiffSpec spec;
    int bytes;  // per sample
};

std::vector<Case> cases() {
    std::vector<Case> c;
    auto add = [&](const char* name, std::uint32_t w, std::uint32_t h, int spp, int bps, int photometric, std::uint32_t tile,
                   std::uint32_t rps, int compression) {
        c.push_back({name, tiff_spec(w, h, spp, bps, photometric, rps, tile, compression), bps / 8});
    };
    add("gray8 strips", 61, 47, 1, 8, PHOTOMETRIC_MINISBLACK, 0, 5, COMPRESSION_ADOBE_DEFLATE);
    add("gray8 tiles", 67, 53, 1, 8, PHOTOMETRIC_MINISBLACK, 16, 0, COMPRESSION_LZW);
    add("rgb8 strips", 45, 38, 3, 8, PHOTOMETRIC_RGB, 0, 1, COMPRESSION_NONE);
    add("rgb8 tiles", 50, 33, 3, 8, PHOTOMETRIC_RGB, 32, 0, COMPRESSION_ADOBE_DEFLATE);
    add("gray16 strips", 39, 41, 1, 16, PHOTOMETRIC_MINISBLACK, 0, 7, COMPRESSION_LZW);
    add("gray16 tiles", 35, 49, 1, 16, PHOTOMETRIC_MINISBLACK, 16, 0, COMPRESSION_NONE);
    add("rgba8 strips", 29, 31, 4, 8, PHOTOMETRIC_RGB, 0, 3, COMPRESSION_NONE);
    add("one row", 73, 1, 1, 8, PHOTOMETRIC_MINISBLACK, 0, 1, COMPRESSION_NONE);
    add("one column", 1, 59, 3, 8, PHOTOMETRIC_RGB, 0, 4, COMPRESSION_ADOBE_DEFLATE);
    return c;
}

TEST(Streamed, EqualsWholeImageLabelling) {
    TempDir dir;
    std::uint32_t seed = 1;
    for (const Case& c : cases()) {
        const std::string in = dir.path("in.tif");
        const TiffSpec& s = c.spec;
        iotest::write_tiff(in, s, blobs(s.width, s.height, s.spp, c.bytes, seed++));
        const io::Image img = io::read_image(in);
        for (int conn : {4, 8}) {
            for (bool bg : {false, true}) {
                Options o;
                o.connectivity = conn;
                o.threads = 2;
                if (bg) o.background = std::vector<std::uint64_t>(std::size_t(s.spp), 0);  // class 0's value: 0 + s
                if (bg) for (int k = 0; k < s.spp; ++k) (*o.background)[std::size_t(k)] = std::uint64_t(k);
                if (bg && c.bytes == 2) (*o.background)[0] = 0x0100;  // gray16: bytes 0, 1 of class 0
                std::vector<std::uint32_t> want(std::size_t(img.width * img.height));
                const LabelResult lr = label(img.view(), want.data(), o);
                const std::vector<StreamPlan> plans = {{s.width, 1}, {7, 5}, {1, 3}, {s.width, s.height}, {13, 1},
                                                       plan_stream(s.width, s.height, img.format, 1, std::nullopt)};
                for (const StreamPlan& p : plans) {
                    for (std::uint64_t limit : {kMaxPixels, std::uint64_t(1)}) {  // uint32 and uint64 output
                        SCOPED_TRACE(std::string(c.name) + ", conn " + std::to_string(conn) + (bg ? ", background" : "") +
                                     ", tiles " + std::to_string(p.tile_width) + "x" + std::to_string(p.band_rows) +
                                     ", limit " + std::to_string(limit));
                        const std::string out = dir.path(limit == 1 ? "out.npy" : "out.tif");
                        const StreamedResult r = label_streamed(
                            [&] { return std::make_unique<io::TiffRowReader>(in); },
                            [&](int bytes) { return std::make_unique<io::LabelRowWriter>(out, s.width, s.height, bytes); }, o,
                            p, limit);
                        ASSERT_EQ(r.count, lr.count);
                        ASSERT_EQ(r.label_bytes, lr.count > limit ? 8 : 4);
                        std::vector<std::uint64_t> got;
                        if (limit == 1) {
                            got = read_npy_values(out);
                        } else {
                            const io::Image li = io::read_image(out);
                            ASSERT_EQ(li.format, PixelFormat::U32);
                            got.resize(want.size());
                            for (std::size_t i = 0; i < got.size(); ++i) {
                                std::uint32_t v;
                                std::memcpy(&v, li.pixels.data() + 4 * i, 4);
                                got[i] = v;
                            }
                        }
                        ASSERT_EQ(got.size(), want.size());
                        for (std::size_t i = 0; i < want.size(); ++i)
                            ASSERT_EQ(got[i], want[i]) << "at x=" << i % s.width << " y=" << i / s.width;
                    }
                }
            }
        }
    }
}

TEST(Streamed, CountWithoutOutput) {
    TempDir dir;
    const TiffSpec s = tiff_spec(40, 30, 1, 8, PHOTOMETRIC_MINISBLACK, 4);
    const std::string in = dir.path("in.tif");
    iotest::write_tiff(in, s, blobs(40, 30, 1, 1, 9));
    const io::Image img = io::read_image(in);
    std::vector<std::uint32_t> want(40 * 30);
    const LabelResult lr = label(img.view(), want.data(), {});
    const StreamedResult r = label_streamed([&] { return std::make_unique<io::TiffRowReader>(in); }, nullptr, {}, {9, 2},
                                            kMaxPixels);
    EXPECT_EQ(r.count, lr.count);
    EXPECT_EQ(r.tiles, 5u * 15u);
}

// Every layout the reader takes, row by row, equals read_image's whole picture.
TEST(TiffRowReader, RowsEqualWholeRead) {
    TempDir dir;
    std::vector<std::pair<const char*, TiffSpec>> specs;
    const auto spec = [](std::uint32_t w, std::uint32_t h, int spp, int bps, int photometric) {
        return tiff_spec(w, h, spp, bps, photometric);
    };
    TiffSpec s = spec(37, 23, 3, 8, PHOTOMETRIC_RGB);
    s.separate = true;
    s.rows_per_strip = 5;
    specs.push_back({"rgb planar strips", s});
    s.rows_per_strip = 0;
    s.tile_w = s.tile_h = 16;
    specs.push_back({"rgb planar tiles", s});
    s = spec(33, 19, 1, 1, PHOTOMETRIC_MINISWHITE);
    s.rows_per_strip = 4;
    specs.push_back({"1-bit min-is-white", s});
    s = spec(21, 17, 2, 16, PHOTOMETRIC_MINISBLACK);
    s.alpha = true;
    specs.push_back({"gray16+alpha", s});
    s = spec(26, 14, 3, 16, PHOTOMETRIC_RGB);
    s.tile_w = s.tile_h = 16;
    specs.push_back({"rgb16 tiles (indexed)", s});
    s = spec(30, 12, 1, 4, PHOTOMETRIC_PALETTE);
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < 16; ++i) s.colormap.push_back(std::uint16_t(((i * 37 + c * 11) % 256) * 257));
    specs.push_back({"palette 4-bit", s});
    for (const auto& [name, sp] : specs) {
        SCOPED_TRACE(name);
        const std::string in = dir.path("in.tif");
        const std::size_t row_bytes = (std::size_t(sp.width) * std::size_t(sp.spp) * std::size_t(sp.bps) + 7) / 8;
        iotest::write_tiff(in, sp, iotest::random_bytes(row_bytes * sp.height, 7, 3));
        const io::Image img = io::read_image(in);
        io::TiffRowReader r(in);
        ASSERT_EQ(r.width(), img.width);
        ASSERT_EQ(r.height(), img.height);
        ASSERT_EQ(r.format(), img.format);
        std::vector<std::uint8_t> got(img.pixels.size());
        const std::size_t row = got.size() / std::size_t(img.height);
        std::int64_t y = 0;
        for (std::int64_t n = 1; y < img.height; y += n, n = n % 3 + 1) {
            n = std::min(n, img.height - y);
            r.read(got.data() + std::size_t(y) * row, n);
        }
        EXPECT_EQ(r.rows_read(), img.height);
        EXPECT_EQ(got, img.pixels);
    }
}

TEST(TiffRowReader, TwoPagesAndBadPage) {
    TempDir dir;
    TiffSpec s = tiff_spec(9, 4);
    s.pages = 2;
    const std::string in = dir.path("in.tif");
    iotest::write_tiff(in, s, iotest::random_bytes(36, 3));
    io::PageReader pages(in);
    const io::Page second = pages.read(1);
    io::TiffRowReader r(in, 1);
    std::vector<std::uint8_t> got(36);
    r.read(got.data(), 4);
    EXPECT_EQ(got, second.image.pixels);
    EXPECT_THROW(io::TiffRowReader(in, 2), Error);
}

TEST(StreamPlan, BandsFromTheBudget) {
    // gray8: 5 bytes a pixel of a band (pixel + local label).
    EXPECT_EQ(band_bytes(100, PixelFormat::Gray8, 3), 1500u);
    StreamPlan p = plan_stream(100, 1000, PixelFormat::Gray8, 5000, std::nullopt);
    EXPECT_EQ(p.tile_width, 100);
    EXPECT_EQ(p.band_rows, 10);
    p = plan_stream(100, 1000, PixelFormat::Gray8, 1, std::nullopt);  // below one row: one row
    EXPECT_EQ(p.band_rows, 1);
    p = plan_stream(100, 7, PixelFormat::RGB8, std::uint64_t(1) << 30, std::nullopt);  // clipped to the page
    EXPECT_EQ(p.band_rows, 7);
    p = plan_stream(100, 1000, PixelFormat::Gray8, 1, TileSize{30, 20});
    EXPECT_EQ(p.tile_width, 30);
    EXPECT_EQ(p.band_rows, 20);
    p = plan_stream(3000000000, 10, PixelFormat::Gray8, std::uint64_t(1) << 40, std::nullopt);  // tiles under 2^32 px
    EXPECT_LE(std::uint64_t(p.tile_width) * std::uint64_t(p.band_rows), kMaxPixels);
}

}  // namespace
}  // namespace cclabel::cli
