// The CPU labeller: a run-based two-pass labeller over horizontal bands, one band per thread.
//
//   1. Each band walks its rows. A row is cut into runs of one key; a run takes the provisional
//      label of the first touching same-keyed pixel in the row above (4- or 8-touching), unites
//      with every other distinct label it touches there, or opens a new label if it touches none.
//      Labels are written straight into the output, so the row above is read back from there, and
//      the only other memory is the union-find over labels (few compared with pixels).
//   2. Each band renames its labels into one global space (band b's follow band b-1's, so raster
//      order is kept); one thread then merges the seams between bands (last row of band b-1, first
//      row of band b). Every band keeps its own table: nothing is copied into a global one.
//   3. Each band resolves the roots of its labels and counts them; a prefix over the counts gives
//      each band its first final label, so regions are numbered 1..N in raster order of their
//      first pixel (a region's smallest label is its first run's, and min-linking keeps it root).
//   4. Each band rewrites its pixels through a table from provisional to final label.
// Bands never share a write and every choice depends on the picture only, so the labels are the
// same for every thread count (the stripe scheme of OpenCV's parallel SAUF, with runs).
#include "cpu/label_cpu.hpp"

#include <algorithm>
#include <barrier>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "cclabel/error.hpp"

#include "cpu/row_keys.hpp"
#include "cpu/union_find.hpp"

