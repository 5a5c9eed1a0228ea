#include "io_test_util.hpp"

namespace cclabel::iotest {
namespace {

/// Random PNG samples at @p depth for @p channels per pixel, in PNG's layout (big-endian 16-bit,
/// packed sub-byte), and each sample's value.
struct Samples {
    std::vector<std::uint8_t> file;
    std::vector<std::uint32_t> values;  // per sample
};

Samples make_samples(std::uint32_t w, std::uint32_t h, int channels, int depth, std::uint32_t seed, unsigned levels = 0) {
    std::mt19937 rng(seed);
    const unsigned max = depth == 16 ? 0xFFFF : (1u << depth) - 1;
    Samples s;
    const std::size_t row_bytes = (std::size_t(w) * channels * depth + 7) / 8;
    s.file.assign(row_bytes * h, 0);
    for (std::uint32_t y = 0; y < h; ++y) {
        for (std::uint32_t i = 0; i < w * std::uint32_t(channels); ++i) {
            // Few levels so that regions and repeated colours occur; the extremes always appear.
            unsigned v = levels ? (rng() % levels) * (max / (levels - 1)) : rng() % (max + 1);
            if (v > max) v = max;
            s.values.push_back(v);
            std::uint8_t* row = s.file.data() + y * row_bytes;
            if (depth == 16) {
                row[2 * i] = std::uint8_t(v >> 8);
                row[2 * i + 1] = std::uint8_t(v);
            } else if (depth == 8) {
                row[i] = std::uint8_t(v);
            } else {
                const std::size_t bit = std::size_t(i) * depth;
                row[bit / 8] |= std::uint8_t(v << (8 - depth - bit % 8));
            }
        }
    }
    return s;
}

std::uint32_t u32_at(const io::Image& img, std::size_t i) {
    std::uint32_t v;
    std::memcpy(&v, img.pixels.data() + 4 * i, 4);
    return v;
}

/// Checks that U32 colour indices number the distinct keys in raster order of first appearance.
void expect_indices(const io::Image& img, const std::vector<std::uint64_t>& keys) {
    ASSERT_EQ(img.format, PixelFormat::U32);
    ASSERT_EQ(img.pixels.size(), keys.size() * 4);
    std::unordered_map<std::uint64_t, std::uint32_t> ids;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto it = ids.try_emplace(keys[i], std::uint32_t(ids.size())).first;
        ASSERT_EQ(u32_at(img, i), it->second) << "pixel " << i;
    }
}

struct Case {
    int colour, depth;
    bool interlace;
};

class PngRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(PngRoundTrip, PixelsMatch) {
    const Case c = GetParam();
    TempDir dir;
    const int ch = c.colour == PNG_COLOR_TYPE_GRAY ? 1 : c.colour == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : c.colour == PNG_COLOR_TYPE_RGB ? 3 : 4;
    for (const auto [w, h] : {std::pair{1u, 1u}, {37u, 23u}, {64u, 3u}, {3u, 65u}}) {
        const Samples s = make_samples(w, h, ch, c.depth, w * 131 + h, 3);
        const std::string path = dir.path("a.png");
        write_png(path, PngSpec{w, h, c.colour, c.depth, c.interlace, {}, {}}, s.file);
        const io::Image img = io::read_image(path);
        ASSERT_EQ(img.width, w);
        ASSERT_EQ(img.height, h);
        EXPECT_EQ(img.description.rfind("png ", 0), 0u) << img.description;
        const std::size_t n = std::size_t(w) * h;
        if (c.depth < 8) {
            ASSERT_EQ(img.format, PixelFormat::Gray8);
            const unsigned max = (1u << c.depth) - 1;
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(img.pixels[i], s.values[i] * 255 / max) << i;
        } else if (c.depth == 8) {
            if (ch == 2) {
                ASSERT_EQ(img.format, PixelFormat::RGBA8);
                for (std::size_t i = 0; i < n; ++i) {
                    for (int k = 0; k < 3; ++k) ASSERT_EQ(img.pixels[4 * i + k], s.values[2 * i]);
                    ASSERT_EQ(img.pixels[4 * i + 3], s.values[2 * i + 1]);
                }
            } else {
                ASSERT_EQ(img.format, ch == 1 ? PixelFormat::Gray8 : ch == 3 ? PixelFormat::RGB8 : PixelFormat::RGBA8);
                ASSERT_EQ(img.pixels.size(), s.values.size());
                for (std::size_t i = 0; i < s.values.size(); ++i) ASSERT_EQ(img.pixels[i], s.values[i]) << i;
            }
        } else if (ch == 1) {
            ASSERT_EQ(img.format, PixelFormat::Gray16);
            for (std::size_t i = 0; i < n; ++i) {
                std::uint16_t v;
                std::memcpy(&v, img.pixels.data() + 2 * i, 2);
                ASSERT_EQ(v, s.values[i]) << i;
            }
        } else if (ch == 2) {
            ASSERT_EQ(img.format, PixelFormat::U32);
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(u32_at(img, i), s.values[2 * i] | s.values[2 * i + 1] << 16);
        } else {
            std::vector<std::uint64_t> keys(n);
            for (std::size_t i = 0; i < n; ++i) {
                for (int k = 0; k < ch; ++k) keys[i] |= std::uint64_t(s.values[i * ch + k]) << (16 * k);
            }
            expect_indices(img, keys);
        }
    }
}

std::vector<Case> all_cases() {
    std::vector<Case> v;
    for (bool il : {false, true}) {
        for (int d : {1, 2, 4, 8, 16}) v.push_back({PNG_COLOR_TYPE_GRAY, d, il});
        for (int col : {PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA}) {
            for (int d : {8, 16}) v.push_back({col, d, il});
        }
    }
    return v;
}

INSTANTIATE_TEST_SUITE_P(All, PngRoundTrip, ::testing::ValuesIn(all_cases()), [](const auto& info) {
    const Case c = info.param;
    return "c" + std::to_string(c.colour) + "_d" + std::to_string(c.depth) + (c.interlace ? "_interlaced" : "");
});

TEST(Png, SixteenBitIsReadBigEndianIntoNativeOrder) {
    TempDir dir;
    write_png(dir.path("a.png"), PngSpec{2, 1, PNG_COLOR_TYPE_GRAY, 16, false, {}, {}}, {0x12, 0x34, 0xFF, 0x01});
    const io::Image img = io::read_image(dir.path("a.png"));
    ASSERT_EQ(img.format, PixelFormat::Gray16);
    std::uint16_t v[2];
    std::memcpy(v, img.pixels.data(), 4);
    EXPECT_EQ(v[0], 0x1234);
    EXPECT_EQ(v[1], 0xFF01);
}

TEST(Png, PaletteIsExpandedAndEqualEntriesAreOneColour) {
    TempDir dir;
    for (int depth : {1, 2, 4, 8}) {
        for (bool il : {false, true}) {
            // Entries 0 and 1 hold the same colour: the picture must not tell them apart.
            const std::vector<png_color> pal = {{10, 20, 30}, {10, 20, 30}, {200, 0, 5}, {0, 0, 0}};
            const int entries = depth == 1 ? 2 : 4;
            const Samples s = make_samples(19, 7, 1, depth, 7u + depth, 0);
            std::vector<std::uint8_t> file = s.file;
            std::vector<std::uint32_t> idx = s.values;
            if (depth == 8) {
                for (auto& b : file) b %= entries;
                for (auto& v : idx) v %= entries;
            } else if (depth == 4) {
                for (auto& b : file) b &= 0x33;
                for (auto& v : idx) v &= 3;
            }
            const std::string path = dir.path("p.png");
            write_png(path, PngSpec{19, 7, PNG_COLOR_TYPE_PALETTE, depth, il,
                                    std::vector<png_color>(pal.begin(), pal.begin() + entries), {}},
                      file);
            const io::Image img = io::read_image(path);
            ASSERT_EQ(img.format, PixelFormat::RGB8);
            for (std::size_t i = 0; i < idx.size(); ++i) {
                ASSERT_EQ(img.pixels[3 * i], pal[idx[i]].red);
                ASSERT_EQ(img.pixels[3 * i + 1], pal[idx[i]].green);
                ASSERT_EQ(img.pixels[3 * i + 2], pal[idx[i]].blue);
            }
            // With tRNS the alpha takes part: entries 0 and 1 now differ.
            write_png(path, PngSpec{19, 7, PNG_COLOR_TYPE_PALETTE, depth, il,
                                    std::vector<png_color>(pal.begin(), pal.begin() + entries), {255, 0}},
                      file);
            const io::Image a = io::read_image(path);
            ASSERT_EQ(a.format, PixelFormat::RGBA8);
            for (std::size_t i = 0; i < idx.size(); ++i) {
                ASSERT_EQ(a.pixels[4 * i], pal[idx[i]].red);
                ASSERT_EQ(a.pixels[4 * i + 3], idx[i] == 1 ? 0 : 255);
            }
        }
    }
}

}  // namespace
}  // namespace cclabel::iotest
