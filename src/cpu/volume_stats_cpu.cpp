// Region statistics of a label volume (cclabel/volume_stats.hpp), as the picture's in
// stats_cpu.cpp: the rows (y, z) are cut into bands, one thread a band, each summing into its own
// dense per-label table; the tables are then merged label range by label range. Exact 64-bit sums,
// divided once at the end. Also the volume filters, which are the picture filters over the volume
// seen as one tall picture (raster order z, y, x is the tall picture's raster order).
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/volume_stats.hpp"
#include "core/format_value.hpp"
#include "core/stats_backends.hpp"
#include "core/volume_request.hpp"
#include "cpu/label_tables.hpp"

namespace cclabel {
namespace {

constexpr std::uint64_t kNone = ~std::uint64_t(0);
constexpr std::uint32_t kFar = std::numeric_limits<std::uint32_t>::max();

/// One band's sums for one label. Each coordinate sum is below voxels × extent < 2^32 · 2^32.
struct Partial {
    std::uint64_t voxels = 0;
    std::uint64_t sum_x = 0, sum_y = 0, sum_z = 0;
    std::uint64_t surface = 0;
    std::uint64_t first = kNone;  // raster index of the band's first voxel of the label
    std::uint32_t min_x = kFar, max_x = 0, min_y = kFar, max_y = 0, min_z = kFar, max_z = 0;