namespace cclabel::cpu {
namespace {

// Arrays of labels are sized for the worst case (every pixel its own label) but left uninitialised,
// so the pages the labeller never reaches are never touched.
std::unique_ptr<std::uint32_t[]> label_table(std::uint64_t n) {
    try {
        return std::unique_ptr<std::uint32_t[]>(new std::uint32_t[n]);
    } catch (const std::bad_alloc&) {
        throw Error("out of memory: the CPU labeller could not allocate " + std::to_string(n * 4) +
                    " bytes for its label table");
    }
}

struct Band {
    std::int64_t y0 = 0, y1 = 0;
    /// parent[l] for the band's provisional labels l = 1..n: local labels during the scan, global
    /// indices (see base) after it; [0] stands for the background.
    std::unique_ptr<std::uint32_t[]> parent;
    std::unique_ptr<std::uint32_t[]> root;  ///< per label: its root's global index, or for roots the final label
    std::uint32_t n = 0;
    std::uint32_t base = 0;  ///< global index of local label 1
    std::uint32_t roots = 0;
    std::uint32_t first_label = 0;  ///< final label of the band's first root, minus one
};

// The band tables seen as one array over global indices; used only where bands meet.
class Forest {
public:
    explicit Forest(std::vector<Band>& bands) : bands_(bands) {}
    std::uint32_t& operator[](std::uint32_t g) const {
        Band& b = band_of(g);
        return b.parent[g - b.base + 1];
    }
    Band& band_of(std::uint32_t g) const {
        auto it = std::upper_bound(bands_.begin(), bands_.end(), g,
                                   [](std::uint32_t v, const Band& b) { return v < b.base; });
        return *(it - 1);
    }

private:
    std::vector<Band>& bands_;
};

std::uint32_t find_global(const Forest& f, std::uint32_t i) {
    while (f[i] != i) {
        const std::uint32_t g = f[f[i]];
        f[i] = g;
        i = g;
    }
    return i;
}

void unite_global(const Forest& f, std::uint32_t a, std::uint32_t b) {
    a = find_global(f, a);
    b = find_global(f, b);
    if (a < b) f[b] = a;
    else if (b < a) f[a] = b;
}

// Root of @p i without writing: other bands read the same tables at the same time.
std::uint32_t find_readonly(const Forest& f, std::uint32_t i) {
    while (f[i] != i) i = f[i];
    return i;
}

// Provisional label of one pixel from its earlier neighbours' keys and labels. Matches pick the
// label by priority up > left > up-left > up-right (Wu et al.'s scan mask): with the pixel above of
// the same key, every other earlier neighbour is already in its set, so no union is needed; a union
// is needed only for an up-right match that the chosen neighbour does not already reach. Written
// with selects instead of branches: on noisy pictures the matches are unpredictable.
struct Pick {
    std::uint32_t label;
    std::uint32_t join;   ///< label to unite with `label`, or 0
    std::uint32_t fresh;  ///< 1 when the pixel opens a new label
};

// c ? a : b on 0/1 flags, as arithmetic so that the compiler emits no branch.
inline std::uint32_t select(std::uint32_t c, std::uint32_t a, std::uint32_t b) {
    const std::uint32_t m = 0u - c;
    return (a & m) | (b & ~m);
}

template <int Conn>
inline Pick pick(std::uint32_t mL, std::uint32_t mUL, std::uint32_t mU, std::uint32_t mUR, std::uint32_t lL,
                 std::uint32_t lUL, std::uint32_t lU, std::uint32_t lUR, std::uint32_t fresh_label) {
    Pick p;
    if constexpr (Conn == 8) {
        std::uint32_t l = select(mUR, lUR, fresh_label);
        l = select(mUL, lUL, l);
        l = select(mL, lL, l);
        p.label = select(mU, lU, l);
        p.join = select(mUR & (mU ^ 1u) & (mL | mUL), lUR, 0);
        p.fresh = (mL | mUL | mU | mUR) ^ 1u;
    } else {
        (void)mUL, (void)mUR, (void)lUL, (void)lUR;
        p.label = select(mU, lU, select(mL, lL, fresh_label));
        p.join = select(mU & mL, lL, 0);
        p.fresh = (mL | mU) ^ 1u;
    }
    return p;
}

template <PixelFormat F, int Conn>
void scan_band(const detail::Request& r, Band& b, std::uint32_t* out) {
    const auto w = std::uint32_t(r.width);
    // One spare key at the end so that the up-right read at x = w - 1 stays in the buffer.
    std::vector<std::uint32_t> keys_prev(w + 1), keys_cur(w + 1);
    std::uint32_t* par = b.parent.get();
    par[0] = 0;
    const bool has_bg = r.has_background;
    const std::uint32_t bg = r.background_key;
    std::uint32_t next = 1;  // the next fresh label; parent[next] is written before it is handed out
    for (std::int64_t y = b.y0; y < b.y1; ++y) {
        load_row_keys<F>(r.row(y), w, keys_cur.data());
        const std::uint32_t* kc = keys_cur.data();
        const std::uint32_t* kp = keys_prev.data();
        std::uint32_t* o = out + std::size_t(y) * w;
        const std::uint32_t* op = o - w;  // the row above, only read when y > y0

        auto emit = [&](std::uint32_t x, const Pick& p, std::uint32_t is_bg) {
            par[next] = next;
            const std::uint32_t lab = select(is_bg, 0u, p.label);
            next += p.fresh & (is_bg ^ 1u);
            // Background pixels match only background neighbours, whose label is 0: join is 0 then.
            if ((p.join != 0) & (p.join != lab)) [[unlikely]] unite(par, lab, p.join);
            o[x] = lab;
            return lab;
        };
        std::uint32_t lL = 0;
        if (y == b.y0) {
            for (std::uint32_t x = 0; x < w; ++x) {
                const std::uint32_t k = kc[x];
                const std::uint32_t mL = std::uint32_t(x > 0) & std::uint32_t(kc[x - 1 + (x == 0)] == k);
                lL = emit(x, pick<Conn>(mL, 0, 0, 0, lL, 0, 0, 0, next), std::uint32_t(has_bg) & std::uint32_t(k == bg));
            }
        } else {
            {
                const std::uint32_t k = kc[0];
                const std::uint32_t mU = kp[0] == k, mUR = w > 1 && kp[1] == k;
                lL = emit(0, pick<Conn>(0, 0, mU, mUR, 0, 0, op[0], w > 1 ? op[1] : 0, next),
                          std::uint32_t(has_bg) & std::uint32_t(k == bg));
            }
            for (std::uint32_t x = 1; x < w; ++x) {
                const std::uint32_t k = kc[x];
                const std::uint32_t mL = kc[x - 1] == k, mUL = kp[x - 1] == k, mU = kp[x] == k;
                const std::uint32_t mUR = std::uint32_t(kp[x + 1] == k) & std::uint32_t(x + 1 < w);
                // op[x + 1] at x = w - 1 is this row's first label: valid memory, and unused (mUR 0).
                lL = emit(x, pick<Conn>(mL, mUL, mU, mUR, lL, op[x - 1], op[x], op[x + 1], next),
                          std::uint32_t(has_bg) & std::uint32_t(k == bg));
            }
        }
        std::swap(keys_prev, keys_cur);
    }
    b.n = next - 1;
}

// Unites the labels of touching same-keyed pixels across the seam above band @p below. The output
// still holds band-local labels; the tables already hold global indices.
template <PixelFormat F, int Conn>
void merge_seam(const detail::Request& r, const Forest& f, const Band& above, const Band& below,
                const std::uint32_t* out) {
    const auto w = std::uint32_t(r.width);
    std::vector<std::uint32_t> ka(w), kb(w);
    load_row_keys<F>(r.row(below.y0 - 1), w, ka.data());
    load_row_keys<F>(r.row(below.y0), w, kb.data());
    const std::uint32_t* la = out + std::size_t(below.y0 - 1) * w;
    const std::uint32_t* lb = out + std::size_t(below.y0) * w;
    std::uint32_t last_a = 0, last_b = 0;
    for (std::uint32_t x = 0; x < w; ++x) {
        if (lb[x] == 0) continue;
        const std::uint32_t lo = Conn == 8 && x > 0 ? x - 1 : x;
        const std::uint32_t hi = Conn == 8 && x + 1 < w ? x + 1 : x;
        for (std::uint32_t q = lo; q <= hi; ++q) {
            if (la[q] == 0 || ka[q] != kb[x]) continue;
            if (la[q] == last_a && lb[x] == last_b) continue;
            last_a = la[q];
            last_b = lb[x];
            unite_global(f, above.base + la[q] - 1, below.base + lb[x] - 1);
        }
    }
}

template <PixelFormat F, int Conn>
std::uint32_t label_impl(const detail::Request& r, std::uint32_t* out) {
    const int nb = int(std::min<std::int64_t>(r.threads, r.height));
    std::vector<Band> bands(static_cast<std::size_t>(nb));
    for (int b = 0; b < nb; ++b) {
        bands[std::size_t(b)].y0 = r.height * b / nb;
        bands[std::size_t(b)].y1 = r.height * (b + 1) / nb;
    }
    // Every allocation happens here, before any thread starts, so that running out of memory is an
    // Error for the caller and never an exception inside a worker.
    for (Band& b : bands) {
        const std::uint64_t most = std::uint64_t(b.y1 - b.y0) * std::uint64_t(r.width) + 1;
        b.parent = label_table(most);
        b.root = label_table(most);
    }
    const Forest forest(bands);
    std::uint32_t total = 0;

    auto after_scan = [&]() noexcept {
        std::uint32_t n = 0;  // at most the pixel count, which fits
        for (Band& b : bands) {
            b.base = n;
            n += b.n;
        }
    };
    auto after_rename = [&]() noexcept {
        for (int b = 1; b < nb; ++b)
            merge_seam<F, Conn>(r, forest, bands[std::size_t(b - 1)], bands[std::size_t(b)], out);
    };
    auto after_count = [&]() noexcept {
        std::uint32_t next = 0;
        for (Band& b : bands) {
            b.first_label = next;
            next += b.roots;
        }
        total = next;
    };
    std::barrier sync_scan(nb, after_scan);
    std::barrier sync_rename(nb, after_rename);
    std::barrier sync_count(nb, after_count);
    std::barrier sync_number(nb);

    auto work = [&](int bi) {
        Band& b = bands[std::size_t(bi)];
        scan_band<F, Conn>(r, b, out);
        sync_scan.arrive_and_wait();

        std::uint32_t* par = b.parent.get();
        const std::uint32_t n = b.n, base = b.base;
        for (std::uint32_t l = 1; l <= n; ++l) par[l] += base - 1;
        sync_rename.arrive_and_wait();

        // Parents point to smaller indices, so a parent inside the band is resolved before its child;
        // one in an earlier band is only read, never written, in this phase.
        std::uint32_t* root = b.root.get();
        std::uint32_t roots = 0;
        for (std::uint32_t l = 1; l <= n; ++l) {
            const std::uint32_t g = base + l - 1, p = par[l];
            if (p == g) {
                root[l] = g;
                ++roots;
            } else {
                root[l] = p >= base ? root[p - base + 1] : find_readonly(forest, p);
            }
        }
        b.roots = roots;
        sync_count.arrive_and_wait();

        std::uint32_t next = b.first_label;
        for (std::uint32_t l = 1; l <= n; ++l)
            if (par[l] == base + l - 1) root[l] = ++next;
        sync_number.arrive_and_wait();

        // Roots now hold their final label, other labels the global index of their root. The parent
        // table becomes the map from local to final label (index 0, the background, maps to 0).
        for (std::uint32_t l = 1; l <= n; ++l) {
            if (par[l] == base + l - 1) {
                par[l] = root[l];
            } else {
                Band& rb = forest.band_of(root[l]);
                par[l] = rb.root[root[l] - rb.base + 1];
            }
        }
        const std::uint32_t* table = par;
        std::uint32_t* o = out + std::size_t(b.y0) * std::size_t(r.width);
        const std::size_t count = std::size_t(b.y1 - b.y0) * std::size_t(r.width);
        for (std::size_t i = 0; i < count; ++i) o[i] = table[o[i]];
    };

    if (nb == 1) {
        work(0);
    } else {
        std::vector<std::jthread> pool;
        pool.reserve(std::size_t(nb - 1));
        for (int b = 1; b < nb; ++b) pool.emplace_back(work, b);
        work(0);
    }
    return total;
}

}  // namespace

std::uint32_t label(const detail::Request& r, std::uint32_t* out) {
    return detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        return r.connectivity == 4 ? label_impl<F, 4>(r, out) : label_impl<F, 8>(r, out);
    });
}

}  // namespace cclabel::cpu
