// Corrupt, truncated and hostile inputs: each must give a cclabel::Error naming the file, never a
// crash (this suite also runs under ASan/UBSan).
#include <zlib.h>

#include "io_test_util.hpp"

namespace cclabel::iotest {
namespace {

/// Small valid files of every kind, written by the libraries themselves.
std::vector<std::pair<std::string, std::vector<std::uint8_t>>> samples(const TempDir& dir) {
    std::vector<std::pair<std::string, std::vector<std::uint8_t>>> out;
    const auto add = [&](const std::string& name) { out.emplace_back(name, read_bytes(dir.path(name))); };
    write_png(dir.path("rgb.png"), PngSpec{13, 11, PNG_COLOR_TYPE_RGB, 8, false, {}, {}}, random_bytes(13 * 11 * 3, 1, 4));
    add("rgb.png");
    write_png(dir.path("il16.png"), PngSpec{9, 9, PNG_COLOR_TYPE_GRAY_ALPHA, 16, true, {}, {}}, random_bytes(9 * 9 * 4, 2, 3));
    add("il16.png");
    write_png(dir.path("pal.png"), PngSpec{10, 5, PNG_COLOR_TYPE_PALETTE, 2, false, {{1, 2, 3}, {4, 5, 6}}, {9}},
              std::vector<std::uint8_t>(15, 0x14));
    add("pal.png");
    TiffSpec t;
    t.width = 19;
    t.height = 9;
    t.spp = 3;
    t.photometric = PHOTOMETRIC_RGB;
    t.rows_per_strip = 3;
    write_tiff(dir.path("strips.tif"), t, random_bytes(19 * 9 * 3, 3, 4));
    add("strips.tif");
    t.compression = COMPRESSION_ADOBE_DEFLATE;
    t.tile_w = t.tile_h = 16;
    t.bps = 16;
    t.big_endian = true;
    write_tiff(dir.path("tiles.tif"), t, random_bytes(19 * 9 * 6, 4, 4));
    add("tiles.tif");
    TiffSpec l;
    l.width = 30;
    l.height = 7;
    l.compression = COMPRESSION_LZW;
    l.rows_per_strip = 2;
    write_tiff(dir.path("lzw.tif"), l, random_bytes(30 * 7, 5, 3));
    add("lzw.tif");
    return out;
}

TEST(Corrupt, TruncatedAtEveryByteOfSmallFiles) {
    TempDir dir;
    const std::string p = dir.path("cut");
    for (const auto& [name, bytes] : samples(dir)) {
        // A valid file really reads (so the cuts below test the reader, not a broken sample).
        write_bytes(p, bytes);
        ASSERT_NO_THROW(io::read_image(p)) << name;
        // TIFF directories sit at the end in libtiff's files, so every cut loses the directory or
        // a strip; PNG cuts lose IEND at least.
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            write_bytes(p, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + std::ptrdiff_t(n)));
            expect_read_error(p, name + " cut at " + std::to_string(n));
        }
    }
}

TEST(Corrupt, TruncatedAtEighthsOfLargerFiles) {
    TempDir dir;
    write_png(dir.path("big.png"), PngSpec{300, 200, PNG_COLOR_TYPE_RGB_ALPHA, 16, false, {}, {}}, random_bytes(300 * 200 * 8, 9));
    TiffSpec t;
    t.width = 300;
    t.height = 200;
    t.bps = 16;
    t.compression = COMPRESSION_ADOBE_DEFLATE;
    write_tiff(dir.path("big.tif"), t, random_bytes(300 * 200 * 2, 9));
    const std::string p = dir.path("cut");
    for (const char* name : {"big.png", "big.tif"}) {
        const auto bytes = read_bytes(dir.path(name));
        for (int k = 0; k < 8; ++k) {
            write_bytes(p, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + std::ptrdiff_t(bytes.size() * k / 8)));
            expect_read_error(p, std::string(name) + " at " + std::to_string(k) + "/8");
        }
    }
}

