#include "io_test_util.hpp"

namespace cclabel::iotest {
namespace {

struct TCase {
    const char* name;
    TiffSpec spec;
};

/// Random packed contiguous rows for @p s, few levels per sample so that colours repeat.
std::vector<std::uint8_t> tiff_data(const TiffSpec& s, std::uint32_t seed) {
    const std::size_t row_bytes = (std::size_t(s.width) * s.spp * s.bps + 7) / 8;
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> d(row_bytes * s.height);
    if (s.bps < 8) {
        for (auto& b : d) b = std::uint8_t(rng());
        return d;
    }
    const std::size_t bytes = std::size_t(s.bps) / 8;
    for (std::size_t i = 0; i + bytes <= d.size(); i += bytes) {
        const std::uint32_t pick = rng() % 3;
        const std::uint32_t v = pick == 0 ? 0u : pick == 1 ? 0xFFFFFFFFu : 0x01020304u * (rng() % 5);
        std::memcpy(&d[i], &v, bytes);
    }
    return d;
}

/// What the reader must produce from @p data (native-endian, contiguous) under spec @p s.
std::vector<std::uint8_t> expected(const TiffSpec& s, const std::vector<std::uint8_t>& data, PixelFormat* f) {
    const std::size_t n = std::size_t(s.width) * s.height;
    std::vector<std::uint8_t> out;
    if (s.bps < 8) {
        *f = PixelFormat::Gray8;
        const std::size_t row_bytes = (std::size_t(s.width) * s.bps + 7) / 8;
        const unsigned max = (1u << s.bps) - 1;
        for (std::uint32_t y = 0; y < s.height; ++y) {
            for (std::uint32_t x = 0; x < s.width; ++x) {
                const std::size_t bit = std::size_t(x) * s.bps;
                unsigned v = (data[y * row_bytes + bit / 8] >> (8 - s.bps - bit % 8)) & max;
                if (s.photometric == PHOTOMETRIC_MINISWHITE) v = max - v;
                out.push_back(std::uint8_t(v * 255 / max));
            }
        }
        return out;
    }
    const std::size_t bytes = std::size_t(s.bps) / 8;
    if (s.spp == 1) {
        *f = bytes == 1 ? PixelFormat::Gray8 : bytes == 2 ? PixelFormat::Gray16 : PixelFormat::U32;
        return data;
    }
    if (bytes == 1 && s.spp == 2) {
        *f = PixelFormat::RGBA8;
        for (std::size_t i = 0; i < n; ++i) out.insert(out.end(), {data[2 * i], data[2 * i], data[2 * i], data[2 * i + 1]});
        return out;
    }
    if (bytes == 1) {
        *f = s.spp == 3 ? PixelFormat::RGB8 : PixelFormat::RGBA8;
        return data;
    }
    *f = PixelFormat::U32;
    if (bytes == 2 && s.spp == 2) {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint16_t g, a;
            std::memcpy(&g, &data[4 * i], 2);
            std::memcpy(&a, &data[4 * i + 2], 2);
            const std::uint32_t v = g | std::uint32_t(a) << 16;
            out.insert(out.end(), reinterpret_cast<const std::uint8_t*>(&v), reinterpret_cast<const std::uint8_t*>(&v) + 4);
        }
        return out;
    }
    std::unordered_map<std::string, std::uint32_t> ids;  // colour indices in raster order
    const std::size_t px = bytes * s.spp;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string key(reinterpret_cast<const char*>(&data[i * px]), px);
        const std::uint32_t v = ids.try_emplace(key, std::uint32_t(ids.size())).first->second;
        out.insert(out.end(), reinterpret_cast<const std::uint8_t*>(&v), reinterpret_cast<const std::uint8_t*>(&v) + 4);
    }
    return out;
}

TiffSpec spec(std::uint32_t w, std::uint32_t h, int spp, int bps) {
    TiffSpec s;
    s.width = w;
    s.height = h;
    s.spp = spp;
    s.bps = bps;
    s.photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    s.alpha = spp == 2 || spp == 4;
    return s;
}

void check_round_trip(const TiffSpec& s, std::uint32_t seed) {
    TempDir dir;
    const std::string path = dir.path("t.tif");
    const auto data = tiff_data(s, seed);
    write_tiff(path, s, data);
    const io::Image img = io::read_image(path);
    PixelFormat f;
    const auto want = expected(s, data, &f);
    ASSERT_EQ(img.width, s.width);
    ASSERT_EQ(img.height, s.height);
    ASSERT_EQ(img.format, f) << img.description;
    ASSERT_EQ(img.pixels, want) << img.description;
}

TEST(Tiff, EveryDepthAndChannelCountInStrips) {
    for (int spp : {1, 2, 3, 4}) {
        for (int bps : {1, 2, 4, 8, 16, 32}) {
            if (bps < 8 && spp > 1) continue;
            if (bps == 32 && spp > 2) continue;
            SCOPED_TRACE("spp " + std::to_string(spp) + " bps " + std::to_string(bps));
            for (std::uint32_t rps : {0u, 1u, 5u}) {
                TiffSpec s = spec(37, 23, spp, bps);
                s.rows_per_strip = rps;
                check_round_trip(s, std::uint32_t(spp * 100 + bps));
            }
        }
    }
}

