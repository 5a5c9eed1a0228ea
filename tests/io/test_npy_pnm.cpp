#include "io_test_util.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <limits>

#include "cclabel/label.hpp"

namespace cclabel::iotest {
namespace {

TEST(Npy, DtypesMapToFormats) {
    TempDir dir;
    const std::string p = dir.path("a.npy");
    struct C { const char* descr; const char* shape; int bytes; PixelFormat f; };
    for (const C c : {C{"|b1", "(3, 5)", 15, PixelFormat::Binary8}, C{"|u1", "(3, 5)", 15, PixelFormat::Gray8},
                      C{"|i1", "(3, 5)", 15, PixelFormat::I8}, C{"<u2", "(3, 5)", 30, PixelFormat::Gray16},
                      C{"<i2", "(3, 5)", 30, PixelFormat::I16}, C{"<u4", "(3, 5)", 60, PixelFormat::U32},
                      C{"<i4", "(3, 5)", 60, PixelFormat::I32}, C{"<f4", "(3, 5)", 60, PixelFormat::F32},
                      C{"<i8", "(3, 5)", 120, PixelFormat::I64}, C{"<u8", "(3, 5)", 120, PixelFormat::U64},
                      C{"<f2", "(3, 5)", 30, PixelFormat::F16}, C{"<f8", "(3, 5)", 120, PixelFormat::F64},
                      C{"<f8", "(3, 5, 1)", 120, PixelFormat::F64},
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

// The bytes of @p v in the byte order @p order ('<' or '>').
template <typename T>
std::vector<std::uint8_t> bytes_in_order(const std::vector<T>& v, char order) {
    std::vector<std::uint8_t> out(v.size() * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    const bool native_little = std::endian::native == std::endian::little;
    if ((order == '>') == native_little)
        for (std::size_t i = 0; i < out.size(); i += sizeof(T)) std::reverse(out.begin() + i, out.begin() + i + sizeof(T));
    return out;
}

// A logical 2x3 array of @p T, [[v0, v1, v2], [v3, v4, v5]], in every byte order and both memory
// orders, reads as the typed format @p f with the values as they are, in native order.
template <typename T>
void expect_typed(const char* kind, PixelFormat f, const std::vector<T>& v) {
    TempDir dir;
    const std::string p = dir.path("t.npy");
    for (const char order : {'<', '>'}) {
        for (const bool fortran : {false, true}) {
            const std::string descr = std::string(1, sizeof(T) == 1 ? '|' : order) + kind + std::to_string(sizeof(T));
            SCOPED_TRACE(descr + (fortran ? " fortran" : " C"));
            const std::vector<T> stored = fortran ? std::vector<T>{v[0], v[3], v[1], v[4], v[2], v[5]} : v;
            write_bytes(p, npy_file(dict(descr, "(2, 3)", fortran), bytes_in_order(stored, order)));
            const io::Image img = io::read_image(p);
            EXPECT_EQ(img.format, f);
            EXPECT_EQ(img.width, 3);
            EXPECT_EQ(img.height, 2);
            ASSERT_EQ(img.pixels.size(), v.size() * sizeof(T));
            // Bit for bit (NaN payloads and -0 kept: the library's equality is applied when labelling).
            EXPECT_EQ(std::memcmp(img.pixels.data(), v.data(), img.pixels.size()), 0);
        }
    }
}

TEST(Npy, SignedFloatAnd64BitArraysAreTyped) {
    expect_typed<std::int8_t>("i", PixelFormat::I8, {-128, -1, 0, 1, 127, -1});
    expect_typed<std::int16_t>("i", PixelFormat::I16, {-32768, -1, 0, 300, 32767, -300});
    expect_typed<std::int32_t>("i", PixelFormat::I32, {INT32_MIN, -1, 0, 1 << 20, INT32_MAX, -7});
    expect_typed<std::int64_t>("i", PixelFormat::I64, {INT64_MIN, -1, 1ll << 40, (1ll << 40) + 1, INT64_MAX, 1});
    expect_typed<std::uint64_t>("u", PixelFormat::U64, {~0ull, 1ull << 32, 1, (1ull << 32) + 1, 0, 5});
    expect_typed<std::uint16_t>("f", PixelFormat::F16, {0x3C00, 0x8000, 0x0000, 0x7E01, 0xFC00, 0xC140});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    expect_typed<float>("f", PixelFormat::F32, {3.25f, -0.0f, 0.0f, nan, -nan, -1e30f});
    expect_typed<double>("f", PixelFormat::F64, {0.1, -0.0, 0.0, double(nan), 1e300, -5});
}

TEST(Npy, TypedFormatsAreLabelledByValue) {
    TempDir dir;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // -0 and +0 one value, two NaNs of different payloads one value.
    std::vector<float> v = {-0.0f, 0.0f, 1.0f, nan, std::bit_cast<float>(0xFFC00001u), 1.0f};
    write_bytes(dir.path("a.npy"), npy_file(dict("<f4", "(1, 6)"), bytes_in_order(v, '<')));
    const io::Image img = io::read_image(dir.path("a.npy"));
    std::vector<std::uint32_t> labels(6);
    EXPECT_EQ(label(img.view(), labels.data()).count, 4u);
    EXPECT_EQ(labels, (std::vector<std::uint32_t>{1, 1, 2, 3, 3, 4}));
}

TEST(Npy, SeveralChannelsAreColourIndicesFloatsByValue) {
    TempDir dir;
    // int64 with one channel is typed; (H, W, 1) too. float32 x2: -0 and +0 one colour, NaNs one.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> v = {-0.0f, 1.0f, 0.0f, 1.0f, nan, 2.0f, -nan, 2.0f, 0.0f, 2.0f};
    write_bytes(dir.path("a.npy"), npy_file(dict("<f4", "(1, 5, 2)"), bytes_in_order(v, '<')));
    const io::Image img = io::read_image(dir.path("a.npy"));
    ASSERT_EQ(img.format, PixelFormat::U32);
    std::vector<std::uint32_t> got(5);
    std::memcpy(got.data(), img.pixels.data(), 20);
    EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 0, 1, 1, 2}));
    // int16 x3 (48 bits): colour indices as before.
    const std::vector<std::int16_t> w = {-1, 2, 3, -1, 2, 3, 0, 0, 0};
    write_bytes(dir.path("b.npy"), npy_file(dict("<i2", "(1, 3, 3)"), bytes_in_order(w, '<')));
    const io::Image b = io::read_image(dir.path("b.npy"));
    ASSERT_EQ(b.format, PixelFormat::U32);
    std::memcpy(got.data(), b.pixels.data(), 12);
    EXPECT_EQ(got[0], got[1]);
    EXPECT_NE(got[1], got[2]);
    // More than 64 bits a pixel: a clear error.
    write_bytes(dir.path("c.npy"), npy_file(dict("<f8", "(1, 2, 2)"), std::vector<std::uint8_t>(32)));
    expect_read_error(dir.path("c.npy"));
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
         {dict("<f16", "(2, 3)"), dict("<c8", "(2, 3)"), dict("<f1", "(2, 3)"), dict("<u2", "(6,)"), dict("<u2", "(1, 2, 3, 1)"),
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
    write_bytes(p, npy_file(dict("<c8", "(2, 3)"), six));
    try {
        io::read_image(p);
        ADD_FAILURE() << "complex64 was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("complex64"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("float16/float32/float64"), std::string::npos) << e.what();
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