/// Rewrites one PNG chunk's CRC after its data was edited (or leaves it wrong when @p fix is false).
void set_crc(std::vector<std::uint8_t>& f, std::size_t chunk, bool fix) {
    const std::uint32_t len = std::uint32_t(f[chunk]) << 24 | f[chunk + 1] << 16 | f[chunk + 2] << 8 | f[chunk + 3];
    std::uint32_t crc = std::uint32_t(::crc32(0, f.data() + chunk + 4, len + 4));
    if (!fix) crc ^= 1;
    for (int i = 0; i < 4; ++i) f[chunk + 8 + len + std::size_t(i)] = std::uint8_t(crc >> (24 - 8 * i));
}

void put_be32(std::vector<std::uint8_t>& f, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) f[at + std::size_t(i)] = std::uint8_t(v >> (24 - 8 * i));
}

TEST(Corrupt, PngHeaderAndCrc) {
    TempDir dir;
    write_png(dir.path("a.png"), PngSpec{8, 8, PNG_COLOR_TYPE_GRAY, 8, false, {}, {}}, random_bytes(64, 1));
    const auto good = read_bytes(dir.path("a.png"));
    const std::string p = dir.path("b.png");
    // IHDR is the chunk at byte 8; its width at 16, height at 20.
    auto f = good;
    set_crc(f, 8, false);
    write_bytes(p, f);
    expect_read_error(p, "bad IHDR CRC");
    for (std::uint32_t w : {0u, 0x80000000u, 0xFFFFFFFFu}) {
        f = good;
        put_be32(f, 16, w);
        set_crc(f, 8, true);
        write_bytes(p, f);
        expect_read_error(p, "width " + std::to_string(w));
    }
    // A huge declared size in a tiny file: rejected before pixel memory is reserved.
    for (auto [w, h] : {std::pair{65535u, 65535u}, {1000000u, 4000u}, {100000u, 100000u}}) {
        f = good;
        put_be32(f, 16, w);
        put_be32(f, 20, h);
        set_crc(f, 8, true);
        write_bytes(p, f);
        expect_read_error(p, "huge");
    }
    // Corrupt IDAT data (with its CRC fixed up) and a bad IDAT CRC.
    const std::size_t idat = 8 + 25;
    f = good;
    for (std::size_t i = idat + 10; i < idat + 20 && i + 12 < f.size(); ++i) f[i] ^= 0x5A;
    set_crc(f, idat, true);
    write_bytes(p, f);
    expect_read_error(p, "IDAT data");
    f = good;
    set_crc(f, idat, false);
    write_bytes(p, f);
    expect_read_error(p, "IDAT CRC");
    // Bit depth 3, colour type 5: invalid IHDR fields.
    f = good;
    f[24] = 3;
    set_crc(f, 8, true);
    write_bytes(p, f);
    expect_read_error(p, "depth 3");
    f = good;
    f[25] = 5;
    set_crc(f, 8, true);
    write_bytes(p, f);
    expect_read_error(p, "colour 5");
}

/// libtiff writes classic little-endian files with the first IFD offset at byte 4.
struct Ifd {
    std::vector<std::uint8_t>& f;
    std::uint32_t at() const { return f[4] | f[5] << 8 | f[6] << 16 | std::uint32_t(f[7]) << 24; }
    /// Sets the value (inline SHORT or LONG) of @p tag; returns false when absent.
    bool set(std::uint16_t tag, std::uint32_t v) {
        const std::uint32_t o = at();
        const unsigned n = f[o] | f[o + 1] << 8;
        for (unsigned i = 0; i < n; ++i) {
            std::uint8_t* e = f.data() + o + 2 + 12 * i;
            if ((e[0] | e[1] << 8) != tag) continue;
            const unsigned type = e[2] | e[3] << 8;
            if (type == TIFF_SHORT) {
                e[8] = std::uint8_t(v);
                e[9] = std::uint8_t(v >> 8);
            } else {
                for (int k = 0; k < 4; ++k) e[8 + k] = std::uint8_t(v >> (8 * k));
            }
            return true;
        }
        return false;
    }
};

