// Tolerance joining in 3-D (Options::tolerance on a volume): neighbours (6, 18 or 26) join when
// every channel differs by at most the tolerance, and a region is everything reachable through such
// steps, as for pictures (tolerance_cpu.cpp). Closeness is not an equivalence of values, so the exact
// labeller's runs do not apply: this is a union-find over voxels, in the output itself.
//
// Slabs of slices are scanned on the threads, each joining its voxels to their earlier close
// neighbours inside the slab (band_numbering.hpp's Forest over labels index + 1 in the output,
// min-linking: a root is its region's first voxel in raster order);
// then, on one thread, the first slice of every slab joins the slice above it; then one pass in
// raster order numbers the roots and gives every other voxel the label its parent already holds
// (a parent always comes earlier, so it is numbered first).
#include <algorithm>
#include <cstdint>

#include "cclabel/detail/pixel_traits.hpp"
#include "core/parallel_for.hpp"
#include "cpu/band_numbering.hpp"
#include "cpu/close_pixels.hpp"
#include "cpu/label3d_cpu.hpp"

namespace cclabel::cpu {
namespace {

struct Offset {
    int dx, dy, dz;
};

/// The earlier neighbours (raster order z, y, x) under @p conn: 3, 9 or 13 offsets.
int earlier_offsets(int conn, Offset* o) {
    int n = 0;
    for (int dz = -1; dz <= 0; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                if (dz == 0 && (dy > 0 || (dy == 0 && dx >= 0))) continue;  // not earlier
                const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
                if ((conn == 6 && nonzero > 1) || (conn == 18 && nonzero > 2)) continue;
                o[n++] = Offset{dx, dy, dz};
            }
    return n;
}

template <PixelFormat F>
std::uint32_t label(const detail::VolumeRequest& r, std::uint32_t* out) {
    using T = detail::PixelTraits<F>;
    const std::int64_t W = r.width, H = r.height, D = r.depth;
    const auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        return std::uint32_t((z * H + y) * W + x);
    };
    const auto px = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return r.row(z, y) + x * T::kBytes; };
    const auto background = [&](const std::uint8_t* p) { return r.has_background && T::key(p) == r.background_key; };
    const Forest forest{out};  // labels are voxel index + 1 (a volume has at most 2^32 - 1), background 0
    Offset off[13];
    const int n_off = earlier_offsets(r.connectivity, off);
    // Joins voxel (x, y, z) to its earlier close neighbours: those in its own slice, in the slice
    // above, or both (a slab's first slice meets the slab before it only after the slabs are done).
    enum Which { kBoth, kSameSlice, kAbove };
    const auto join = [&](std::int64_t x, std::int64_t y, std::int64_t z, Which which) {
        const std::uint8_t* v = px(x, y, z);
        for (int k = 0; k < n_off; ++k) {
            const Offset& o = off[k];
            if ((which == kAbove && o.dz == 0) || (which == kSameSlice && o.dz != 0)) continue;
            const std::int64_t nx = x + o.dx, ny = y + o.dy, nz = z + o.dz;
            if (nx < 0 || nx >= W || ny < 0 || ny >= H || nz < 0) continue;
            const std::uint32_t j = at(nx, ny, nz);
            if (out[j] != 0 && close<F>(v, px(nx, ny, nz), r.tolerance)) forest.unite(at(x, y, z) + 1, j + 1);
        }
    };
    const int slabs = int(std::clamp<std::int64_t>(r.threads, 1, D));
    detail::parallel_for(std::uint64_t(slabs), slabs, [&](std::uint64_t s) {
        const std::int64_t z0 = D * std::int64_t(s) / slabs, z1 = D * std::int64_t(s + 1) / slabs;
        for (std::int64_t z = z0; z < z1; ++z)
            for (std::int64_t y = 0; y < H; ++y)
                for (std::int64_t x = 0; x < W; ++x) {
                    const std::uint32_t i = at(x, y, z);
                    if (background(px(x, y, z))) {
                        out[i] = 0;
                        continue;
                    }
                    out[i] = i + 1;
                    join(x, y, z, z > z0 ? kBoth : kSameSlice);  // the slice above a slab is another's
                }
    });
    for (int s = 1; s < slabs; ++s) {
        const std::int64_t z = D * s / slabs;
        for (std::int64_t y = 0; y < H; ++y)
            for (std::int64_t x = 0; x < W; ++x)
                if (out[at(x, y, z)] != 0) join(x, y, z, kAbove);
    }
    std::uint32_t n = 0;
    const std::uint64_t voxels = r.voxels();
    for (std::uint64_t i = 0; i < voxels; ++i) {
        const std::uint32_t p = out[i];
        out[i] = p == 0 ? 0 : p == std::uint32_t(i + 1) ? ++n : out[p - 1];
    }
    return n;
}

}  // namespace

std::uint32_t label_volume_tolerance(const detail::VolumeRequest& r, std::uint32_t* out) {
    switch (r.format) {
        case PixelFormat::Gray8: return label<PixelFormat::Gray8>(r, out);
        case PixelFormat::Gray16: return label<PixelFormat::Gray16>(r, out);
        case PixelFormat::U32: return label<PixelFormat::U32>(r, out);
        case PixelFormat::RGB8: return label<PixelFormat::RGB8>(r, out);
        case PixelFormat::RGBA8: return label<PixelFormat::RGBA8>(r, out);
        default: return label_volume(r, out);  // Binary8: one foreground value, which a tolerance cannot widen
    }
}

}  // namespace cclabel::cpu
