// TIFF through libtiff: strips (row by row, so memory grows only as the file delivers data) and
// tiles (one band of tile rows at a time), contiguous or separate planes, 1 to 32 bits per
// sample. read_image reads the first page; PageReader reads every directory of a multi-page file
// as a page, each exactly as the first would be read.
#include <tiffio.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

#include "io/io_common.hpp"
#include "io/page_source.hpp"
#include "io/sample_sink.hpp"
#include "io/tiff_handle.hpp"
#include "io/tiff_stream.hpp"

namespace cclabel::io::detail {
namespace {

struct Layout {
    std::uint32_t width = 0, height = 0;
    int spp = 1;          // samples per pixel in the file
    int bps = 8;          // bits per sample in the file
    int sample_bytes = 1; // bytes per unpacked sample
    bool separate = false;
    bool integer = true;  // unsigned or void samples (not signed, not float)
    bool tiled = false;
    std::uint16_t photometric = PHOTOMETRIC_MINISBLACK;
    std::uint16_t format = SAMPLEFORMAT_UINT;
};

/// Samples of 1, 2 or 4 bits (one a pixel: all that read_layout admits) unpacked a byte at a time
/// through a table that also maps each value (gray scaled to 0..255, palette indices kept), so a
/// large 1-bit page costs one short copy a byte, not a shift, a mask and a division a pixel.
class BitTable {
public:
    /// @p bps 1, 2 or 4 (anything else: an unused table); @p values 2^bps entries.
    BitTable(int bps, const std::uint8_t* values) : bps_(bps) {
        if (bps != 1 && bps != 2 && bps != 4) return;
        const int per = 8 / bps;
        const unsigned mask = (1u << bps) - 1;
        for (unsigned byte = 0; byte < 256; ++byte) {
            for (int k = 0; k < per; ++k) t_[byte * 8 + unsigned(k)] = values[(byte >> (8 - bps * (k + 1))) & mask];
        }
    }
    /// Unpacks @p n pixels of @p src into @p dst, a byte each.
    void unpack(const std::uint8_t* src, std::size_t n, std::uint8_t* dst) const {
        if (bps_ == 1) run<1>(src, n, dst);
        else if (bps_ == 2) run<2>(src, n, dst);
        else run<4>(src, n, dst);
    }

private:
    template <int Bps>
    void run(const std::uint8_t* src, std::size_t n, std::uint8_t* dst) const {
        constexpr std::size_t per = 8 / Bps;
        const std::size_t whole = n / per;
        for (std::size_t b = 0; b < whole; ++b) std::memcpy(dst + b * per, &t_[std::size_t(src[b]) * 8], per);
        for (std::size_t k = 0; k < n % per; ++k) dst[whole * per + k] = t_[std::size_t(src[whole]) * 8 + k];
    }

