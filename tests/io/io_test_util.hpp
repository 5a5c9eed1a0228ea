#pragma once
// Test inputs written straight through libpng and libtiff (not through the code under test), a
// scratch directory, and checks on the errors the readers throw.
#include <gtest/gtest.h>
#include <png.h>
#include <tiffio.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/io.hpp"

namespace cclabel::iotest {

namespace fs = std::filesystem;

/// A fresh directory per test, removed afterwards.
class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = std::string(info ? info->test_suite_name() : "t") + "_" + (info ? info->name() : "t");
        for (char& c : name) {
            if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        }
        dir_ = fs::temp_directory_path() / ("cclabel_io_" + std::to_string(::getpid()) + "_" + name);
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

private:
    fs::path dir_;
};

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed, unsigned levels = 256) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = std::uint8_t(rng() % levels);
    return v;
}

/// Expects read_image(@p path) to throw a cclabel::Error whose one-line message starts with the path.
inline void expect_read_error(const std::string& path, const std::string& context = "") {
    try {
        const io::Image img = io::read_image(path);
        ADD_FAILURE() << "no error for " << path << " " << context << " (read " << img.width << "x" << img.height
                      << " " << img.description << ")";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind(path + ": ", 0), 0u) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        EXPECT_GT(m.size(), path.size() + 2) << m;
    }
}

// ------------------------------------------------------------------------------------------------
// PNG

struct PngSpec {
    std::uint32_t width = 0, height = 0;
    int colour = PNG_COLOR_TYPE_GRAY;
    int depth = 8;
    bool interlace = false;
    std::vector<png_color> palette;
    std::vector<png_byte> trns;  ///< palette alpha entries
};

namespace detail {
struct PngW {
    png_structp png = nullptr;
    png_infop info = nullptr;
};
inline bool png_write_all(PngW* w, std::FILE* f, const PngSpec* s, png_bytepp rows) {
    if (setjmp(png_jmpbuf(w->png))) return false;
    png_init_io(w->png, f);
    png_set_IHDR(w->png, w->info, s->width, s->height, s->depth, s->colour,
                 s->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (!s->palette.empty()) png_set_PLTE(w->png, w->info, s->palette.data(), int(s->palette.size()));
    if (!s->trns.empty()) png_set_tRNS(w->png, w->info, s->trns.data(), int(s->trns.size()), nullptr);
    png_write_info(w->png, w->info);
    png_write_image(w->png, rows);
    png_write_end(w->png, nullptr);
    return true;
}
}  // namespace detail

/// Writes a PNG from rows already in PNG's own layout (packed sub-byte samples, big-endian 16-bit).
inline void write_png(const std::string& path, const PngSpec& s, std::vector<std::uint8_t> data) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    detail::PngW w;
    w.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    w.info = png_create_info_struct(w.png);
    const std::size_t row_bytes = data.size() / (s.height ? s.height : 1);
    std::vector<png_bytep> rows(s.height);
    for (std::uint32_t y = 0; y < s.height; ++y) rows[y] = data.data() + y * row_bytes;
    const bool ok = detail::png_write_all(&w, f, &s, rows.data());
    png_destroy_write_struct(&w.png, &w.info);
    std::fclose(f);
    ASSERT_TRUE(ok);
}

// ------------------------------------------------------------------------------------------------
// NumPy .npy

/// A .npy file of header dictionary @p dict (padded as NumPy pads it) and raw @p data.
inline std::vector<std::uint8_t> npy_file(const std::string& dict, const std::vector<std::uint8_t>& data,
                                          int version = 1) {
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

/// The header dictionary of a .npy file.
inline std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
}

// ------------------------------------------------------------------------------------------------
// TIFF

struct TiffSpec {
    std::uint32_t width = 0, height = 0;
    int spp = 1, bps = 8;
    int sample_format = SAMPLEFORMAT_UINT;
    int photometric = PHOTOMETRIC_MINISBLACK;
    int compression = COMPRESSION_NONE;
    bool separate = false;
    std::uint32_t tile_w = 0, tile_h = 0;  ///< tiled when nonzero
    std::uint32_t rows_per_strip = 0;      ///< 0: libtiff's default
    bool big_endian = false;
    bool bigtiff = false;
    bool alpha = false;                    ///< mark the last sample as unassociated alpha
    std::vector<std::uint16_t> colormap;   ///< r..., g..., b... (3 × 2^bps)
    int pages = 1;
};

