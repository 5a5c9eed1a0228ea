// Region statistics on the CPU: one pass over the label image in horizontal bands, one thread a
// band, each band summing into its own dense per-label table; the tables are then merged label
// range by label range. Exact 64-bit integer sums; the centroid is divided once at the end.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/stats.hpp"
#include "core/request.hpp"
#include "core/stats_backends.hpp"
#include "cpu/label_tables.hpp"

namespace cclabel {
namespace {

constexpr std::uint64_t kNone = ~std::uint64_t(0);

/// One band's sums for one label.
struct Partial {
    std::uint64_t area = 0;
    std::uint64_t sum_x = 0;  // ≤ h · w(w−1)/2 < 2^63 since w · h < 2^32
    std::uint64_t sum_y = 0;
    std::uint64_t perimeter = 0;
    std::uint64_t first = kNone;  // raster index of the band's first pixel of the label
    std::uint32_t min_x = std::numeric_limits<std::uint32_t>::max(), max_x = 0;
    std::uint32_t min_y = std::numeric_limits<std::uint32_t>::max(), max_y = 0;

    void add(const Partial& p) {
        if (p.area == 0) return;
        area += p.area;
        sum_x += p.sum_x;
        sum_y += p.sum_y;
        perimeter += p.perimeter;
        first = std::min(first, p.first);
        min_x = std::min(min_x, p.min_x);
        max_x = std::max(max_x, p.max_x);
        min_y = std::min(min_y, p.min_y);
        max_y = std::max(max_y, p.max_y);
    }
};

using cpu::parallel_slices;

std::array<std::uint32_t, 4> read_value(const detail::Request& r, std::uint64_t index) {
    const std::int64_t y = std::int64_t(index / std::uint64_t(r.width));
    const std::int64_t x = std::int64_t(index % std::uint64_t(r.width));
    const std::uint8_t* p = r.row(y) + x * bytes_per_pixel(r.format);
    std::array<std::uint32_t, 4> v{};
    switch (r.format) {
        case PixelFormat::Binary8: v[0] = p[0] != 0 ? 1u : 0u; break;
        case PixelFormat::Gray8: v[0] = p[0]; break;
        case PixelFormat::Gray16: { std::uint16_t g; std::memcpy(&g, p, 2); v[0] = g; break; }
        case PixelFormat::U32: std::memcpy(&v[0], p, 4); break;
        case PixelFormat::RGB8: v = {p[0], p[1], p[2], 0}; break;
        case PixelFormat::RGBA8: v = {p[0], p[1], p[2], p[3]}; break;
        // The typed formats reach here as keys (core/format_keys.hpp); read directly, a pixel's
        // bits: the low 32 in v[0], the high 32 in v[1].
        case PixelFormat::I8: v[0] = p[0]; break;
        case PixelFormat::I16:
        case PixelFormat::F16: { std::uint16_t g; std::memcpy(&g, p, 2); v[0] = g; break; }
        case PixelFormat::I32:
        case PixelFormat::F32: std::memcpy(&v[0], p, 4); break;
        case PixelFormat::I64:
        case PixelFormat::U64:
        case PixelFormat::F64: {
            std::uint64_t b;
            std::memcpy(&b, p, 8);
            v[0] = std::uint32_t(b), v[1] = std::uint32_t(b >> 32);
            break;
        }
    }
    return v;
}

void scan_band(const std::uint32_t* labels, std::int64_t w, std::int64_t h, int conn, std::int64_t y0,
               std::int64_t y1, Partial* part) {
    for (std::int64_t y = y0; y < y1; ++y) {
        const std::uint32_t* cur = labels + y * w;
        const std::uint32_t* up = y > 0 ? cur - w : nullptr;
        const std::uint32_t* dn = y + 1 < h ? cur + w : nullptr;
        const bool edge_row = up == nullptr || dn == nullptr;
        for (std::int64_t x = 0; x < w; ++x) {
            const std::uint32_t l = cur[x];
            Partial& p = part[l];
            if (p.first == kNone) {
                p.first = std::uint64_t(y * w + x);
                p.min_y = std::uint32_t(y);  // rows are scanned in order: the first row is the top
            }
            ++p.area;
            p.sum_x += std::uint64_t(x);
            p.sum_y += std::uint64_t(y);
            p.min_x = std::min(p.min_x, std::uint32_t(x));
            p.max_x = std::max(p.max_x, std::uint32_t(x));
            p.max_y = std::uint32_t(y);
            bool boundary = edge_row || x == 0 || x + 1 == w;
            if (!boundary) {
                boundary = cur[x - 1] != l || cur[x + 1] != l || up[x] != l || dn[x] != l;
                if (!boundary && conn == 8)
                    boundary = up[x - 1] != l || up[x + 1] != l || dn[x - 1] != l || dn[x + 1] != l;
            }
            p.perimeter += boundary ? 1u : 0u;
        }
    }
}

}  // namespace

std::vector<RegionStats> detail::regions_cpu(const ImageView& image, const std::uint32_t* labels,
                                             const Options& options) {
    const std::uint32_t dummy = 0;
    const detail::Request r = detail::make_request(image, labels != nullptr ? labels : &dummy, options);
    const std::uint64_t pixels = r.pixels();
    if (pixels == 0) {
        std::vector<RegionStats> out(1);
        out[0].cx = out[0].cy = std::numeric_limits<double>::quiet_NaN();
        return out;
    }
    if (labels == nullptr) throw Error("label image is null for a non-empty image");

    // Thread count: never more than the rows, and no thread for less than 16 Ki pixels.
    int threads = int(std::min<std::uint64_t>({std::uint64_t(r.threads), std::uint64_t(r.height),
                                                std::max<std::uint64_t>(1, pixels >> 14)}));

    // N = the largest label, which must be numberable within the picture.
    const std::uint32_t n = cpu::largest_label(labels, pixels, threads);
    if (n > pixels)
        throw Error("label value " + std::to_string(n) + " exceeds the number of pixels (" + std::to_string(pixels) +
                    "): not a label image of this " + std::to_string(r.width) + " x " + std::to_string(r.height) +
                    " picture");
    const std::size_t rows = std::size_t(n) + 1;

    threads = cpu::table_threads(threads, rows, sizeof(Partial));  // each band: a dense table of N + 1

    std::vector<std::vector<Partial>> tables(static_cast<std::size_t>(threads));
    parallel_slices(threads, std::uint64_t(r.height), [&](int t, std::uint64_t y0, std::uint64_t y1) {
        tables[std::size_t(t)].assign(rows, Partial{});
        scan_band(labels, r.width, r.height, r.connectivity, std::int64_t(y0), std::int64_t(y1),
                  tables[std::size_t(t)].data());
    });

    std::vector<RegionStats> out(rows);
    cpu::merge_tables(tables, [&](std::uint64_t l, const Partial& m) {
        RegionStats& s = out[l];
        s.area = m.area;
        s.perimeter = m.perimeter;
        if (m.area == 0) {
            s.cx = s.cy = std::numeric_limits<double>::quiet_NaN();
            return;
        }
        s.x = m.min_x;
        s.y = m.min_y;
        s.width = std::int64_t(m.max_x) - std::int64_t(m.min_x) + 1;
        s.height = std::int64_t(m.max_y) - std::int64_t(m.min_y) + 1;
        s.cx = double(m.sum_x) / double(m.area);
        s.cy = double(m.sum_y) / double(m.area);
        s.value = read_value(r, m.first);
    });
    return out;
}

}  // namespace cclabel
