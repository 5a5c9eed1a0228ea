// PageReader: every directory of a multi-page TIFF (written here with libtiff directly; pages after
// the first are the bitwise complement of the first, so a wrong page shows), a one-page file of any
// format, and a small PDF written here byte by byte (rendered by Poppler where the build has it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "cclabel/error.hpp"
#include "cclabel/io.hpp"
#include "io_test_util.hpp"
#include "pdf_test_util.hpp"

namespace cclabel::iotest {
namespace {

void expect_page_bytes(const io::Page& p, const std::vector<std::uint8_t>& want, int bpp) {
    const ImageView v = p.view();
    ASSERT_EQ(std::size_t(v.width * v.height * bpp), want.size());
    for (std::int64_t y = 0; y < v.height; ++y) {
        const auto* row = static_cast<const std::uint8_t*>(v.data) + y * v.row_bytes();
        ASSERT_EQ(0, std::memcmp(row, want.data() + y * v.width * bpp, std::size_t(v.width * bpp))) << "row " << y;
    }
}

TEST(PageReader, EveryTiffDirectoryIsAPage) {
    TempDir dir;
    for (const bool tiled : {false, true}) {
        TiffSpec s;
        s.width = 37;
        s.height = 21;
        s.spp = 3;
        s.photometric = PHOTOMETRIC_RGB;
        s.pages = 3;
        if (tiled) s.tile_w = s.tile_h = 16;
        const auto data = random_bytes(std::size_t(s.width) * s.height * 3, tiled ? 7 : 8);
        const std::string path = dir.path(tiled ? "tiled.tif" : "strips.tif");
        write_tiff(path, s, data);
        io::PageReader r(path);
        ASSERT_EQ(r.pages(), 3);
        std::vector<std::uint8_t> inverted(data);
        for (auto& b : inverted) b = std::uint8_t(~b);
        for (int i : {2, 0, 1}) {  // any order
            const io::Page p = r.read(i);
            EXPECT_EQ(p.index, i);
            EXPECT_EQ(p.count, 3);
            EXPECT_EQ(p.image.format, PixelFormat::RGB8);
            expect_page_bytes(p, i == 0 ? data : inverted, 3);
        }
        EXPECT_THROW(r.read(3), Error);
        EXPECT_THROW(r.read(-1), Error);
        // read_image still reads the first page.
        EXPECT_EQ(io::read_image(path).pixels, data);
    }
}

TEST(PageReader, OnePageFormatsAreOnePage) {
    TempDir dir;
    TiffSpec s;
    s.width = 5;
    s.height = 4;
    const auto data = random_bytes(20, 3);
    write_tiff(dir.path("one.tif"), s, data);
    io::PageReader r(dir.path("one.tif"));
    ASSERT_EQ(r.pages(), 1);
    expect_page_bytes(r.read(0), data, 1);
    write_bytes(dir.path("x.pgm"), {'P', '5', ' ', '2', ' ', '1', ' ', '2', '5', '5', '\n', 7, 9});
    io::PageReader pgm(dir.path("x.pgm"));
    ASSERT_EQ(pgm.pages(), 1);
    expect_page_bytes(pgm.read(0), {7, 9}, 1);
}

TEST(PageReader, BadFilesThrowNamingThem) {
    TempDir dir;
    for (const std::string name : {"missing.tif", "garbage.bin"}) {
        if (name == "garbage.bin") write_bytes(dir.path(name), {1, 2, 3, 4, 5});
        try {
            io::PageReader r(dir.path(name));
            FAIL() << name;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    }
    write_bytes(dir.path("broken.pdf"), {'%', 'P', 'D', 'F', '-', '1', '.', '4', '\n', 'x', '\n'});
    EXPECT_THROW(io::PageReader(dir.path("broken.pdf")), Error);
}

TEST(PageReader, PdfPagesAtAResolution) {
    TempDir dir;
    const std::string pdf = two_page_pdf();
    write_bytes(dir.path("d.pdf"), std::vector<std::uint8_t>(pdf.begin(), pdf.end()));
    if (!io::PageReader::reads_pdf()) {
        EXPECT_THROW(io::PageReader(dir.path("d.pdf")), Error);
        GTEST_SKIP() << "built without Poppler";
    }
    io::PageReader r(dir.path("d.pdf"), io::PageOptions{144});
    ASSERT_EQ(r.pages(), 2);
    const io::Page p = r.read(0);
    const ImageView v = p.view();
    ASSERT_EQ(v.format, PixelFormat::RGB8);
    ASSERT_EQ(v.width, 144);  // 72 pt at 144 dpi
    ASSERT_EQ(v.height, 72);
    // The red rectangle covers x 18..53, y (36-18)*2=36..53 from the top; the rest is white.
    for (std::int64_t y = 0; y < v.height; ++y) {
        for (std::int64_t x = 0; x < v.width; ++x) {
            const auto* px = static_cast<const std::uint8_t*>(v.data) + y * v.row_bytes() + x * 3;
            const bool red = x >= 18 && x < 54 && y >= 36 && y < 54;
            ASSERT_EQ(px[0], 255) << x << "," << y;
            ASSERT_EQ(px[1], red ? 0 : 255) << x << "," << y;
            ASSERT_EQ(px[2], red ? 0 : 255) << x << "," << y;
        }
    }
    const io::Page q = r.read(1);
    EXPECT_EQ(q.view().width, 72);
    EXPECT_EQ(q.view().height, 144);
    EXPECT_THROW(io::PageReader(dir.path("d.pdf"), io::PageOptions{0}), Error);
}

}  // namespace
}  // namespace cclabel::iotest
