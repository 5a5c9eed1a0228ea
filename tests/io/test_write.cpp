#include "io_test_util.hpp"

namespace cclabel::iotest {
namespace {

std::vector<std::uint32_t> labels_of(std::int64_t w, std::int64_t h) {
    std::vector<std::uint32_t> l(std::size_t(w * h));
    for (std::size_t i = 0; i < l.size(); ++i) l[i] = std::uint32_t(i % 7 == 0 ? 0 : i / 3) | (i == 5 ? 0xFFFFFFFFu : 0);
    return l;
}

TEST(WriteLabels, NpyBytesFollowTheFormatSpec) {
    TempDir dir;
    const auto l = labels_of(5, 3);
    io::write_labels(dir.path("l.npy"), l.data(), 5, 3);
    const auto f = read_bytes(dir.path("l.npy"));
    ASSERT_GE(f.size(), 10u);
    EXPECT_EQ(std::string(f.begin(), f.begin() + 6), "\x93NUMPY");
    EXPECT_EQ(f[6], 1);
    EXPECT_EQ(f[7], 0);
    const std::size_t hl = f[8] | f[9] << 8;
    ASSERT_EQ((10 + hl) % 64, 0u);  // data aligned as NumPy writes it
    const std::string header(f.begin() + 10, f.begin() + 10 + std::ptrdiff_t(hl));
    EXPECT_EQ(header.rfind("{'descr': '<u4', 'fortran_order': False, 'shape': (3, 5), }", 0), 0u) << header;
    EXPECT_EQ(header.back(), '\n');
    ASSERT_EQ(f.size(), 10 + hl + l.size() * 4);
    for (std::size_t i = 0; i < l.size(); ++i) {
        const std::uint8_t* p = f.data() + 10 + hl + 4 * i;
        ASSERT_EQ(std::uint32_t(p[0] | p[1] << 8 | p[2] << 16) | std::uint32_t(p[3]) << 24, l[i]);
    }
    // And the reader takes it back.
    const io::Image img = io::read_image(dir.path("l.npy"));
    ASSERT_EQ(img.format, PixelFormat::U32);
    ASSERT_EQ(img.pixels.size(), l.size() * 4);
    EXPECT_EQ(std::memcmp(img.pixels.data(), l.data(), img.pixels.size()), 0);
    // Zero-sized label images are valid .npy files.
    io::write_labels(dir.path("e.npy"), static_cast<const std::uint32_t*>(nullptr), 0, 4);
    EXPECT_EQ(io::read_image(dir.path("e.npy")).height, 4);
}

TEST(WriteLabels, TiffReadsBackThroughLibtiff) {
    TempDir dir;
    for (auto [w, h] : {std::pair{5, 3}, {1, 1}, {300, 1000}, {70001, 2}}) {
        const auto l = labels_of(w, h);
        for (const char* name : {"l.tif", "L.TIFF"}) {
            const std::string p = dir.path(name);
            io::write_labels(p, l.data(), w, h);
            TIFF* tif = TIFFOpen(p.c_str(), "r");
            ASSERT_NE(tif, nullptr);
            std::uint32_t tw = 0, th = 0;
            std::uint16_t bps = 0, spp = 0, fmt = 0;
            TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &tw);
            TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &th);
            TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
            TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
            TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &fmt);
            EXPECT_EQ(tw, std::uint32_t(w));
            EXPECT_EQ(th, std::uint32_t(h));
            EXPECT_EQ(bps, 32);
            EXPECT_EQ(spp, 1);
            EXPECT_EQ(fmt, SAMPLEFORMAT_UINT);
            std::vector<std::uint32_t> row(static_cast<std::size_t>(w));
            for (int y = 0; y < h; ++y) {
                ASSERT_GE(TIFFReadScanline(tif, row.data(), std::uint32_t(y), 0), 0);
                ASSERT_EQ(std::memcmp(row.data(), l.data() + std::size_t(y) * std::size_t(w), row.size() * 4), 0) << y;
            }
            TIFFClose(tif);
            const io::Image img = io::read_image(p);
            EXPECT_EQ(img.format, PixelFormat::U32);
            EXPECT_EQ(std::memcmp(img.pixels.data(), l.data(), l.size() * 4), 0);
        }
    }
}

