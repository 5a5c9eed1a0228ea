// TIFF through libtiff: strips (row by row, so memory grows only as the file delivers data) and
// tiles (one band of tile rows at a time), contiguous or separate planes, 1 to 32 bits per
// sample. read_image reads the first page; PageReader reads every directory of a multi-page file
// as a page, each exactly as the first would be read.
#include <tiffio.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "io/io_common.hpp"
#include "io/page_source.hpp"
#include "io/sample_sink.hpp"
#include "io/tiff_handle.hpp"

namespace cclabel::io::detail {
namespace {

struct Layout {
    std::uint32_t width = 0, height = 0;
    int spp = 1;          // samples per pixel in the file
    int bps = 8;          // bits per sample in the file
    int sample_bytes = 1; // bytes per unpacked sample
    bool separate = false;
    bool integer = true;  // unsigned or void samples (not signed, not float)
    std::uint16_t photometric = PHOTOMETRIC_MINISBLACK;
};

/// Unpacks @p n pixels of one chunk row (packed, @p src_spp samples per pixel) into a row of
/// unpacked samples with @p dst_spp per pixel, at sample slot @p slot.
void unpack(const std::uint8_t* src, int src_spp, int bps, std::size_t n, std::uint8_t* dst, int dst_spp, int slot) {
    if (bps % 8 == 0) {
        const std::size_t b = std::size_t(bps / 8);
        if (src_spp == dst_spp) {
            std::memcpy(dst, src, n * std::size_t(src_spp) * b);
        } else {
            for (std::size_t i = 0; i < n; ++i) std::memcpy(dst + (i * std::size_t(dst_spp) + std::size_t(slot)) * b, src + i * b, b);
        }
        return;
    }
    const unsigned mask = (1u << bps) - 1;
    const std::size_t samples = n * std::size_t(src_spp);
    for (std::size_t i = 0; i < samples; ++i) {
        const std::size_t bit = i * std::size_t(bps);
        const unsigned v = (src[bit >> 3] >> (8 - bps - int(bit & 7))) & mask;
        const std::size_t px = i / std::size_t(src_spp), s = i % std::size_t(src_spp);
        dst[px * std::size_t(dst_spp) + std::size_t(slot) + s] = std::uint8_t(v);
    }
}

const char* photometric_name(std::uint16_t p) {
    switch (p) {
        case PHOTOMETRIC_MINISWHITE: return "gray (min-is-white)";
        case PHOTOMETRIC_MINISBLACK: return "gray";
        case PHOTOMETRIC_RGB: return "rgb";
        case PHOTOMETRIC_PALETTE: return "palette";
        case PHOTOMETRIC_MASK: return "transparency mask";
        case PHOTOMETRIC_SEPARATED: return "separated (CMYK)";
        case PHOTOMETRIC_YCBCR: return "YCbCr";
        case PHOTOMETRIC_CIELAB: return "CIE L*a*b*";
        case PHOTOMETRIC_ICCLAB: return "ICC L*a*b*";
        case PHOTOMETRIC_ITULAB: return "ITU L*a*b*";
        case PHOTOMETRIC_LOGL: return "LogL";
        case PHOTOMETRIC_LOGLUV: return "LogLuv";
    }
    return nullptr;
}

/// Turns decoded rows into what the sink takes: gray made "0 is dark" and sub-byte gray scaled to
/// 0..255 (so 1-bit is 0/255), palette indices replaced by their colours.
class RowFixer {
public:
    RowFixer(TiffHandle& tif, const std::string& path, const Layout& l) : l_(l) {
        if (l.photometric != PHOTOMETRIC_PALETTE) return;
        std::uint16_t *r = nullptr, *g = nullptr, *b = nullptr;
        if (!TIFFGetField(tif.get(), TIFFTAG_COLORMAP, &r, &g, &b) || r == nullptr || g == nullptr || b == nullptr) {
            fail(path, "palette TIFF without a colour map");
        }
        const std::size_t n = std::size_t(1) << l.bps;
        map_.resize(3 * n);
        // Colour maps are 16-bit; 8-bit colours are usually stored as v * 257 or v << 8. When
        // every entry is one of those the picture is RGB8, otherwise 16-bit colours (indexed).
        bool eight = true;
        for (std::size_t i = 0; i < n; ++i) {
            map_[3 * i] = r[i];
            map_[3 * i + 1] = g[i];
            map_[3 * i + 2] = b[i];
            for (int c = 0; c < 3; ++c) {
                const std::uint16_t v = map_[3 * i + std::size_t(c)];
                if ((v & 0xFF) != 0 && (v & 0xFF) != (v >> 8)) eight = false;
            }
        }
        palette_bytes_ = eight ? 1 : 2;
    }