    void add(const Partial& p) {
        if (p.voxels == 0) return;
        voxels += p.voxels;
        sum_x += p.sum_x, sum_y += p.sum_y, sum_z += p.sum_z;
        surface += p.surface;
        first = std::min(first, p.first);
        min_x = std::min(min_x, p.min_x), max_x = std::max(max_x, p.max_x);
        min_y = std::min(min_y, p.min_y), max_y = std::max(max_y, p.max_y);
        min_z = std::min(min_z, p.min_z), max_z = std::max(max_z, p.max_z);
    }
};

/// The value of the voxel at raster index @p index, as VolumeRegionStats::value.
std::array<std::uint32_t, 4> read_value(const detail::VolumeRequest& r, std::uint64_t index) {
    const std::uint64_t w = std::uint64_t(r.width), h = std::uint64_t(r.height);
    const std::int64_t x = std::int64_t(index % w), y = std::int64_t(index / w % h), z = std::int64_t(index / w / h);
    const std::uint8_t* p = r.row(z, y) + x * bytes_per_pixel(r.format);
    std::array<std::uint32_t, 4> v{};
    auto load = [&]<typename T>(T) {
        T t;
        std::memcpy(&t, p, sizeof t);
        return t;
    };
    switch (r.format) {
        case PixelFormat::Binary8: v[0] = p[0] != 0 ? 1u : 0u; break;
        case PixelFormat::Gray8:
        case PixelFormat::I8: v[0] = p[0]; break;
        case PixelFormat::Gray16:
        case PixelFormat::I16: v[0] = load(std::uint16_t{}); break;
        case PixelFormat::F16: v[0] = detail::canonical_f16(load(std::uint16_t{})); break;
        case PixelFormat::U32:
        case PixelFormat::I32: v[0] = load(std::uint32_t{}); break;
        case PixelFormat::F32: v[0] = detail::canonical_f32(load(std::uint32_t{})); break;
        case PixelFormat::RGB8: v = {p[0], p[1], p[2], 0}; break;
        case PixelFormat::RGBA8: v = {p[0], p[1], p[2], p[3]}; break;
        case PixelFormat::I64:
        case PixelFormat::U64:
        case PixelFormat::F64: {
            std::uint64_t b = load(std::uint64_t{});
            if (r.format == PixelFormat::F64) b = detail::canonical_f64(b);
            v[0] = std::uint32_t(b), v[1] = std::uint32_t(b >> 32);
            break;
        }
    }
    return v;
}

/// Sums rows [row0, row1) of the volume (row = z · height + y) into @p part.
void scan_band(const std::uint32_t* labels, std::int64_t w, std::int64_t h, std::int64_t d, std::uint64_t row0,
               std::uint64_t row1, Partial* part) {
    const std::int64_t plane = w * h;
    for (std::uint64_t row = row0; row < row1; ++row) {
        const std::int64_t z = std::int64_t(row) / h, y = std::int64_t(row) % h;
        const std::uint32_t* cur = labels + std::int64_t(row) * w;
        const std::uint32_t* up = y > 0 ? cur - w : nullptr;
        const std::uint32_t* dn = y + 1 < h ? cur + w : nullptr;
        const std::uint32_t* front = z > 0 ? cur - plane : nullptr;
        const std::uint32_t* back = z + 1 < d ? cur + plane : nullptr;
        const bool edge_row = !up || !dn || !front || !back;
        for (std::int64_t x = 0; x < w; ++x) {
            const std::uint32_t l = cur[x];
            Partial& p = part[l];
            if (p.first == kNone) p.first = row * std::uint64_t(w) + std::uint64_t(x);
            ++p.voxels;
            p.sum_x += std::uint64_t(x);
            p.sum_y += std::uint64_t(y);
            p.sum_z += std::uint64_t(z);
            p.min_x = std::min(p.min_x, std::uint32_t(x));
            p.max_x = std::max(p.max_x, std::uint32_t(x));
            p.min_y = std::min(p.min_y, std::uint32_t(y));
            p.max_y = std::max(p.max_y, std::uint32_t(y));
            p.min_z = std::min(p.min_z, std::uint32_t(z));
            p.max_z = std::max(p.max_z, std::uint32_t(z));
            const bool surface = edge_row || x == 0 || x + 1 == w || cur[x - 1] != l || cur[x + 1] != l ||
                                 up[x] != l || dn[x] != l || front[x] != l || back[x] != l;
            p.surface += surface ? 1u : 0u;
        }
    }
}

}  // namespace

std::vector<VolumeRegionStats> regions_volume(const VolumeView& volume, const std::uint32_t* labels,
                                              const Options& options) {
    // Checked before the request: a GPU volume labeller may come to accept Cuda, these stats do not.
    if (options.backend == Backend::Cuda)
        throw Error("region statistics of volumes run on the CPU: use backend cpu or auto");
    const std::uint32_t dummy = 0;
    const detail::VolumeRequest r = detail::make_volume_request(volume, labels != nullptr ? labels : &dummy, options);
    const std::uint64_t voxels = r.voxels();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (voxels == 0) {
        std::vector<VolumeRegionStats> out(1);
        out[0].cx = out[0].cy = out[0].cz = nan;
        return out;
    }
    if (labels == nullptr) throw Error("label volume is null for a non-empty volume");

    const std::uint64_t rows_in = std::uint64_t(r.height) * std::uint64_t(r.depth);
    int threads = int(std::min<std::uint64_t>({std::uint64_t(r.threads), rows_in,
                                                std::max<std::uint64_t>(1, voxels >> 14)}));
    const std::uint32_t n = cpu::largest_label(labels, voxels, threads);
    if (n > voxels)
        throw Error("label value " + std::to_string(n) + " exceeds the number of voxels (" + std::to_string(voxels) +
                    "): not a label volume of this " + std::to_string(r.width) + " x " + std::to_string(r.height) +
                    " x " + std::to_string(r.depth) + " volume");
    const std::size_t rows = std::size_t(n) + 1;

    threads = cpu::table_threads(threads, rows, sizeof(Partial));  // each band: a dense table of N + 1
    std::vector<std::vector<Partial>> tables(static_cast<std::size_t>(threads));
    cpu::parallel_slices(threads, rows_in, [&](int t, std::uint64_t r0, std::uint64_t r1) {
        tables[std::size_t(t)].assign(rows, Partial{});
        scan_band(labels, r.width, r.height, r.depth, r0, r1, tables[std::size_t(t)].data());
    });

    std::vector<VolumeRegionStats> out(rows);
    cpu::merge_tables(tables, [&](std::uint64_t l, const Partial& m) {
        VolumeRegionStats& s = out[l];
        s.voxels = m.voxels;
        s.surface = m.surface;
        if (m.voxels == 0) {
            s.cx = s.cy = s.cz = nan;
            return;
        }
        s.x = m.min_x, s.y = m.min_y, s.z = m.min_z;
        s.width = std::int64_t(m.max_x) - std::int64_t(m.min_x) + 1;
        s.height = std::int64_t(m.max_y) - std::int64_t(m.min_y) + 1;
        s.depth = std::int64_t(m.max_z) - std::int64_t(m.min_z) + 1;
        s.cx = double(m.sum_x) / double(m.voxels);
        s.cy = double(m.sum_y) / double(m.voxels);
        s.cz = double(m.sum_z) / double(m.voxels);
        s.value = read_value(r, m.first);
    });
    return out;
}

namespace {

/// The height of the volume's labels seen as one tall picture of width × (height · depth), after
/// the volume's own checks (the picture's would name a picture); 0 for an empty volume.
std::int64_t tall_height(const std::uint32_t* labels, std::int64_t width, std::int64_t height, std::int64_t depth) {
    if (width < 0 || height < 0 || depth < 0)
        throw Error("label volume size must not be negative (got " + std::to_string(width) + " x " +
                    std::to_string(height) + " x " + std::to_string(depth) + ")");
    if (width == 0 || height == 0 || depth == 0) return 0;
    const std::uint64_t w = std::uint64_t(width), h = std::uint64_t(height), d = std::uint64_t(depth);
    if (h > kMaxPixels / w || d > kMaxPixels / (w * h))
        throw Error("label volume of " + std::to_string(width) + " x " + std::to_string(height) + " x " +
                    std::to_string(depth) + " voxels has more than 4294967295 (2^32 - 1) voxels");
    if (labels == nullptr) throw Error("label volume is null for a non-empty volume");
    return height * depth;
}

}  // namespace

std::uint32_t remove_small_volume(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::int64_t depth,
                                  std::uint64_t min_voxels) {
    const std::int64_t tall = tall_height(labels, width, height, depth);
    return tall == 0 ? 0 : detail::remove_small_cpu(labels, width, tall, min_voxels);
}

std::uint32_t keep_largest_volume(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::int64_t depth,
                                  std::uint32_t k) {
    const std::int64_t tall = tall_height(labels, width, height, depth);
    return tall == 0 ? 0 : detail::keep_largest_cpu(labels, width, tall, k);
}

}  // namespace cclabel
