// Tolerance joining in 3-D (Options::tolerance on a volume): neighbours (6, 18 or 26) join when
// every channel differs by at most the tolerance (a typed volume: when their values differ by at
// most r.tolerance_value, compared as a typed picture's, tolerance_cpu.hpp's ValueJoins), and a
// region is everything reachable through such steps, as for pictures (tolerance_cpu.cpp). Closeness is not an equivalence of values, so the exact
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
#include "cpu/tolerance_cpu.hpp"

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

/// What joins for the untyped formats: every channel within r.tolerance; the background by key.
template <PixelFormat F>
struct KeyJoins {
    static constexpr int kBytes = detail::PixelTraits<F>::kBytes;
    const detail::VolumeRequest& r;
    bool background(const std::uint8_t* p) const {
        return r.has_background && detail::PixelTraits<F>::key(p) == r.background_key;
    }
    bool close(const std::uint8_t* a, const std::uint8_t* b) const { return cpu::close<F>(a, b, r.tolerance); }
};

/// @p j: KeyJoins, or ValueJoins (tolerance_cpu.hpp) for a typed volume, the same compare as a
/// typed picture's.
template <class Joins>
std::uint32_t label(const detail::VolumeRequest& r, const Joins& j, std::uint32_t* out) {
    constexpr int bpp = Joins::kBytes;
    const std::int64_t W = r.width, H = r.height, D = r.depth;
    const auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        return std::uint32_t((z * H + y) * W + x);
    };
    const auto px = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return r.row(z, y) + x * bpp; };
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
            const std::uint32_t n = at(nx, ny, nz);
            if (out[n] != 0 && j.close(v, px(nx, ny, nz))) forest.unite(at(x, y, z) + 1, n + 1);
        }
    };
    const int slabs = int(std::clamp<std::int64_t>(r.threads, 1, D));
    detail::parallel_for(std::uint64_t(slabs), slabs, [&](std::uint64_t s) {
        const std::int64_t z0 = D * std::int64_t(s) / slabs, z1 = D * std::int64_t(s + 1) / slabs;
        for (std::int64_t z = z0; z < z1; ++z)
            for (std::int64_t y = 0; y < H; ++y)
                for (std::int64_t x = 0; x < W; ++x) {
                    const std::uint32_t i = at(x, y, z);
                    if (j.background(px(x, y, z))) {
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
    auto keys = [&]<PixelFormat F>() { return label(r, KeyJoins<F>{r}, out); };
    return dispatch_typed(
        r.format,
        [&]<PixelFormat F, typename T>() {
            return label(r, ValueJoins<F, T>{r.tolerance_value, r.has_background, r.background_bits}, out);
        },
        [&]() -> std::uint32_t {
            switch (r.format) {
                case PixelFormat::Gray8: return keys.template operator()<PixelFormat::Gray8>();
                case PixelFormat::Gray16: return keys.template operator()<PixelFormat::Gray16>();
                case PixelFormat::U32: return keys.template operator()<PixelFormat::U32>();
                case PixelFormat::RGB8: return keys.template operator()<PixelFormat::RGB8>();
                case PixelFormat::RGBA8: return keys.template operator()<PixelFormat::RGBA8>();
                default: return label_volume(r, out);  // Binary8: one foreground value, which a tolerance cannot widen
            }
        });
}

}  // namespace cclabel::cpu