    int bps_;
    std::array<std::uint8_t, 256 * 8> t_{};
};

/// Unpacks @p n pixels of one chunk row (packed, @p src_spp samples per pixel) into a row of
/// unpacked samples with @p dst_spp per pixel, at sample slot @p slot; sub-byte samples (one a
/// pixel) through @p bits.
void unpack(const std::uint8_t* src, int src_spp, int bps, std::size_t n, std::uint8_t* dst, int dst_spp, int slot,
            const BitTable& bits) {
    if (bps % 8 == 0) {
        const std::size_t b = std::size_t(bps / 8);
        if (src_spp == dst_spp) {
            std::memcpy(dst, src, n * std::size_t(src_spp) * b);
        } else {
            for (std::size_t i = 0; i < n; ++i) std::memcpy(dst + (i * std::size_t(dst_spp) + std::size_t(slot)) * b, src + i * b, b);
        }
        return;
    }
    bits.unpack(src, n, dst);
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

    /// What each sub-byte sample becomes as it is unpacked: gray made "0 is dark" and scaled to
    /// 0..255 (so 1-bit is 0/255), palette indices kept.
    std::array<std::uint8_t, 16> sub_byte_values() const {
        std::array<std::uint8_t, 16> v{};
        const unsigned max = l_.bps < 8 ? (1u << l_.bps) - 1 : 15;
        const bool gray = l_.photometric == PHOTOMETRIC_MINISBLACK || l_.photometric == PHOTOMETRIC_MINISWHITE;
        const bool invert = l_.photometric == PHOTOMETRIC_MINISWHITE && l_.integer;
        for (unsigned i = 0; i <= max; ++i) v[i] = std::uint8_t(!gray ? i : (invert ? max - i : i) * 255 / max);
        return v;
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
            // Sub-byte samples were scaled as they were unpacked (sub_byte_values).
            if (invert && l_.bps == 8) {
                for (std::size_t i = 0; i < samples; i += std::size_t(l_.spp)) rows[i] = std::uint8_t(255 - rows[i]);
            } else if (invert && l_.bps == 16) {
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

/// Reads and checks the current directory's header: everything decoding needs, or a one-line Error.
Layout read_layout(TiffHandle& tiff, const std::string& path) {
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
    l.format = format;
    l.separate = planar == PLANARCONFIG_SEPARATE;
    l.integer = format == SAMPLEFORMAT_UINT || format == SAMPLEFORMAT_VOID;
    l.tiled = TIFFIsTiled(tif) != 0;

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
    return l;
}

/// What the file held, e.g. "tiff rgb 8-bit tiled".
std::string describe(const Layout& l) {
    const char* pname = photometric_name(l.photometric);
    std::string desc = "tiff " + std::string(pname != nullptr ? pname : "?");
    if (l.photometric != PHOTOMETRIC_PALETTE && (l.spp == 2 || l.spp == 4)) desc += "+alpha";
    // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on `" " + std::to_string(...)`.
    desc += ' ';
    desc += std::to_string(l.bps);
    desc += "-bit";
    if (l.format == SAMPLEFORMAT_IEEEFP) desc += " float (bitwise)";
    if (l.format == SAMPLEFORMAT_INT) desc += " signed (bitwise)";
    if (l.tiled) desc += " tiled";
    if (l.separate) desc += " planar";
    return desc;
}

/// Decodes a directory's rows in order, one band of the file's own layout at a time: a scanline
/// (contiguous strips), a strip's rows of every plane (separate strips), or a row of tiles. Memory
/// is one such band, grown only as the file delivers rows.
class RowDecoder {
public:
    RowDecoder(TiffHandle& tiff, const std::string& path, const Layout& l)
        : tiff_(tiff), l_(l), fixer_(tiff, path, l), bits_(l.bps, fixer_.sub_byte_values().data()),
          row_bytes_(std::size_t(l.width) * std::size_t(l.spp) * std::size_t(l.sample_bytes)) {
        TIFF* tif = tiff.get();
        tmsize_t scan = 0;
        if (!l.tiled) {
            scan = TIFFScanlineSize(tif);
            if (scan <= 0) tiff.fail("bad TIFF scanline size");
            if (l.separate) {
                std::uint32_t rps = 0;
                TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
                band_h_ = std::max<std::uint32_t>(1, std::min(rps, l.height));
            }
        } else {
            if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw_) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &band_h_) || tw_ == 0 ||
                band_h_ == 0) {
                tiff.fail("TIFF without tile size");
            }
            tile_size_ = TIFFTileSize(tif);
            tile_row_ = TIFFTileRowSize(tif);
            if (tile_size_ <= 0 || tile_row_ <= 0 || tile_size_ > (tmsize_t(1) << 30)) tiff.fail("bad TIFF tile size");
            if (std::uint64_t(tile_row_) * band_h_ > std::uint64_t(tile_size_)) tiff.fail("inconsistent TIFF tile size");
        }
        // The work this page claims, checked before any buffer is allocated: every row of the
        // file's own layout (tiles padded to whole tiles), in the wider of the file's and the
        // output's samples.
        source_bytes_ = std::uint64_t(TIFFGetSizeProc(tif)(TIFFClientdata(tif)));
        std::uint64_t w = l.width, h = l.height;
        if (l.tiled) {
            w = (w + tw_ - 1) / tw_ * tw_;
            h = (h + band_h_ - 1) / band_h_ * band_h_;
        }
        const std::uint64_t px = std::uint64_t(std::max(l.spp * l.sample_bytes, fixer_.out_spp() * fixer_.out_bytes()));
        check_decode_work(path, w * px, h, source_bytes_);
        if (l.tiled) {
            tile_.resize(static_cast<std::size_t>(tile_size_));
        } else {
            line_.resize(std::size_t(scan) + 16);
            if (!l.separate) band_.resize(row_bytes_);
        }
    }

    /// The size of the file the page comes from.
    std::uint64_t source_bytes() const { return source_bytes_; }

    int out_spp() const { return fixer_.out_spp(); }
    int out_bytes() const { return fixer_.out_bytes(); }

    /// The next row (out_spp() samples of out_bytes() a pixel, native-endian); throws Error for a
    /// corrupt file. At most height() calls.
    const std::uint8_t* next_row() {
        if (next_ == band_rows_) decode_band();
        return fixer_.fix(band_.data() + std::size_t(next_++) * row_bytes_, l_.width);
    }

private:
    void decode_band() {
        TIFF* tif = tiff_.get();
        const std::uint32_t y0 = y_;
        const std::uint32_t rows = std::min<std::uint32_t>(band_h_, l_.height - y0);
        const int planes = l_.separate ? l_.spp : 1;
        const int chunk_spp = l_.separate ? 1 : l_.spp;
        if (!l_.tiled && !l_.separate) {
            if (TIFFReadScanline(tif, line_.data(), y0, 0) < 0) tiff_.fail("corrupt TIFF (row " + std::to_string(y0) + ")");
            unpack(line_.data(), chunk_spp, l_.bps, l_.width, band_.data(), l_.spp, 0, bits_);
        } else if (!l_.tiled) {
            // Each plane's rows of this strip in turn (sequential within each plane's strip); the
            // band grows with the first plane's rows as they really decode.
            band_.clear();
            for (int s = 0; s < planes; ++s) {
                for (std::uint32_t r = 0; r < rows; ++r) {
                    if (TIFFReadScanline(tif, line_.data(), y0 + r, std::uint16_t(s)) < 0) {
                        tiff_.fail("corrupt TIFF (plane " + std::to_string(s) + ", row " + std::to_string(y0 + r) + ")");
                    }
                    if (s == 0) band_.resize(band_.size() + row_bytes_);
                    unpack(line_.data(), 1, l_.bps, l_.width, band_.data() + std::size_t(r) * row_bytes_, l_.spp, s, bits_);
                }
            }
        } else {
            band_.resize(std::size_t(rows) * row_bytes_);
            for (int s = 0; s < planes; ++s) {
                for (std::uint32_t tx = 0; tx < l_.width; tx += tw_) {
                    const std::uint32_t cols = std::min<std::uint32_t>(tw_, l_.width - tx);
                    const std::uint32_t t = TIFFComputeTile(tif, tx, y0, 0, std::uint16_t(s));
                    if (TIFFReadEncodedTile(tif, t, tile_.data(), tile_size_) < 0) {
                        tiff_.fail("corrupt TIFF (tile " + std::to_string(t) + ")");
                    }
                    for (std::uint32_t r = 0; r < rows; ++r) {
                        std::uint8_t* dst = band_.data() + std::size_t(r) * row_bytes_ +
                                            std::size_t(tx) * std::size_t(l_.spp) * std::size_t(l_.sample_bytes);
                        unpack(tile_.data() + std::size_t(r) * std::size_t(tile_row_), chunk_spp, l_.bps, cols, dst, l_.spp, s, bits_);
                    }
                }
            }
        }
        y_ += rows;
        band_rows_ = rows;
        next_ = 0;
    }

    TiffHandle& tiff_;
    Layout l_;
    RowFixer fixer_;
    BitTable bits_;
    std::size_t row_bytes_;
    std::vector<std::uint8_t> line_, tile_, band_;
    std::uint32_t tw_ = 0, band_h_ = 1;
    tmsize_t tile_size_ = 0, tile_row_ = 0;
    std::uint64_t source_bytes_ = 0;
    std::uint32_t y_ = 0;          // the next row to decode
    std::uint32_t band_rows_ = 0;  // rows in band_
    std::uint32_t next_ = 0;       // the next row of band_ to hand out
};

/// Decodes the handle's current directory.
Image read_directory(TiffHandle& tiff, const std::string& path) {
    const Layout l = read_layout(tiff, path);
    RowDecoder rows(tiff, path, l);
    SampleSink sink(path, l.width, l.height, rows.out_spp(), rows.out_bytes(), rows.source_bytes());
    for (std::uint32_t y = 0; y < l.height; ++y) sink.add_rows(rows.next_row(), 1);
    return sink.finish(describe(l));
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
        // Pages read in order step to the next directory; TIFFSetDirectory would walk the chain
        // from the first, which makes reading every page of a long file quadratic.
        const bool next = index > 0 && tdir_t(index - 1) == TIFFCurrentDirectory(tiff_.get()) && current_ok_;
        current_ok_ = false;
        if (!(next ? TIFFReadDirectory(tiff_.get()) : TIFFSetDirectory(tiff_.get(), tdir_t(index)))) {
            tiff_.fail("cannot find page " + std::to_string(index + 1));
        }
        current_ok_ = true;
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
    bool current_ok_ = true;  // the handle's current directory was read without error
};

}  // namespace

Image read_tiff(const std::string& path, std::uint64_t /*file_size*/) {
    TiffHandle tiff(path, "r");
    return read_directory(tiff, path);
}

std::unique_ptr<PageReader::Source> open_tiff_pages(const std::string& path) { return std::make_unique<TiffPages>(path); }

}  // namespace cclabel::io::detail

