// A helper for the streamed labelling's large run (bench/RESULTS.md, issue 7), independent of
// cclabel (libtiff only), not a test:
//   stream_tool make OUT.tif W H [ROWS_PER_STRIP]
//       writes a gray8 deflate TIFF band by band: anti-diagonal stripes (x + y) / 61 of values 1..5,
//       each one region crossing every band and tile it meets, and 3x3 dots of 255 every 24 pixels
//       (some cut by any band or tile edge; none on the image's edge); prints the number of regions (4- or 8-connected).
//   stream_tool check IMAGE.tif LABELS.tif N CONNECTIVITY
//       reads both row by row and checks that the labels are cclabel's: equal values ⇔ equal labels
//       for every pair of neighbours (so each region has one label), labels first seen in raster
//       order 1, 2, 3, ... with no gaps, no 0, and exactly N of them (so no two regions share one).
#include <tiffio.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr std::int64_t kPeriod = 61, kValues = 5, kDotStep = 24, kDotOffset = 5, kDot = 3;

// Dots keep a pixel of stripe between them and the image's edge: a dot on the edge could cut a
// stripe's corner pixel off into a region of its own.
std::int64_t dots_along(std::int64_t n) {
    return n <= kDotOffset + kDot ? 0 : (n - kDotOffset - kDot - 1) / kDotStep + 1;
}

std::uint8_t pixel(std::int64_t x, std::int64_t y, std::int64_t w, std::int64_t h) {
    const bool dot = x % kDotStep >= kDotOffset && x % kDotStep < kDotOffset + kDot && y % kDotStep >= kDotOffset &&
                     y % kDotStep < kDotOffset + kDot && x / kDotStep < dots_along(w) && y / kDotStep < dots_along(h);
    return dot ? 255 : std::uint8_t(1 + ((x + y) / kPeriod) % kValues);
}

int make(const char* path, std::int64_t w, std::int64_t h, std::uint32_t rps) {
    TIFF* tif = TIFFOpen(path, "w8");
    if (tif == nullptr) return 1;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, std::uint32_t(w));
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, std::uint32_t(h));
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, std::uint16_t(1));
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, std::uint16_t(8));
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(tif, TIFFTAG_ZIPQUALITY, 1);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rps);
    std::vector<std::uint8_t> strip;
    for (std::int64_t y0 = 0, s = 0; y0 < h; y0 += rps, ++s) {
        const std::int64_t rows = std::min<std::int64_t>(rps, h - y0);
        strip.resize(std::size_t(rows * w));
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t x = 0; x < w; ++x) strip[std::size_t(r * w + x)] = pixel(x, y0 + r, w, h);
        if (TIFFWriteEncodedStrip(tif, std::uint32_t(s), strip.data(), tmsize_t(strip.size())) < 0) return 1;
    }
    if (!TIFFWriteDirectory(tif)) return 1;
    TIFFClose(tif);
    // Every stripe is one region (61 wide along x + y: a dot never cuts one), every dot another.
    const std::int64_t stripes = (w - 1 + h - 1) / kPeriod + 1;
    std::printf("%lld\n", static_cast<long long>(stripes + dots_along(w) * dots_along(h)));
    return 0;
}

struct Rows {
    TIFF* tif = nullptr;
    std::uint32_t w = 0, h = 0;
    std::uint16_t bps = 0;
    std::vector<std::uint8_t> line;
    explicit Rows(const char* path) : tif(TIFFOpen(path, "rm")) {
        if (tif == nullptr) std::exit(2);
        TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
        TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
        TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
        line.resize(std::size_t(TIFFScanlineSize(tif)));
    }
    ~Rows() { TIFFClose(tif); }
    void read(std::uint32_t y, std::vector<std::uint64_t>& out) {
        if (TIFFReadScanline(tif, line.data(), y, 0) < 0) {
            std::fprintf(stderr, "read error at row %u\n", y);
            std::exit(2);
        }
        out.resize(w);
        for (std::uint32_t x = 0; x < w; ++x) {
            std::uint64_t v = 0;
            std::memcpy(&v, line.data() + std::size_t(x) * (bps / 8), bps / 8);  // little-endian host
            out[x] = v;
        }
    }
};

int check(const char* image, const char* labels, std::uint64_t n, int connectivity) {
    Rows img(image), lab(labels);
    if (img.w != lab.w || img.h != lab.h) {
        std::fprintf(stderr, "sizes differ\n");
        return 1;
    }
    std::vector<std::uint64_t> v0, v1, l0, l1;
    std::vector<bool> seen(n + 1, false);
    std::uint64_t max = 0, bad = 0;
    auto pair = [&](std::uint64_t va, std::uint64_t la, std::uint64_t vb, std::uint64_t lb, std::uint32_t x, std::uint32_t y) {
        if ((va == vb) != (la == lb) && bad++ < 10) std::fprintf(stderr, "inconsistent neighbours at (%u, %u)\n", x, y);
    };
    for (std::uint32_t y = 0; y < img.h; ++y) {
        img.read(y, v1);
        lab.read(y, l1);
        for (std::uint32_t x = 0; x < img.w; ++x) {
            const std::uint64_t l = l1[x];
            if (l == 0 || l > n) {
                if (bad++ < 10) std::fprintf(stderr, "label %llu out of 1..N at (%u, %u)\n", (unsigned long long)l, x, y);
                continue;
            }
            if (!seen[l]) {
                if (l != max + 1 && bad++ < 10) std::fprintf(stderr, "label %llu first seen after %llu at (%u, %u)\n",
                                                            (unsigned long long)l, (unsigned long long)max, x, y);
                seen[l] = true;
                if (l > max) max = l;
            }
            if (x > 0) pair(v1[x - 1], l1[x - 1], v1[x], l, x, y);
            if (y > 0) {
                pair(v0[x], l0[x], v1[x], l, x, y);
                if (connectivity == 8 && x > 0) pair(v0[x - 1], l0[x - 1], v1[x], l, x, y);
                if (connectivity == 8 && x + 1 < img.w) pair(v0[x + 1], l0[x + 1], v1[x], l, x, y);
            }
        }
        std::swap(v0, v1);
        std::swap(l0, l1);
    }
    if (max != n && bad++ < 10) std::fprintf(stderr, "%llu labels, expected %llu\n", (unsigned long long)max, (unsigned long long)n);
    std::printf("%s: %llu labels, %llu problems\n", bad ? "WRONG" : "ok", (unsigned long long)max, (unsigned long long)bad);
    return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "make" && (argc == 5 || argc == 6))
        return make(argv[2], std::atoll(argv[3]), std::atoll(argv[4]), argc == 6 ? std::uint32_t(std::atoi(argv[5])) : 32);
    if (cmd == "check" && argc == 6) return check(argv[2], argv[3], std::strtoull(argv[4], nullptr, 10), std::atoi(argv[5]));
    std::fprintf(stderr, "usage: stream_tool make OUT.tif W H [ROWS_PER_STRIP] | check IMAGE.tif LABELS.tif N 4|8\n");
    return 2;
}