TEST(Corrupt, TiffFields) {
    TempDir dir;
    TiffSpec t;
    t.width = 20;
    t.height = 10;
    t.rows_per_strip = 10;  // one strip, so its offset and count are inline values
    write_tiff(dir.path("a.tif"), t, random_bytes(200, 1));
    const auto good = read_bytes(dir.path("a.tif"));
    const std::string p = dir.path("b.tif");
    const auto with = [&](std::uint16_t tag, std::uint32_t v, const std::string& what) {
        auto f = good;
        ASSERT_TRUE((Ifd{f}.set(tag, v))) << what;
        write_bytes(p, f);
        expect_read_error(p, what);
    };
    with(TIFFTAG_STRIPOFFSETS, 1u << 30, "strip offset past EOF");
    // (A wrong byte count alone on an uncompressed strip whose data is all there is repaired by
    // libtiff from the image size, which is right: the pixels are in the file.)
    with(TIFFTAG_STRIPOFFSETS, std::uint32_t(good.size() - 50), "strip data running past EOF");
    with(TIFFTAG_COMPRESSION, 34712, "JPEG2000 (no codec)");
    with(TIFFTAG_COMPRESSION, 12345, "unknown compression");
    with(TIFFTAG_IMAGEWIDTH, 0, "width 0");
    with(TIFFTAG_IMAGEWIDTH, 100000, "width past the strip");
    with(TIFFTAG_IMAGELENGTH, 0xFFFFFFFF, "huge height");
    with(TIFFTAG_BITSPERSAMPLE, 12, "12-bit");
    with(TIFFTAG_BITSPERSAMPLE, 64, "64-bit uint");
    with(TIFFTAG_SAMPLESPERPIXEL, 7, "7 samples");
    with(TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR, "YCbCr");
    with(TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_SEPARATED, "separated");
    with(TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_LOGL, "LogL");
    // The IFD itself past EOF.
    auto f = good;
    f[4] = 0xF0;
    f[5] = 0xFF;
    f[6] = 0xFF;
    f[7] = 0x0F;
    write_bytes(p, f);
    expect_read_error(p, "IFD past EOF");
}

TEST(Corrupt, HugeTiffDeclaredInATinyFile) {
    TempDir dir;
    TiffSpec t;
    t.width = 16;
    t.height = 16;
    t.tile_w = t.tile_h = 16;
    t.compression = COMPRESSION_ADOBE_DEFLATE;
    write_tiff(dir.path("a.tif"), t, random_bytes(256, 1));
    auto f = read_bytes(dir.path("a.tif"));
    ASSERT_TRUE((Ifd{f}.set(TIFFTAG_IMAGEWIDTH, 65535)));
    ASSERT_TRUE((Ifd{f}.set(TIFFTAG_IMAGELENGTH, 65535)));
    write_bytes(dir.path("b.tif"), f);
    expect_read_error(dir.path("b.tif"));
}

TEST(Corrupt, GarbageEmptyMissingAndDirectory) {
    TempDir dir;
    write_bytes(dir.path("garbage"), random_bytes(1000, 3));
    expect_read_error(dir.path("garbage"));
    write_bytes(dir.path("empty.png"), {});
    expect_read_error(dir.path("empty.png"));
    expect_read_error(dir.path("missing.png"));
    fs::create_directories(dir.path("dir.png"));
    expect_read_error(dir.path("dir.png"));
    // Right magic, garbage after it.
    for (std::vector<std::uint8_t> magic : {std::vector<std::uint8_t>{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'},
                                            {'I', 'I', 42, 0}, {'M', 'M', 0, 42}, {'I', 'I', 43, 0}, {'P', '6'},
                                            {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}}) {
        for (std::uint32_t seed = 0; seed < 20; ++seed) {
            auto g = magic;
            const auto tail = random_bytes(seed * 7, seed);
            g.insert(g.end(), tail.begin(), tail.end());
            write_bytes(dir.path("g"), g);
            expect_read_error(dir.path("g"), "seed " + std::to_string(seed));
        }
    }
}

TEST(Corrupt, RandomByteFlipsNeverCrash) {
    TempDir dir;
    const std::string p = dir.path("flip");
    std::mt19937 rng(42);
    for (const auto& [name, bytes] : samples(dir)) {
        for (int i = 0; i < 300; ++i) {
            auto f = bytes;
            for (int k = 0; k < 1 + int(rng() % 4); ++k) f[rng() % f.size()] ^= std::uint8_t(1 + rng() % 255);
            write_bytes(p, f);
            try {
                io::read_image(p);  // some flips leave a valid file
            } catch (const Error& e) {
                EXPECT_EQ(std::string(e.what()).rfind(p + ": ", 0), 0u) << e.what();
            }
        }
    }
}

}  // namespace
}  // namespace cclabel::iotest
