// io::read_volume and io::write_volume_labels: (Z, Y, X) .npy arrays in C and Fortran order and of
// typed dtypes, a (Y, X) array as one slice, multi-page TIFFs as stacks, pages that differ, and
// label volumes written as .npy and as TIFF pages and read back.
#include "io_test_util.hpp"

#include <cstring>

namespace cclabel::iotest {
namespace {

TEST(ReadVolume, NpyInCAndFortranOrder) {
    TempDir dir;
    const std::string p = dir.path("v.npy");
    const std::vector<std::uint8_t> data = random_bytes(2 * 3 * 4, 5);  // (z, y, x) at (z * 3 + y) * 4 + x
    write_bytes(p, npy_file(dict("|u1", "(2, 3, 4)"), data));
    io::Volume v = io::read_volume(p);
    EXPECT_EQ(v.width, 4);
    EXPECT_EQ(v.height, 3);
    EXPECT_EQ(v.depth, 2);
    EXPECT_EQ(v.format, PixelFormat::Gray8);
    EXPECT_EQ(v.voxels, data);

    std::vector<std::uint8_t> fortran(data.size());  // (z, y, x) at z + 2 * (y + 3 * x)
    for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 4; ++x)
                fortran[std::size_t(z + 2 * (y + 3 * x))] = data[std::size_t((z * 3 + y) * 4 + x)];
    write_bytes(p, npy_file(dict("|u1", "(2, 3, 4)", true), fortran));
    v = io::read_volume(p);
    EXPECT_EQ(v.voxels, data);
    EXPECT_NE(v.description.find("fortran-order"), std::string::npos) << v.description;
}

TEST(ReadVolume, TypedDtypesAndOneSlice) {
    TempDir dir;
    const std::string p = dir.path("v.npy");
    const std::vector<std::uint8_t> data = random_bytes(3 * 2 * 5 * 2, 7);
    write_bytes(p, npy_file(dict("<i2", "(3, 2, 5)"), data));
    io::Volume v = io::read_volume(p);
    EXPECT_EQ(v.format, PixelFormat::I16);
    EXPECT_EQ(v.depth, 3);
    EXPECT_EQ(v.voxels, data);
    write_bytes(p, npy_file(dict("|b1", "(4, 6)"), random_bytes(24, 1, 2)));  // (Y, X): one slice
    v = io::read_volume(p);
    EXPECT_EQ(v.format, PixelFormat::Binary8);
    EXPECT_EQ(v.depth, 1);
    EXPECT_EQ(v.height, 4);
    EXPECT_EQ(v.width, 6);
    for (const char* shape : {"(2, 3, 4, 1)", "(24,)"}) {
        write_bytes(p, npy_file(dict("|u1", shape), random_bytes(24, 2)));
        EXPECT_THROW(io::read_volume(p), Error) << shape;
    }
}

TEST(ReadVolume, TiffPagesAreSlices) {
    TempDir dir;
    const std::string p = dir.path("stack.tif");
    TiffSpec s;
    s.width = 5, s.height = 4, s.pages = 3;
    const std::vector<std::uint8_t> data = random_bytes(20, 9);
    write_tiff(p, s, data);
    const io::Volume v = io::read_volume(p);
    ASSERT_EQ(v.depth, 3);
    EXPECT_EQ(v.width, 5);
    EXPECT_EQ(v.height, 4);
    EXPECT_EQ(v.format, PixelFormat::Gray8);
    ASSERT_EQ(v.voxels.size(), 60u);
    EXPECT_TRUE(std::equal(data.begin(), data.end(), v.voxels.begin()));
    for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(v.voxels[20 + i], std::uint8_t(~data[i]));  // later pages inverted
    EXPECT_NE(v.description.find("3 pages"), std::string::npos) << v.description;
}

TEST(ReadVolume, PagesOfAnotherSizeOrFormatAreAnError) {
    TempDir dir;
    const std::string p = dir.path("mixed.tif");
    for (const auto& [w2, bps2] : {std::pair{6u, 8}, {5u, 16}}) {
        TIFF* tif = TIFFOpen(p.c_str(), "w");
        ASSERT_NE(tif, nullptr);
        for (const auto& [w, bps] : {std::pair{5u, 8}, {w2, bps2}}) {
            TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
            TIFFSetField(tif, TIFFTAG_IMAGELENGTH, 4u);
            TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(1));
            TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, std::uint16_t(bps));
            TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
            TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
            std::vector<std::uint8_t> row(std::size_t(w) * std::size_t(bps / 8), 1);
            for (std::uint32_t y = 0; y < 4; ++y) ASSERT_EQ(TIFFWriteScanline(tif, row.data(), y, 0), 1);
            ASSERT_TRUE(TIFFWriteDirectory(tif));
        }
        TIFFClose(tif);
        try {
            (void)io::read_volume(p);
            ADD_FAILURE() << "no error for pages " << w2 << " wide, " << bps2 << "-bit";
        } catch (const Error& e) {
            const std::string m = e.what();
            const std::string want =
                w2 == 6 ? "page 2 is 6x4 gray8, page 1 5x4 gray8" : "page 2 is 5x4 gray16, page 1 5x4 gray8";
            EXPECT_EQ(m, p + ": " + want + ": the pages of a volume must share size and format");
        }
    }
}

TEST(WriteVolumeLabels, NpyAndTiffPagesReadBack) {
    TempDir dir;
    std::vector<std::uint32_t> labels(3 * 4 * 5);
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::uint32_t(i * 2654435761u);
    std::vector<std::uint8_t> bytes(labels.size() * 4);
    std::memcpy(bytes.data(), labels.data(), bytes.size());
    for (const char* name : {"l.npy", "l.tif"}) {
        const std::string p = dir.path(name);
        io::write_volume_labels(p, labels.data(), 5, 4, 3);
        const io::Volume v = io::read_volume(p);
        EXPECT_EQ(v.width, 5) << name;
        EXPECT_EQ(v.height, 4) << name;
        EXPECT_EQ(v.depth, 3) << name;
        EXPECT_EQ(v.format, PixelFormat::U32) << name;
        EXPECT_EQ(v.voxels, bytes) << name;
    }
    const std::vector<std::uint8_t> file = read_bytes(dir.path("l.npy"));
    EXPECT_NE(std::string(file.begin(), file.begin() + 128).find("'shape': (3, 4, 5)"), std::string::npos);

    io::write_volume_labels(dir.path("empty.npy"), nullptr, 5, 4, 0);  // a volume of no slices
    const std::vector<std::uint8_t> empty = read_bytes(dir.path("empty.npy"));
    EXPECT_NE(std::string(empty.begin(), empty.end()).find("'shape': (0, 4, 5)"), std::string::npos);
    EXPECT_THROW(io::write_volume_labels(dir.path("empty.tif"), nullptr, 5, 4, 0), Error);
    EXPECT_THROW(io::write_volume_labels(dir.path("l.png"), labels.data(), 5, 4, 3), Error);
    EXPECT_THROW(io::write_volume_labels(dir.path("l.npy"), labels.data(), 5, -4, 3), Error);
}

}  // namespace
}  // namespace cclabel::iotest