namespace cclabel::io {

struct TiffRowReader::Impl {
    Impl(const std::string& p, int page)
        : path(p), tiff(p, "rm"),  // "m": read(), not a memory map, so resident memory stays bounded
          layout((select(page), detail::read_layout(tiff, p))), rows(tiff, p, layout),
          conv(p, rows.out_spp(), rows.out_bytes()) {}

    void select(int page) {
        if (page != 0 && !TIFFSetDirectory(tiff.get(), tdir_t(page))) tiff.fail("cannot find page " + std::to_string(page + 1));
    }

    std::string path;
    detail::TiffHandle tiff;
    detail::Layout layout;
    detail::RowDecoder rows;
    detail::PixelConverter conv;
    std::int64_t done = 0;
};

TiffRowReader::TiffRowReader(const std::string& path, int page) : impl_(std::make_unique<Impl>(path, page)) {}
TiffRowReader::~TiffRowReader() = default;

std::int64_t TiffRowReader::width() const noexcept { return impl_->layout.width; }
std::int64_t TiffRowReader::height() const noexcept { return impl_->layout.height; }
PixelFormat TiffRowReader::format() const noexcept { return impl_->conv.format(); }
std::int64_t TiffRowReader::rows_read() const noexcept { return impl_->done; }

void TiffRowReader::read(std::uint8_t* dst, std::int64_t n) {
    if (n < 0 || n > height() - impl_->done) detail::fail(impl_->path, "internal error: reading past the last row");
    const std::size_t row = std::size_t(width()) * std::size_t(bytes_per_pixel(format()));
    for (std::int64_t r = 0; r < n; ++r, ++impl_->done)
        impl_->conv.convert(impl_->rows.next_row(), std::size_t(width()), dst + std::size_t(r) * row);
}

bool is_tiff_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return false;
    unsigned char h[4] = {};
    const bool got = std::fread(h, 1, 4, f) == 4;
    std::fclose(f);
    return got && detail::is_tiff_magic(h);
}

}  // namespace cclabel::io
