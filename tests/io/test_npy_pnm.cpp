#include "io_test_util.hpp"

namespace cclabel::iotest {
namespace {

std::vector<std::uint8_t> npy_file(const std::string& dict, const std::vector<std::uint8_t>& data, int version = 1) {
    std::string h = dict;
    const std::size_t pre = version == 1 ? 10 : 12;
    while ((pre + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::vector<std::uint8_t> f = {0x93, 'N', 'U', 'M', 'P', 'Y', std::uint8_t(version), 0};
    f.push_back(std::uint8_t(h.size()));
    f.push_back(std::uint8_t(h.size() >> 8));
    if (version != 1) f.insert(f.end(), {0, 0});
    f.insert(f.end(), h.begin(), h.end());
    f.insert(f.end(), data.begin(), data.end());
    return f;
}

std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}

TEST(Npy, DtypesMapToFormats) {
    TempDir dir;
    const std::string p = dir.path("a.npy");
    struct C { const char* descr; const char* shape; int bytes; PixelFormat f; };
    for (const C c : {C{"|b1", "(3, 5)", 15, PixelFormat::Binary8}, C{"|u1", "(3, 5)", 15, PixelFormat::Gray8},
                      C{"|i1", "(3, 5)", 15, PixelFormat::Gray8}, C{"<u2", "(3, 5)", 30, PixelFormat::Gray16},
                      C{"<i2", "(3, 5)", 30, PixelFormat::Gray16}, C{"<u4", "(3, 5)", 60, PixelFormat::U32},
                      C{"<i4", "(3, 5)", 60, PixelFormat::U32}, C{"<f4", "(3, 5)", 60, PixelFormat::U32},
                      C{"|u1", "(3, 5, 3)", 45, PixelFormat::RGB8}, C{"|u1", "(3, 5, 4)", 60, PixelFormat::RGBA8},
                      C{"|u1", "(3, 5, 1)", 15, PixelFormat::Gray8}}) {
        SCOPED_TRACE(std::string(c.descr) + " " + c.shape);
        const auto data = random_bytes(std::size_t(c.bytes), 3, c.descr[1] == 'b' ? 2 : 256);
        write_bytes(p, npy_file(dict(c.descr, c.shape), data));
        const io::Image img = io::read_image(p);
        EXPECT_EQ(img.width, 5);
        EXPECT_EQ(img.height, 3);
        EXPECT_EQ(img.format, c.f);
        EXPECT_EQ(img.pixels, data);
    }
}

TEST(Npy, WideIntegersBecomeColourIndices) {
    TempDir dir;
    const std::vector<std::int64_t> v = {-1, 5, -1, 1ll << 40, 5, 7};
    std::vector<std::uint8_t> data(v.size() * 8);
    std::memcpy(data.data(), v.data(), data.size());
    write_bytes(dir.path("a.npy"), npy_file(dict("<i8", "(2, 3)"), data));
    const io::Image img = io::read_image(dir.path("a.npy"));
    ASSERT_EQ(img.format, PixelFormat::U32);
    std::vector<std::uint32_t> got(6);
    std::memcpy(got.data(), img.pixels.data(), 24);
    EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 1, 0, 2, 1, 3}));
}

TEST(Npy, FortranOrderIsTransposed) {
    TempDir dir;
    // Logical 2x3 array [[1,2,3],[4,5,6]] stored column by column.
    write_bytes(dir.path("a.npy"), npy_file(dict("|u1", "(2, 3)", true), {1, 4, 2, 5, 3, 6}));
    io::Image img = io::read_image(dir.path("a.npy"));
    EXPECT_EQ(img.pixels, (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6}));
    // (2, 2, 3) RGB: element (y, x, c) at y + 2 * (x + 2 * c).
    std::vector<std::uint8_t> f(12);
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x)
            for (int c = 0; c < 3; ++c) f[std::size_t(y + 2 * (x + 2 * c))] = std::uint8_t(100 * y + 10 * x + c);
    write_bytes(dir.path("b.npy"), npy_file(dict("|u1", "(2, 2, 3)", true), f));
    img = io::read_image(dir.path("b.npy"));
    ASSERT_EQ(img.format, PixelFormat::RGB8);
    EXPECT_EQ(img.pixels, (std::vector<std::uint8_t>{0, 1, 2, 10, 11, 12, 100, 101, 102, 110, 111, 112}));
}

