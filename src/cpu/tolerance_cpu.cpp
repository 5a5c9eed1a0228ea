// Tolerance labelling on the CPU: two neighbours join when every channel differs by at most the
// tolerance, and a region is the transitive closure of such joins (cc3d's `delta`, but closed over
// both connectivities; see docs/tolerance_and_adjacency.md). Closeness is not an equivalence of
// values, so the exact labeller's tricks (runs of one key, 5-bit codes of equal neighbours) do not
// apply; this is the plain two-pass union-find over pixels, in the same shape as label_cpu.cpp:
//
//   1. Scan (a band a thread). Each foreground pixel takes the label of its first close earlier
//      neighbour (W, then NW, N, NE in the row above within the band) and unites it with any other
//      close one; with none it takes a fresh label, its own index + 1. The label image is the
//      union-find forest (out[l - 1] is label l's parent), unions hang the larger root under the
//      smaller (min-linking), so every set is rooted at its first pixel in raster order.
//   2. Seams (one thread). The first row of each band is united with the last row of the band above,
//      with read-only finds so that only roots are written; each root hung under another is then
//      pointed straight at its final root, and those roots are numbered (ext_root / ext_number).
//   3. Number (a band a thread). In raster order a root gets the next number and any other pixel
//      the number already written at its parent, which comes earlier (in the band, or looked up
//      in ext_number when the parent is a root of an earlier band).
// Every choice depends on the picture only, so the labels are the same for any thread count.
#include "cpu/tolerance_cpu.hpp"

#include <algorithm>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "cpu/thread_pool.hpp"

namespace cclabel::cpu {
namespace {

/// Whether two pixels of format F differ by at most @p tol in every channel.
template <PixelFormat F>
bool close(const std::uint8_t* a, const std::uint8_t* b, std::uint32_t tol) {
    if constexpr (F == PixelFormat::RGB8 || F == PixelFormat::RGBA8 || F == PixelFormat::Gray8) {
        for (int c = 0; c < detail::PixelTraits<F>::kBytes; ++c)
            if (std::uint32_t(a[c] > b[c] ? a[c] - b[c] : b[c] - a[c]) > tol) return false;
        return true;
    } else {
        // Gray16 and U32: one channel, the key is the value.
        const std::uint32_t u = detail::PixelTraits<F>::key(a), v = detail::PixelTraits<F>::key(b);
        return (u > v ? u - v : v - u) <= tol;
    }
}

struct Band {
    std::int64_t y0 = 0, y1 = 0;
    std::uint64_t begin = 0, end = 0;  ///< pixel indices
    std::uint32_t first_label = 0;     ///< numbers of this band's roots start after this
    std::vector<std::uint32_t> row_roots;  ///< roots per row after the seams (fresh labels less hung roots)
};

/// The union-find over labels stored in the label image: the parent of label l is out[l - 1].
struct Forest {
    std::uint32_t* out;