/// Writes a TIFF from packed contiguous rows of native-endian samples (sub-byte samples packed
/// MSB first, rows byte-aligned, as TIFF stores them).
inline void write_tiff(const std::string& path, const TiffSpec& s, const std::vector<std::uint8_t>& data) {
    std::string mode = "w";
    mode += s.big_endian ? "b" : "l";
    if (s.bigtiff) mode += "8";
    TIFF* tif = TIFFOpen(path.c_str(), mode.c_str());
    ASSERT_NE(tif, nullptr);
    const std::size_t row_bytes = (std::size_t(s.width) * s.spp * s.bps + 7) / 8;
    const std::size_t bytes = std::size_t(s.bps) / 8;
    for (int page = 0; page < s.pages; ++page) {
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, s.width);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, s.height);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(s.spp));
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, std::uint16_t(s.bps));
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, std::uint16_t(s.sample_format));
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, std::uint16_t(s.photometric));
        TIFFSetField(tif, TIFFTAG_COMPRESSION, std::uint16_t(s.compression));
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, s.separate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
        if (s.alpha) {
            const std::uint16_t extra = EXTRASAMPLE_UNASSALPHA;
            TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, std::uint16_t(1), &extra);
        }
        if (!s.colormap.empty()) {
            const std::size_t n = s.colormap.size() / 3;
            TIFFSetField(tif, TIFFTAG_COLORMAP, s.colormap.data(), s.colormap.data() + n, s.colormap.data() + 2 * n);
        }
        if (s.pages > 1) {
            TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
            TIFFSetField(tif, TIFFTAG_PAGENUMBER, std::uint16_t(page), std::uint16_t(s.pages));
        }
        // A plane of sample p as packed rows (only for whole-byte samples when separate).
        auto plane_row = [&](int p, std::uint32_t y) {
            std::vector<std::uint8_t> r;
            std::vector<std::uint8_t> whole(data.data() + y * row_bytes, data.data() + (y + 1) * row_bytes);
            if (page > 0) {
                for (auto& b : whole) b = std::uint8_t(~b);  // later pages differ, to show which one was read
            }
            const std::uint8_t* src = whole.data();
            if (!s.separate) return whole;
            for (std::uint32_t x = 0; x < s.width; ++x) {
                const std::uint8_t* px = src + (std::size_t(x) * s.spp + p) * bytes;
                r.insert(r.end(), px, px + bytes);
            }
            return r;
        };
        const int planes = s.separate ? s.spp : 1;
        if (s.tile_w != 0) {
            TIFFSetField(tif, TIFFTAG_TILEWIDTH, s.tile_w);
            TIFFSetField(tif, TIFFTAG_TILELENGTH, s.tile_h);
            const std::size_t tile_row = std::size_t(TIFFTileRowSize(tif));
            for (int p = 0; p < planes; ++p) {
                for (std::uint32_t ty = 0; ty < s.height; ty += s.tile_h) {
                    for (std::uint32_t tx = 0; tx < s.width; tx += s.tile_w) {
                        std::vector<std::uint8_t> tile(std::size_t(TIFFTileSize(tif)), 0);
                        // Tile widths are multiples of 16, so sub-byte tiles start on a byte.
                        const std::size_t px_bits = std::size_t(s.separate ? 1 : s.spp) * s.bps;
                        for (std::uint32_t r = 0; r < s.tile_h && ty + r < s.height; ++r) {
                            const auto row = plane_row(p, ty + r);
                            const std::size_t cols = std::min<std::uint32_t>(s.tile_w, s.width - tx);
                            std::memcpy(tile.data() + r * tile_row, row.data() + tx * px_bits / 8, (cols * px_bits + 7) / 8);
                        }
                        ASSERT_GE(TIFFWriteTile(tif, tile.data(), tx, ty, 0, std::uint16_t(p)), 0);
                    }
                }
            }
        } else {
            const std::uint32_t rps = s.rows_per_strip ? s.rows_per_strip : TIFFDefaultStripSize(tif, 0);
            TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rps);
            for (int p = 0; p < planes; ++p) {
                for (std::uint32_t y = 0; y < s.height; ++y) {
                    auto row = plane_row(p, y);
                    ASSERT_GE(TIFFWriteScanline(tif, row.data(), y, std::uint16_t(p)), 0);
                }
            }
        }
        ASSERT_TRUE(TIFFWriteDirectory(tif));
    }
    TIFFClose(tif);
}

}  // namespace cclabel::iotest