TEST(Npy, BigEndianIsSwappedAndVersion2Read) {
    TempDir dir;
    write_bytes(dir.path("a.npy"), npy_file(dict(">u2", "(1, 2)"), {0x12, 0x34, 0xAB, 0xCD}, 2));
    const io::Image img = io::read_image(dir.path("a.npy"));
    ASSERT_EQ(img.format, PixelFormat::Gray16);
    std::uint16_t v[2];
    std::memcpy(v, img.pixels.data(), 4);
    EXPECT_EQ(v[0], 0x1234);
    EXPECT_EQ(v[1], 0xABCD);
    write_bytes(dir.path("b.npy"), npy_file(dict(">u4", "(1, 1)", true), {1, 2, 3, 4}));
    const io::Image b = io::read_image(dir.path("b.npy"));
    std::uint32_t u;
    std::memcpy(&u, b.pixels.data(), 4);
    EXPECT_EQ(u, 0x01020304u);
}

TEST(Npy, ZeroSizedArraysAreValid) {
    TempDir dir;
    write_bytes(dir.path("a.npy"), npy_file(dict("<u4", "(0, 7)"), {}));
    const io::Image img = io::read_image(dir.path("a.npy"));
    EXPECT_EQ(img.width, 7);
    EXPECT_EQ(img.height, 0);
    EXPECT_TRUE(img.pixels.empty());
}

TEST(Npy, BadHeadersAndDtypesAreErrors) {
    TempDir dir;
    const std::string p = dir.path("a.npy");
    const std::vector<std::uint8_t> six(6 * 8, 0);
    for (const std::string& d :
         {dict("<f8", "(2, 3)"), dict("<c8", "(2, 3)"), dict("<u2", "(6,)"), dict("<u2", "(1, 2, 3, 1)"),
          dict("|b1", "(2, 3, 3)"), dict("|u1", "(2, 3, 5)"), std::string("{'descr': '<u2', 'shape': (2, 3), }"),
          std::string("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), 'x': 1}"),
          std::string("{'descr': [('a', '<u2')], 'fortran_order': False, 'shape': (2, 3), }"),
          std::string("{'descr': '<u2', 'fortran_order': Maybe, 'shape': (2, 3), }"),
          std::string("{'descr': '<u2', 'fortran_order': False, 'shape': (2, -3), }"),
          std::string("{'descr': '<u2', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"),
          std::string("{'descr': '<u2', 'fortran_order': False, 'shape': (65536, 65536), }"),
          std::string("{'descr': '<u2' 'fortran_order': False, 'shape': (2, 3), }"), std::string("nonsense")}) {
        write_bytes(p, npy_file(d, six));
        expect_read_error(p, d);
    }
    write_bytes(p, npy_file(dict("<f8", "(2, 3)"), six));
    try {
        io::read_image(p);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("float64"), std::string::npos) << e.what();
    }
    // Too little and too much data.
    write_bytes(p, npy_file(dict("<u2", "(2, 3)"), std::vector<std::uint8_t>(11)));
    expect_read_error(p);
    write_bytes(p, npy_file(dict("<u2", "(2, 3)"), std::vector<std::uint8_t>(13)));
    expect_read_error(p);
}

// ------------------------------------------------------------------------------------------------

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

