// Netpbm: P1/P4 (bitmap → Binary8, 1 = ink = foreground), P2/P5 (gray), P3/P6 (rgb); maxval above
// 255 means two-byte big-endian samples. Only the first image of a multi-image file is read.
#include <cstring>
#include <vector>

#include "io/io_common.hpp"
#include "io/sample_sink.hpp"

namespace cclabel::io::detail {
namespace {

class Header {
public:
    Header(File& f, const std::string& path) : f_(f), path_(path) {}

    /// The next decimal number after whitespace and comments, at most @p max.
    std::uint64_t number(const char* what, std::uint64_t max) {
        int c = skip_space();
        if (c < '0' || c > '9') fail(path_, std::string("bad PNM header: expected ") + what);
        std::uint64_t v = 0;
        while (c >= '0' && c <= '9') {
            v = v * 10 + std::uint64_t(c - '0');
            if (v > max) fail(path_, std::string("bad PNM header: ") + what + " too large");
            c = std::getc(f_.get());
        }
        last_ = c;
        return v;
    }
    /// The one whitespace byte that must end the header of a binary PNM.
    void end_of_header() {
        if (last_ != ' ' && last_ != '\t' && last_ != '\n' && last_ != '\r' && last_ != '\v' && last_ != '\f') {
            fail(path_, "bad PNM header: no whitespace before the pixel data");
        }
    }
    /// One ASCII sample (P1 digits need no separator).
    unsigned ascii(bool bit, unsigned maxval) {
        int c = skip_space();
        if (c == EOF) fail(path_, "truncated file (pixel data ends early)");
        if (bit) {
            if (c != '0' && c != '1') fail(path_, "bad plain PBM pixel");
            return unsigned(c - '0');
        }
        std::ungetc(c, f_.get());
        const std::uint64_t v = number("a sample", 0xFFFFFFu);
        if (v > maxval) fail(path_, "sample " + std::to_string(v) + " exceeds maxval " + std::to_string(maxval));
        return unsigned(v);
    }

private:
    int skip_space() {
        int c = std::getc(f_.get());
        for (;;) {
            if (c == '#') {
                while (c != '\n' && c != '\r' && c != EOF) c = std::getc(f_.get());
            } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
                c = std::getc(f_.get());
            } else {
                return c;
            }
        }
    }

    File& f_;
    const std::string& path_;
    int last_ = EOF;
};

}  // namespace

Image read_pnm(const std::string& path, std::uint64_t file_size) {
    File f(path, "rb");
    char magic[2];
    f.read_exact(magic, 2, "header");
    const int kind = magic[1] - '0';
    if (magic[0] != 'P' || kind < 1 || kind > 6) fail(path, "not a PBM/PGM/PPM file");
    const bool ascii = kind <= 3;
    const bool bitmap = kind == 1 || kind == 4;
    const int spp = (kind == 3 || kind == 6) ? 3 : 1;
    Header h(f, path);
    const std::uint64_t width = h.number("width", 0xFFFFFFFFu);
    const std::uint64_t height = h.number("height", 0xFFFFFFFFu);
    const unsigned maxval = bitmap ? 1u : unsigned(h.number("maxval", 65535));
    if (maxval == 0) fail(path, "bad PNM header: maxval 0");
    check_pixels(path, width, height);
    if (!ascii) h.end_of_header();
    const int sample_bytes = maxval > 255 ? 2 : 1;

    // Refuse a size the file cannot hold before reserving memory for it.
    const long pos = std::ftell(f.get());
    const std::uint64_t left = file_size > std::uint64_t(pos) ? file_size - std::uint64_t(pos) : 0;
    const std::uint64_t packed_row = bitmap && !ascii ? (width + 7) / 8 : width * std::uint64_t(spp * sample_bytes);
    const std::uint64_t min_bytes = ascii ? width * height * std::uint64_t(spp) : packed_row * height;
    if (min_bytes > left) {
        fail(path, "truncated file: " + std::to_string(width) + " x " + std::to_string(height) + " pixels need " +
                       std::to_string(min_bytes) + " bytes of pixel data, " + std::to_string(left) + " are left");
    }

    SampleSink sink(path, std::int64_t(width), std::int64_t(height), spp, sample_bytes, file_size, bitmap);
    std::vector<std::uint8_t> in(ascii ? 0 : std::size_t(packed_row));
    std::vector<std::uint8_t> row(sink.in_row_bytes());
    const std::size_t samples = std::size_t(width) * std::size_t(spp);
    for (std::uint64_t y = 0; y < height; ++y) {
        if (ascii) {
            for (std::size_t i = 0; i < samples; ++i) {
                const unsigned v = h.ascii(bitmap, maxval);
                if (sample_bytes == 2) {
                    const std::uint16_t v16 = std::uint16_t(v);
                    std::memcpy(&row[2 * i], &v16, 2);
                } else {
                    row[i] = std::uint8_t(v);
                }
            }
        } else {
            f.read_exact(in.data(), in.size(), "pixel data");
            if (bitmap) {
                for (std::size_t x = 0; x < width; ++x) row[x] = (in[x >> 3] >> (7 - (x & 7))) & 1;
            } else if (sample_bytes == 1) {
                for (std::size_t i = 0; i < samples; ++i) {
                    if (in[i] > maxval) fail(path, "sample " + std::to_string(in[i]) + " exceeds maxval " + std::to_string(maxval));
                }
                if (samples != 0) std::memcpy(row.data(), in.data(), samples);  // a 0-wide row's data() may be null
            } else {
                for (std::size_t i = 0; i < samples; ++i) {
                    const std::uint16_t v = std::uint16_t(in[2 * i] << 8 | in[2 * i + 1]);
                    if (v > maxval) fail(path, "sample " + std::to_string(v) + " exceeds maxval " + std::to_string(maxval));
                    std::memcpy(&row[2 * i], &v, 2);
                }
            }
        }
        sink.add_rows(row.data(), 1);
    }
    static const char* const names[] = {"", "pbm plain", "pgm plain", "ppm plain", "pbm", "pgm", "ppm"};
    std::string desc = names[kind];
    if (!bitmap) desc += std::string(spp == 3 ? " rgb " : " gray ") + (sample_bytes == 2 ? "16-bit" : "8-bit");
    return sink.finish(desc);
}

}  // namespace cclabel::io::detail