TEST(Tiff, CompressedBigEndianAndBigTiff) {
    for (int comp : {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE, COMPRESSION_PACKBITS}) {
        for (bool be : {false, true}) {
            for (int bps : {8, 16, 32}) {
                TiffSpec s = spec(33, 17, 1, bps);
                s.compression = comp;
                s.big_endian = be;
                s.bigtiff = be;
                s.rows_per_strip = 4;
                SCOPED_TRACE("compression " + std::to_string(comp) + (be ? " big-endian" : "") + " bps " + std::to_string(bps));
                check_round_trip(s, 5);
            }
        }
    }
    TiffSpec rgb16 = spec(20, 9, 3, 16);
    rgb16.big_endian = true;
    rgb16.compression = COMPRESSION_LZW;
    check_round_trip(rgb16, 9);
}

TEST(Tiff, TilesIncludingPartialEdgeTiles) {
    for (auto [w, h] : {std::pair{16u, 16u}, {17u, 33u}, {40u, 5u}, {1u, 1u}}) {
        for (int spp : {1, 3, 4}) {
            for (int bps : {1, 8, 16}) {
                if (bps == 1 && spp > 1) continue;
                TiffSpec s = spec(w, h, spp, bps);
                s.tile_w = 16;
                s.tile_h = 16;
                s.compression = COMPRESSION_ADOBE_DEFLATE;
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " spp " + std::to_string(spp) + " bps " + std::to_string(bps));
                check_round_trip(s, w + h);
            }
        }
    }
}

TEST(Tiff, SeparatePlanesInStripsAndTiles) {
    for (bool tiled : {false, true}) {
        for (int bps : {8, 16}) {
            TiffSpec s = spec(21, 19, 3, bps);
            s.separate = true;
            if (tiled) s.tile_w = s.tile_h = 16;
            s.rows_per_strip = 4;
            check_round_trip(s, 11);
            TiffSpec a = spec(21, 19, 4, 8);
            a.separate = true;
            if (tiled) a.tile_w = a.tile_h = 16;
            check_round_trip(a, 12);
        }
    }
}

TEST(Tiff, MinIsWhiteOneBitAndFloat) {
    TiffSpec s = spec(13, 5, 1, 1);
    s.photometric = PHOTOMETRIC_MINISWHITE;
    check_round_trip(s, 3);
    TiffSpec f = spec(13, 5, 1, 32);
    f.sample_format = SAMPLEFORMAT_IEEEFP;
    check_round_trip(f, 4);  // float32 is read bitwise as U32
    TiffSpec i = spec(13, 5, 1, 16);
    i.sample_format = SAMPLEFORMAT_INT;
    check_round_trip(i, 4);
}

TEST(Tiff, MultiPageReadsTheFirstPage) {
    TiffSpec s = spec(9, 7, 3, 8);
    s.pages = 3;
    check_round_trip(s, 8);
}

TEST(Tiff, PaletteIsExpanded) {
    TempDir dir;
    for (bool eight : {true, false}) {
        TiffSpec s = spec(11, 6, 1, 4);
        s.photometric = PHOTOMETRIC_PALETTE;
        s.colormap.assign(3 * 16, 0);
        // Entries 0 and 1 are the same colour.
        for (int i = 0; i < 16; ++i) {
            const int c = i == 1 ? 0 : i;
            s.colormap[i] = std::uint16_t(eight ? c * 16 * 257 : c * 1000 + 1);
            s.colormap[16 + i] = std::uint16_t(eight ? 255 * 257 : 7);
            s.colormap[32 + i] = 0;
        }
        const auto data = tiff_data(s, 2);
        write_tiff(dir.path("p.tif"), s, data);
        const io::Image img = io::read_image(dir.path("p.tif"));
        ASSERT_EQ(img.format, eight ? PixelFormat::RGB8 : PixelFormat::U32);
        std::unordered_map<int, std::uint32_t> ids;
        for (std::size_t i = 0; i < 66; ++i) {
            const std::size_t row_bytes = 6;
            const std::size_t x = i % 11, y = i / 11;
            int idx = (data[y * row_bytes + x / 2] >> (x % 2 ? 0 : 4)) & 15;
            if (idx == 1) idx = 0;
            if (eight) {
                ASSERT_EQ(img.pixels[3 * i], s.colormap[idx] >> 8);
                ASSERT_EQ(img.pixels[3 * i + 1], 255);
            } else {
                std::uint32_t v;
                std::memcpy(&v, &img.pixels[4 * i], 4);
                ASSERT_EQ(v, ids.try_emplace(idx, std::uint32_t(ids.size())).first->second);
            }
        }
    }
}

TEST(Tiff, UnsupportedLayoutsAreClearErrors) {
    TempDir dir;
    TiffSpec cmyk = spec(4, 4, 4, 8);
    cmyk.photometric = PHOTOMETRIC_SEPARATED;
    cmyk.alpha = false;
    write_tiff(dir.path("cmyk.tif"), cmyk, tiff_data(cmyk, 1));
    expect_read_error(dir.path("cmyk.tif"));
    TiffSpec d = spec(4, 4, 1, 64);
    d.sample_format = SAMPLEFORMAT_IEEEFP;
    write_tiff(dir.path("f64.tif"), d, std::vector<std::uint8_t>(4 * 4 * 8));
    expect_read_error(dir.path("f64.tif"));
    try {
        io::read_image(dir.path("f64.tif"));
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace cclabel::iotest
