// Tolerance labelling on the CPU: two neighbours join when every channel differs by at most the
// tolerance, and a region is the transitive closure of such joins (cc3d's `delta`, but closed over
// both connectivities; see docs/tolerance_and_adjacency.md). Closeness is not an equivalence of
// values, so the exact labeller's tricks (runs of one key, 5-bit codes of equal neighbours) do not
// apply; this is the plain two-pass union-find over pixels, in the same shape as label_cpu.cpp,
// with whom it shares the seam step (band_numbering.hpp):
//
//   1. Scan (a band a thread). Each foreground pixel takes the label of its first close earlier
//      neighbour (W, then NW, N, NE in the row above within the band) and unites it with any other
//      close one; with none it takes a fresh label, its own index + 1. The label image is the
//      union-find forest (out[l - 1] is label l's parent), unions hang the larger root under the
//      smaller (min-linking), so every set is rooted at its first pixel in raster order.
//   2. Seams (one thread). The first row of each band is united with the last row of the band above
//      where the pixels are close, with read-only finds so that only roots are written; each root
//      hung under another is then pointed straight at its final root, and those roots are numbered.
//   3. Number (a band a thread). In raster order a root gets the next number and any other pixel
//      the number already written at its parent, which comes earlier (in the band, or looked up
//      in SeamRoots when the parent is a root of an earlier band).
// Every choice depends on the picture only, so the labels are the same for any thread count.
#include "cpu/tolerance_cpu.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "core/format_value.hpp"
#include "cpu/band_numbering.hpp"
#include "cpu/close_pixels.hpp"
#include "cpu/thread_pool.hpp"

namespace cclabel::cpu {
namespace {

using Band = BandRoots;

/// What joins for the unsigned formats: every channel within r.tolerance; background by key.
template <PixelFormat F>
struct ChannelJoins {
    static constexpr int kBytes = detail::PixelTraits<F>::kBytes;
    const detail::Request& r;
    bool background(const std::uint8_t* p) const {
        return r.has_background && detail::PixelTraits<F>::key(p) == r.background_key;
    }
    bool close(const std::uint8_t* a, const std::uint8_t* b) const { return cpu::close<F>(a, b, r.tolerance); }
};

template <class Joins, int Conn>
void scan_band(const detail::Request& r, const Joins& j, Band& b, std::uint32_t* out) {
    constexpr int bpp = Joins::kBytes;
    const auto w = std::uint64_t(r.width);
    const Forest forest{out};
    b.row_roots.assign(std::size_t(b.y1 - b.y0), 0);
    for (std::int64_t y = b.y0; y < b.y1; ++y) {
        const std::uint8_t* row = r.row(y);
        const std::uint8_t* up = y > b.y0 ? r.row(y - 1) : nullptr;
        std::uint32_t* o = out + std::uint64_t(y) * w;
        std::uint32_t* ou = o - w;
        std::uint32_t& roots = b.row_roots[std::size_t(y - b.y0)];
        for (std::uint64_t x = 0; x < w; ++x) {
            const std::uint8_t* p = row + x * bpp;
            if (j.background(p)) {
                o[x] = 0;
                continue;
            }
            std::uint32_t label = 0;
            auto consider = [&](std::uint32_t l, const std::uint8_t* q) {
                if (l == 0 || !j.close(p, q)) return;  // background labels are 0
                if (label == 0) {
                    label = l;
                } else if (l != label) {
                    if (const std::uint32_t hung = forest.unite(label, l))
                        --b.row_roots[std::size_t((hung - 1) / w - std::uint64_t(b.y0))];
                }
            };
            if (x > 0) consider(o[x - 1], p - bpp);
            if (up) {
                if (Conn == 8 && x > 0) consider(ou[x - 1], up + (x - 1) * bpp);
                consider(ou[x], up + x * bpp);
                if (Conn == 8 && x + 1 < w) consider(ou[x + 1], up + (x + 1) * bpp);
            }
            if (label == 0) {
                label = std::uint32_t(std::uint64_t(y) * w + x + 1);
                ++roots;
            }
            o[x] = label;
        }
    }
}

template <class Joins, int Conn>
std::uint32_t label_bands(const detail::Request& r, const Joins& j, std::uint32_t* out) {
    constexpr int bpp = Joins::kBytes;
    const int nb = int(std::min<std::int64_t>(r.threads, r.height));
    const auto w = std::uint64_t(r.width);
    std::vector<Band> bands = split_bands<Band>(nb, r.height, w);
    if (nb == 1)
        scan_band<Joins, Conn>(r, j, bands[0], out);
    else
        run_parallel(nb, [&](int i) { scan_band<Joins, Conn>(r, j, bands[std::size_t(i)], out); });

    const Forest forest{out};
    std::vector<std::uint32_t> hung;
    for (int i = 1; i < nb; ++i) {
        const std::int64_t y = bands[std::size_t(i)].y0;
        const std::uint8_t* row = r.row(y);
        const std::uint8_t* up = r.row(y - 1);
        merge_seam<Conn>(
            forest, std::uint32_t(w), y,
            [&](std::uint32_t x, std::uint32_t q) { return j.close(row + std::size_t(x) * bpp, up + std::size_t(q) * bpp); }, hung);
    }
    SeamRoots ext;
    const std::uint32_t total = settle_seams(bands, forest, w, hung, ext);

    auto number = [&](int bi) {
        const Band& b = bands[std::size_t(bi)];
        std::uint32_t n = b.first_label;
        for (std::uint64_t i = b.begin, end = std::uint64_t(b.y1) * w; i < end; ++i) {
            const std::uint32_t v = out[i];
            if (v == 0) continue;
            if (v == std::uint32_t(i + 1)) {
                out[i] = ++n;
            } else if (v - 1 >= b.begin) {
                out[i] = out[v - 1];
            } else {
                out[i] = ext.number_of(v);
            }
        }
    };
    if (nb == 1)
        number(0);
    else
        run_parallel(nb, number);
    return total;
}

}  // namespace

std::uint32_t label_tolerance(const detail::Request& r, std::uint32_t* out) {
    return detail::dispatch_format(r.format, [&]<PixelFormat F>() -> std::uint32_t {
        if constexpr (F == PixelFormat::Binary8) {
            return 0;  // not reached: label() keeps Binary8 on the exact path (its foreground is one value)
        } else {
            const ChannelJoins<F> j{r};
            return r.connectivity == 4 ? label_bands<ChannelJoins<F>, 4>(r, j, out) : label_bands<ChannelJoins<F>, 8>(r, j, out);
        }
    });
}

std::uint32_t label_tolerance_typed(const detail::Request& r, std::uint32_t* out) {
    return dispatch_typed(
        r.format,
        [&]<PixelFormat F, typename T>() {
            const ValueJoins<F, T> j{r.tolerance_value, r.has_background, r.background_bits};
            return r.connectivity == 4 ? label_bands<ValueJoins<F, T>, 4>(r, j, out) : label_bands<ValueJoins<F, T>, 8>(r, j, out);
        },
        [&] { return label_tolerance(r, out); });
}

}  // namespace cclabel::cpu