TEST(Pnm, BinaryAndPlainVariants) {
    TempDir dir;
    const std::string p = dir.path("a.pnm");
    // P5 8-bit with a comment in the header.
    auto f = bytes_of("P5\n# made by hand\n3 2\n255\n");
    f.insert(f.end(), {0, 1, 2, 250, 255, 7});
    write_bytes(p, f);
    io::Image img = io::read_image(p);
    EXPECT_EQ(img.format, PixelFormat::Gray8);
    EXPECT_EQ(img.pixels, (std::vector<std::uint8_t>{0, 1, 2, 250, 255, 7}));
    // P5 16-bit: big-endian samples.
    f = bytes_of("P5 2 1 65535\n");
    f.insert(f.end(), {0x12, 0x34, 0xFF, 0xFE});
    write_bytes(p, f);
    img = io::read_image(p);
    ASSERT_EQ(img.format, PixelFormat::Gray16);
    std::uint16_t v[2];
    std::memcpy(v, img.pixels.data(), 4);
    EXPECT_EQ(v[0], 0x1234);
    EXPECT_EQ(v[1], 0xFFFE);
    // P6 8-bit.
    f = bytes_of("P6 2 1 255\n");
    f.insert(f.end(), {1, 2, 3, 4, 5, 6});
    write_bytes(p, f);
    img = io::read_image(p);
    EXPECT_EQ(img.format, PixelFormat::RGB8);
    EXPECT_EQ(img.pixels, (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6}));
    // P6 16-bit: colour indices in raster order.
    f = bytes_of("P6 3 1 1000\n");
    f.insert(f.end(), {0, 1, 0, 2, 0, 3, 3, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 3});
    write_bytes(p, f);
    img = io::read_image(p);
    ASSERT_EQ(img.format, PixelFormat::U32);
    std::uint32_t u[3];
    std::memcpy(u, img.pixels.data(), 12);
    EXPECT_EQ(u[0], 0u);
    EXPECT_EQ(u[1], 1u);
    EXPECT_EQ(u[2], 0u);
    // Plain P2 / P3 / P1 and binary P4.
    write_bytes(p, bytes_of("P2\n2 2\n9\n0 9\n# c\n 3 4\n"));
    EXPECT_EQ(io::read_image(p).pixels, (std::vector<std::uint8_t>{0, 9, 3, 4}));
    write_bytes(p, bytes_of("P3 1 1 255 10 20 30"));
    EXPECT_EQ(io::read_image(p).pixels, (std::vector<std::uint8_t>{10, 20, 30}));
    write_bytes(p, bytes_of("P1 3 2 101\n0 1 1"));
    img = io::read_image(p);
    EXPECT_EQ(img.format, PixelFormat::Binary8);
    EXPECT_EQ(img.pixels, (std::vector<std::uint8_t>{1, 0, 1, 0, 1, 1}));
    f = bytes_of("P4 10 1\n");
    f.insert(f.end(), {0xA5, 0xC0});
    write_bytes(p, f);
    EXPECT_EQ(io::read_image(p).pixels, (std::vector<std::uint8_t>{1, 0, 1, 0, 0, 1, 0, 1, 1, 1}));
}

TEST(Pnm, BadFilesAreErrors) {
    TempDir dir;
    const std::string p = dir.path("a.pgm");
    for (const std::string& s : {std::string("P5 3 2 255\n\1\2"), std::string("P5 3 2 0\n\1\2\3\4\5\6"),
                                 std::string("P5 3 2 70000\n"), std::string("P5 x 2 255\n"),
                                 std::string("P5 65536 65536 255\n\1"), std::string("P2 2 1 9 3 10"),
                                 std::string("P2 2 1 9 3"), std::string("P5 2 1 7\n\1\11"), std::string("P6"),
                                 std::string("P1 2 1 2 1"), std::string("P5 99999999999999999999 1 255\n")}) {
        write_bytes(p, bytes_of(s));
        expect_read_error(p, s);
    }
}

}  // namespace
}  // namespace cclabel::iotest