    std::uint32_t find(std::uint32_t l) const {
        while (out[l - 1] != l) {
            const std::uint32_t g = out[out[l - 1] - 1];
            out[l - 1] = g;
            l = g;
        }
        return l;
    }
    std::uint32_t find_readonly(std::uint32_t l) const {
        while (out[l - 1] != l) l = out[l - 1];
        return l;
    }
    /// Hangs the larger of two distinct roots under the smaller; returns the hung one.
    std::uint32_t link(std::uint32_t a, std::uint32_t b) const {
        if (a > b) std::swap(a, b);
        out[b - 1] = a;
        return b;
    }
};

template <PixelFormat F, int Conn>
void scan_band(const detail::Request& r, Band& b, std::uint32_t* out) {
    constexpr int bpp = detail::PixelTraits<F>::kBytes;
    const auto w = std::uint64_t(r.width);
    const std::uint32_t tol = r.tolerance;
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
            if (r.has_background && detail::PixelTraits<F>::key(p) == r.background_key) {
                o[x] = 0;
                continue;
            }
            std::uint32_t label = 0;
            auto consider = [&](std::uint32_t l, const std::uint8_t* q) {
                if (l == 0 || !close<F>(p, q, tol)) return;  // background labels are 0
                if (label == 0) {
                    label = l;
                } else if (l != label) {
                    const std::uint32_t a = forest.find(label), c = forest.find(l);
                    if (a != c) {
                        const std::uint32_t hung = forest.link(a, c);
                        --b.row_roots[std::size_t((hung - 1) / w - std::uint64_t(b.y0))];
                    }
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

/// Unites the first row of @p below with the row above it; appends every root hung to @p hung.
template <PixelFormat F, int Conn>
void merge_seam(const detail::Request& r, const Band& below, std::uint32_t* out, std::vector<std::uint32_t>& hung) {
    constexpr int bpp = detail::PixelTraits<F>::kBytes;
    const auto w = std::uint64_t(r.width);
    const Forest forest{out};
    const std::uint8_t* row = r.row(below.y0);
    const std::uint8_t* up = r.row(below.y0 - 1);
    const std::uint64_t base = below.begin;
    for (std::uint64_t x = 0; x < w; ++x) {
        if (out[base + x] == 0) continue;
        const std::uint8_t* p = row + x * bpp;
        const std::uint64_t lo = Conn == 8 && x > 0 ? x - 1 : x;
        const std::uint64_t hi = Conn == 8 && x + 1 < w ? x + 1 : x;
        for (std::uint64_t ux = lo; ux <= hi; ++ux) {
            const std::uint64_t j = base - w + ux;
            if (out[j] == 0 || !close<F>(p, up + ux * bpp, r.tolerance)) continue;
            const std::uint32_t a = forest.find_readonly(std::uint32_t(base + x + 1));
            const std::uint32_t c = forest.find_readonly(std::uint32_t(j + 1));
            if (a != c) hung.push_back(forest.link(a, c));
        }
    }
}

template <PixelFormat F, int Conn>
std::uint32_t label_bands(const detail::Request& r, std::uint32_t* out) {
    const int nb = int(std::min<std::int64_t>(r.threads, r.height));
    const auto w = std::uint64_t(r.width);
    std::vector<Band> bands(static_cast<std::size_t>(nb));
    for (int i = 0; i < nb; ++i) {
        Band& b = bands[std::size_t(i)];
        b.y0 = r.height * i / nb;
        b.y1 = r.height * (i + 1) / nb;
        b.begin = std::uint64_t(b.y0) * w;
        b.end = std::uint64_t(b.y1) * w;
    }
    if (nb == 1)
        scan_band<F, Conn>(r, bands[0], out);
    else
        run_parallel(nb, [&](int i) { scan_band<F, Conn>(r, bands[std::size_t(i)], out); });

    auto band_of = [&](std::uint32_t label) -> Band& {
        auto it = std::upper_bound(bands.begin(), bands.end(), std::uint64_t(label),
                                   [](std::uint64_t v, const Band& b) { return v <= b.begin; });
        return *(it - 1);
    };
    std::vector<std::uint32_t> hung, ext_root, ext_number;
    const Forest forest{out};
    for (int i = 1; i < nb; ++i) merge_seam<F, Conn>(r, bands[std::size_t(i)], out, hung);
    for (std::uint32_t c : hung) {
        Band& b = band_of(c);
        --b.row_roots[std::size_t((c - 1) / w - std::uint64_t(b.y0))];
    }
    // Pointing every hung root at its final root leaves the bands' numbering only one kind of
    // parent outside the band: a root, numbered here.
    for (std::uint32_t c : hung) {
        const std::uint32_t root = forest.find_readonly(c);
        out[c - 1] = root;
        ext_root.push_back(root);
    }
    std::sort(ext_root.begin(), ext_root.end());
    ext_root.erase(std::unique(ext_root.begin(), ext_root.end()), ext_root.end());
    std::uint32_t total = 0;
    for (Band& b : bands) {
        b.first_label = total;
        for (std::uint32_t c : b.row_roots) total += c;
    }
    ext_number.reserve(ext_root.size());
    for (std::uint32_t root : ext_root) {
        const Band& b = band_of(root);
        const std::uint64_t row = (root - 1) / w;
        std::uint32_t n = b.first_label;
        for (std::uint64_t y = std::uint64_t(b.y0); y < row; ++y) n += b.row_roots[std::size_t(y - std::uint64_t(b.y0))];
        for (std::uint64_t i = row * w; i < root; ++i) n += out[i] == std::uint32_t(i + 1);  // up to the root itself
        ext_number.push_back(n);
    }

    auto number = [&](int bi) {
        const Band& b = bands[std::size_t(bi)];
        std::uint32_t n = b.first_label;
        for (std::uint64_t i = b.begin; i < b.end; ++i) {
            const std::uint32_t v = out[i];
            if (v == 0) continue;
            if (v == std::uint32_t(i + 1)) {
                out[i] = ++n;
            } else if (v - 1 >= b.begin) {
                out[i] = out[v - 1];
            } else {
                out[i] = ext_number[std::size_t(std::lower_bound(ext_root.begin(), ext_root.end(), v) - ext_root.begin())];
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
            return r.connectivity == 4 ? label_bands<F, 4>(r, out) : label_bands<F, 8>(r, out);
        }
    });
}

}  // namespace cclabel::cpu