TEST(WriteLabels, BadExtensionsAndArgumentsAreErrors) {
    TempDir dir;
    const auto l = labels_of(2, 2);
    for (const char* name : {"l.png", "l", "l.tif.bak", "l.npz"}) {
        const std::string p = dir.path(name);
        try {
            io::write_labels(p, l.data(), 2, 2);
            ADD_FAILURE() << name;
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind(p + ": ", 0), 0u) << e.what();
        }
        EXPECT_FALSE(fs::exists(p));
    }
    EXPECT_THROW(io::write_labels(dir.path("a.npy"), l.data(), -1, 2), Error);
    EXPECT_THROW(io::write_labels(dir.path("a.npy"), static_cast<const std::uint32_t*>(nullptr), 2, 2), Error);
    EXPECT_THROW(io::write_labels(dir.path("a.npy"), l.data(), 65536, 65536), Error);
    EXPECT_THROW(io::write_labels(dir.path("a.tif"), l.data(), 0, 2), Error);
    EXPECT_THROW(io::write_labels(dir.path("no/such/dir/a.npy"), l.data(), 2, 2), Error);
    EXPECT_THROW(io::write_labels(dir.path("no/such/dir/a.tif"), l.data(), 2, 2), Error);
}

// 64-bit labels (label_tiled's output for pictures of more than 2^32 - 1 pixels): '<u8' .npy and
// 64-bit unsigned TIFF, values above 2^32 kept.
TEST(WriteLabels, Uint64NpyAndTiff) {
    TempDir dir;
    const std::int64_t w = 7, h = 3;
    std::vector<std::uint64_t> l(std::size_t(w * h));
    for (std::size_t i = 0; i < l.size(); ++i) l[i] = i % 5 == 0 ? 0 : (std::uint64_t(i) << 33) + i;
    io::write_labels(dir.path("l.npy"), l.data(), w, h);
    const auto f = read_bytes(dir.path("l.npy"));
    ASSERT_GE(f.size(), 10u);
    const std::size_t hl = f[8] | f[9] << 8;
    ASSERT_EQ((10 + hl) % 64, 0u);
    const std::string header(f.begin() + 10, f.begin() + 10 + std::ptrdiff_t(hl));
    EXPECT_EQ(header.rfind("{'descr': '<u8', 'fortran_order': False, 'shape': (3, 7), }", 0), 0u) << header;
    ASSERT_EQ(f.size(), 10 + hl + l.size() * 8);
    for (std::size_t i = 0; i < l.size(); ++i) {
        std::uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = v << 8 | f[10 + hl + 8 * i + std::size_t(b)];
        ASSERT_EQ(v, l[i]) << i;
    }

    const std::string p = dir.path("l.tif");
    io::write_labels(p, l.data(), w, h);
    TIFF* tif = TIFFOpen(p.c_str(), "r");
    ASSERT_NE(tif, nullptr);
    std::uint16_t bps = 0, fmt = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &fmt);
    EXPECT_EQ(bps, 64);
    EXPECT_EQ(fmt, SAMPLEFORMAT_UINT);
    std::vector<std::uint64_t> row(static_cast<std::size_t>(w));
    for (std::int64_t y = 0; y < h; ++y) {
        ASSERT_GE(TIFFReadScanline(tif, row.data(), std::uint32_t(y), 0), 0);
        ASSERT_EQ(std::memcmp(row.data(), l.data() + y * w, row.size() * 8), 0) << y;
    }
    TIFFClose(tif);

    // No uint32 pixel limit (the data is not touched past the checks that fail first).
    EXPECT_THROW(io::write_labels(dir.path("a.npy"), static_cast<const std::uint64_t*>(nullptr), 65536, 65536), Error);
    io::write_labels(dir.path("e.npy"), static_cast<const std::uint64_t*>(nullptr), 0, 4);
}

TEST(Preview, StableColoursBlackBackground) {
    EXPECT_EQ(io::preview_colour(0), 0u);
    for (std::uint32_t l : {1u, 2u, 3u, 1000u, 0xFFFFFFFFu}) {
        EXPECT_EQ(io::preview_colour(l), io::preview_colour(l));
        for (int s = 0; s < 24; s += 8) EXPECT_GE((io::preview_colour(l) >> s) & 0xFF, 48u);
    }
    EXPECT_NE(io::preview_colour(1), io::preview_colour(2));
    TempDir dir;
    const std::vector<std::uint32_t> l = {0, 1, 1, 2, 0, 3};
    io::write_preview_png(dir.path("p.png"), l.data(), 3, 2);
    const io::Image img = io::read_image(dir.path("p.png"));
    ASSERT_EQ(img.format, PixelFormat::RGB8);
    ASSERT_EQ(img.width, 3);
    for (std::size_t i = 0; i < l.size(); ++i) {
        const std::uint32_t c = io::preview_colour(l[i]);
        EXPECT_EQ(img.pixels[3 * i], (c >> 16) & 0xFF);
        EXPECT_EQ(img.pixels[3 * i + 1], (c >> 8) & 0xFF);
        EXPECT_EQ(img.pixels[3 * i + 2], c & 0xFF);
    }
    EXPECT_THROW(io::write_preview_png(dir.path("no/dir/p.png"), l.data(), 3, 2), Error);
    EXPECT_THROW(io::write_preview_png(dir.path("p.png"), l.data(), 0, 2), Error);
}

}  // namespace
}  // namespace cclabel::iotest