    int out_spp() const { return l_.photometric == PHOTOMETRIC_PALETTE ? 3 : l_.spp; }
    int out_bytes() const { return l_.photometric == PHOTOMETRIC_PALETTE ? palette_bytes_ : l_.sample_bytes; }

    /// Fixes @p n pixels in place, or returns the palette-expanded copy.
    const std::uint8_t* fix(std::uint8_t* rows, std::size_t n) {
        const bool gray = l_.photometric == PHOTOMETRIC_MINISBLACK || l_.photometric == PHOTOMETRIC_MINISWHITE;
        if (gray && l_.bps <= 16) {
            // Float and signed samples have no "white" to flip against: they are kept bitwise.
            const bool invert = l_.photometric == PHOTOMETRIC_MINISWHITE && l_.integer;
            const std::size_t samples = n * std::size_t(l_.spp);
            if (l_.bps < 8) {
                const unsigned max = (1u << l_.bps) - 1;
                for (std::size_t i = 0; i < samples; i += std::size_t(l_.spp)) {
                    unsigned v = rows[i];
                    if (invert) v = max - v;
                    rows[i] = std::uint8_t(v * 255 / max);
                }
            } else if (invert && l_.bps == 8) {
                for (std::size_t i = 0; i < samples; i += std::size_t(l_.spp)) rows[i] = std::uint8_t(255 - rows[i]);
            } else if (invert) {
                for (std::size_t i = 0; i < samples; i += std::size_t(l_.spp)) {
                    std::uint16_t v;
                    std::memcpy(&v, rows + 2 * i, 2);
                    v = std::uint16_t(0xFFFF - v);
                    std::memcpy(rows + 2 * i, &v, 2);
                }
            }
            return rows;
        }
        if (l_.photometric != PHOTOMETRIC_PALETTE) return rows;
        expanded_.resize(n * 3 * std::size_t(palette_bytes_));
        for (std::size_t i = 0; i < n; ++i) {
            std::size_t idx = rows[i];
            if (l_.sample_bytes == 2) {
                std::uint16_t v;
                std::memcpy(&v, rows + 2 * i, 2);
                idx = v;
            }
            for (int c = 0; c < 3; ++c) {
                const std::uint16_t v = map_[3 * idx + std::size_t(c)];
                if (palette_bytes_ == 1) {
                    expanded_[3 * i + std::size_t(c)] = std::uint8_t(v >> 8);
                } else {
                    std::memcpy(&expanded_[2 * (3 * i + std::size_t(c))], &v, 2);
                }
            }
        }
        return expanded_.data();
    }

private:
    Layout l_;
    std::vector<std::uint16_t> map_;
    std::vector<std::uint8_t> expanded_;
    int palette_bytes_ = 1;
};

/// Decodes the handle's current directory.
Image read_directory(TiffHandle& tiff, const std::string& path) {
    TIFF* tif = tiff.get();
    Layout l;
    std::uint16_t spp = 1, bps = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, compression = 1;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l.width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l.height)) {
        tiff.fail("TIFF without an image size");
    }
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l.photometric)) {
        l.photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;  // a common omission
    }
    l.spp = spp;
    l.bps = bps;
    l.separate = planar == PLANARCONFIG_SEPARATE;
    l.integer = format == SAMPLEFORMAT_UINT || format == SAMPLEFORMAT_VOID;

    if (!TIFFIsCODECConfigured(compression)) {
        const TIFFCodec* codec = TIFFFindCODEC(compression);
        fail(path, "unsupported TIFF compression " + std::string(codec != nullptr ? codec->name : "") + " (" +
                       std::to_string(compression) + ")");
    }
    if (l.width == 0 || l.height == 0) fail(path, "TIFF with zero width or height");
    check_pixels(path, l.width, l.height);
    if (bps != 1 && bps != 2 && bps != 4 && bps != 8 && bps != 16 && bps != 32) {
        fail(path, "unsupported TIFF sample size: " + std::to_string(bps) + " bits");
    }
    if (format == SAMPLEFORMAT_COMPLEXINT || format == SAMPLEFORMAT_COMPLEXIEEEFP) fail(path, "unsupported TIFF sample format: complex");
    if (format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_INT && format != SAMPLEFORMAT_IEEEFP && format != SAMPLEFORMAT_VOID) {
        fail(path, "unsupported TIFF sample format " + std::to_string(format));
    }
    if (format == SAMPLEFORMAT_IEEEFP && bps != 16 && bps != 32) fail(path, "unsupported TIFF sample format: " + std::to_string(bps) + "-bit float");
    const char* pname = photometric_name(l.photometric);
    switch (l.photometric) {
        case PHOTOMETRIC_MINISBLACK:
        case PHOTOMETRIC_MINISWHITE:
            if (spp > 2) fail(path, "unsupported TIFF: gray with " + std::to_string(spp) + " samples per pixel");
            break;
        case PHOTOMETRIC_RGB:
            if (spp < 3 || spp > 4) fail(path, "unsupported TIFF: rgb with " + std::to_string(spp) + " samples per pixel");
            break;
        case PHOTOMETRIC_PALETTE:
            if (spp != 1 || bps > 16) fail(path, "unsupported TIFF palette layout");
            break;
        default:
            fail(path, std::string("unsupported TIFF photometric interpretation ") + (pname != nullptr ? pname : "") + " (" +
                           std::to_string(l.photometric) + ")");
    }
    if (bps < 8 && spp != 1) fail(path, "unsupported TIFF: " + std::to_string(bps) + "-bit samples with several channels");
    l.sample_bytes = bps < 8 ? 1 : bps / 8;

    RowFixer fixer(tiff, path, l);
    SampleSink sink(path, l.width, l.height, fixer.out_spp(), fixer.out_bytes());
    const std::size_t row_bytes = std::size_t(l.width) * std::size_t(l.spp) * std::size_t(l.sample_bytes);
    const int planes = l.separate ? l.spp : 1;
    const int chunk_spp = l.separate ? 1 : l.spp;

    if (!TIFFIsTiled(tif)) {
        const tmsize_t scan = TIFFScanlineSize(tif);
        if (scan <= 0) tiff.fail("bad TIFF scanline size");
        std::vector<std::uint8_t> line(std::size_t(scan) + 16);
        if (!l.separate) {
            std::vector<std::uint8_t> row(row_bytes);
            for (std::uint32_t y = 0; y < l.height; ++y) {
                if (TIFFReadScanline(tif, line.data(), y, 0) < 0) tiff.fail("corrupt TIFF (row " + std::to_string(y) + ")");
                unpack(line.data(), chunk_spp, l.bps, l.width, row.data(), l.spp, 0);
                sink.add_rows(fixer.fix(row.data(), l.width), 1);
            }
        } else {
            // Each plane is complete before the next starts, so the picture is assembled whole.
            // It grows with the first plane only, as that plane's rows really decode.
            std::vector<std::uint8_t> all;
            for (int s = 0; s < planes; ++s) {
                for (std::uint32_t y = 0; y < l.height; ++y) {
                    if (TIFFReadScanline(tif, line.data(), y, std::uint16_t(s)) < 0) {
                        tiff.fail("corrupt TIFF (plane " + std::to_string(s) + ", row " + std::to_string(y) + ")");
                    }
                    if (s == 0) all.resize(all.size() + row_bytes);
                    unpack(line.data(), 1, l.bps, l.width, all.data() + std::size_t(y) * row_bytes, l.spp, s);
                }
            }
            for (std::uint32_t y = 0; y < l.height; ++y) sink.add_rows(fixer.fix(all.data() + std::size_t(y) * row_bytes, l.width), 1);
        }
    } else {
        std::uint32_t tw = 0, th = 0;
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &th) || tw == 0 || th == 0) {
            tiff.fail("TIFF without tile size");
        }
        const tmsize_t tile_size = TIFFTileSize(tif);
        const tmsize_t tile_row = TIFFTileRowSize(tif);
        if (tile_size <= 0 || tile_row <= 0 || tile_size > (tmsize_t(1) << 30)) tiff.fail("bad TIFF tile size");
        if (std::uint64_t(tile_row) * th > std::uint64_t(tile_size)) tiff.fail("inconsistent TIFF tile size");
        std::vector<std::uint8_t> tile(static_cast<std::size_t>(tile_size));
        std::vector<std::uint8_t> band;
        for (std::uint32_t ty = 0; ty < l.height; ty += th) {
            const std::uint32_t rows = std::min<std::uint32_t>(th, l.height - ty);
            band.resize(std::size_t(rows) * row_bytes);
            for (int s = 0; s < planes; ++s) {
                for (std::uint32_t tx = 0; tx < l.width; tx += tw) {
                    const std::uint32_t cols = std::min<std::uint32_t>(tw, l.width - tx);
                    const std::uint32_t t = TIFFComputeTile(tif, tx, ty, 0, std::uint16_t(s));
                    if (TIFFReadEncodedTile(tif, t, tile.data(), tile_size) < 0) {
                        tiff.fail("corrupt TIFF (tile " + std::to_string(t) + ")");
                    }
                    for (std::uint32_t r = 0; r < rows; ++r) {
                        std::uint8_t* dst = band.data() + std::size_t(r) * row_bytes +
                                            std::size_t(tx) * std::size_t(l.spp) * std::size_t(l.sample_bytes);
                        unpack(tile.data() + std::size_t(r) * std::size_t(tile_row), chunk_spp, l.bps, cols, dst, l.spp, s);
                    }
                }
            }
            for (std::uint32_t r = 0; r < rows; ++r) sink.add_rows(fixer.fix(band.data() + std::size_t(r) * row_bytes, l.width), 1);
        }
    }

    std::string desc = "tiff " + std::string(pname != nullptr ? pname : "?");
    if (l.photometric != PHOTOMETRIC_PALETTE && (spp == 2 || spp == 4)) desc += "+alpha";
    desc += " " + std::to_string(bps) + "-bit";
    if (format == SAMPLEFORMAT_IEEEFP) desc += " float (bitwise)";
    if (format == SAMPLEFORMAT_INT) desc += " signed (bitwise)";
    if (TIFFIsTiled(tif)) desc += " tiled";
    if (l.separate) desc += " planar";
    return sink.finish(desc);
}

/// A multi-page TIFF, one handle open for all its pages.
class TiffPages : public PageReader::Source {
public:
    explicit TiffPages(const std::string& path) : path_(path), tiff_(path, "r") {
        // Counting walks the directory chain; libtiff stops at a loop or a broken link.
        count_ = int(std::min<tdir_t>(TIFFNumberOfDirectories(tiff_.get()), tdir_t(1) << 20));
        if (count_ < 1) tiff_.fail("TIFF without an image directory");
    }
    int pages() const override { return count_; }
    Page read(int index) override {
        if (!TIFFSetDirectory(tiff_.get(), tdir_t(index))) tiff_.fail("cannot find page " + std::to_string(index + 1));
        Page p;
        p.index = index;
        p.count = count_;
        p.image = read_directory(tiff_, path_);
        return p;
    }

private:
    std::string path_;
    TiffHandle tiff_;
    int count_ = 0;
};

}  // namespace

Image read_tiff(const std::string& path, std::uint64_t /*file_size*/) {
    TiffHandle tiff(path, "r");
    return read_directory(tiff, path);
}

std::unique_ptr<PageReader::Source> open_tiff_pages(const std::string& path) { return std::make_unique<TiffPages>(path); }

}  // namespace cclabel::io::detail
