// The CPU labeller: run-based union-find over horizontal bands, one band per thread.
//
//   1. each band finds its rows' runs and unites each run with the touching same-valued runs of the
//      row above (min-linking, path halving), independently of the other bands;
//   2. the band tables are concatenated into one index space (band b's runs follow band b-1's);
//   3. one thread merges the seams: the last row of band b-1 with the first row of band b;
//   4. each band resolves its runs' roots and counts its roots; a prefix over the counts gives
//      every band its first label, so roots are numbered 1..N in raster order;
//   5. each band writes its rows of the label image.
// Bands never share a write, and every choice depends on the image only, so the labels are the
// same for every thread count (the stripe scheme of OpenCV's parallel SAUF, with run nodes).
#include "cpu/label_cpu.hpp"

#include <algorithm>
#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

#include "cpu/runs.hpp"
#include "cpu/union_find.hpp"

namespace cclabel::cpu {
namespace {

struct Band {
    std::int64_t y0 = 0, y1 = 0;
    RunTable runs;
    std::vector<std::uint32_t> local_parent;
    std::uint32_t base = 0;        ///< index of the band's first run in the global table
    std::uint32_t roots = 0;       ///< roots among the band's runs
    std::uint32_t first_label = 0; ///< label of the band's first root, minus one
};

template <PixelFormat F, int Conn>
void scan_band(const detail::Request& r, Band& b) {
    RunTable& t = b.runs;
    const auto rows = std::size_t(b.y1 - b.y0);
    t.row_begin.resize(rows + 1);
    // A guess that avoids most regrowth on drawings; random images just grow.
    const std::size_t guess = std::min<std::size_t>(rows * 64, rows * std::size_t(r.width));
    t.start.reserve(guess);
    t.end.reserve(guess);
    t.key.reserve(guess);
    for (std::size_t row = 0; row < rows; ++row) {
        t.row_begin[row] = t.size();
        find_runs<F>(r.row(b.y0 + std::int64_t(row)), std::uint32_t(r.width), r.has_background, r.background_key, t);
        if (row == 0) {
            b.local_parent.resize(t.size());
            for (std::uint32_t i = 0; i < t.size(); ++i) b.local_parent[i] = i;
            continue;
        }
        const std::uint32_t pb = t.row_begin[row - 1], cb = t.row_begin[row], ce = t.size();
        b.local_parent.resize(ce);
        for (std::uint32_t i = cb; i < ce; ++i) b.local_parent[i] = i;
        merge_rows<Conn>(b.local_parent.data(), &t.start[pb], &t.end[pb], &t.key[pb], cb - pb, pb, &t.start[cb],
                         &t.end[cb], &t.key[cb], ce - cb, cb);
    }
    t.row_begin[rows] = t.size();
}

template <int Conn>
void merge_seam(std::uint32_t* parent, const Band& above, const Band& below) {
    const RunTable& a = above.runs;
    const RunTable& c = below.runs;
    const std::size_t last = a.row_begin.size() - 2;
    const std::uint32_t pb = a.row_begin[last], pe = a.row_begin[last + 1];
    const std::uint32_t cb = c.row_begin[0], ce = c.row_begin[1];
    if (pb == pe || cb == ce) return;
    merge_rows<Conn>(parent, &a.start[pb], &a.end[pb], &a.key[pb], pe - pb, above.base + pb, &c.start[cb], &c.end[cb],
                     &c.key[cb], ce - cb, below.base + cb);
}

// Root of @p i without writing: used while other bands read the same table.
std::uint32_t find_readonly(const std::uint32_t* parent, std::uint32_t i) {
    while (parent[i] != i) i = parent[i];
    return i;
}

template <PixelFormat F, int Conn>
std::uint32_t label_impl(const detail::Request& r, std::uint32_t* out) {
    const int nb = int(std::min<std::int64_t>(r.threads, r.height));
    std::vector<Band> bands(static_cast<std::size_t>(nb));
    for (int b = 0; b < nb; ++b) {
        bands[std::size_t(b)].y0 = r.height * b / nb;
        bands[std::size_t(b)].y1 = r.height * (b + 1) / nb;
    }
    std::vector<std::uint32_t> parent;  // global, all runs of all bands
    std::vector<std::uint32_t> root;    // root of each run; for roots, later their label
    std::uint32_t total_labels = 0;

    auto after_scan = [&]() noexcept {
        std::uint64_t total = 0;
        for (Band& b : bands) {
            b.base = std::uint32_t(total);
            total += b.runs.size();
        }
        parent.resize(total);
        root.resize(total);
    };
    auto after_copy = [&]() noexcept {
        for (int b = 1; b < nb; ++b) merge_seam<Conn>(parent.data(), bands[std::size_t(b - 1)], bands[std::size_t(b)]);
    };
    auto after_count = [&]() noexcept {
        std::uint32_t next = 0;
        for (Band& b : bands) {
            b.first_label = next;
            next += b.roots;
        }
        total_labels = next;
    };
    std::barrier sync_scan(nb, after_scan);
    std::barrier sync_copy(nb, after_copy);
    std::barrier sync_count(nb, after_count);
    std::barrier sync_number(nb);

    auto work = [&](int bi) {
        Band& b = bands[std::size_t(bi)];
        scan_band<F, Conn>(r, b);
        sync_scan.arrive_and_wait();

        const std::uint32_t n = b.runs.size();
        for (std::uint32_t i = 0; i < n; ++i) parent[b.base + i] = b.local_parent[i] + b.base;
        std::vector<std::uint32_t>().swap(b.local_parent);
        sync_copy.arrive_and_wait();

        // Parents point to smaller indices, so a parent inside the band is resolved before its child.
        std::uint32_t roots = 0;
        for (std::uint32_t g = b.base; g < b.base + n; ++g) {
            const std::uint32_t p = parent[g];
            if (p == g) {
                root[g] = g;
                ++roots;
            } else {
                root[g] = p >= b.base ? root[p] : find_readonly(parent.data(), p);
            }
        }
        b.roots = roots;
        sync_count.arrive_and_wait();

        std::uint32_t next = b.first_label;
        for (std::uint32_t g = b.base; g < b.base + n; ++g)
            if (parent[g] == g) root[g] = ++next;
        sync_number.arrive_and_wait();

        // Roots now hold their label, other runs the index of their root.
        const RunTable& t = b.runs;
        const auto w = std::size_t(r.width);
        for (std::int64_t y = b.y0; y < b.y1; ++y) {
            std::uint32_t* o = out + std::size_t(y) * w;
            const std::size_t row = std::size_t(y - b.y0);
            std::uint32_t x = 0;
            for (std::uint32_t i = t.row_begin[row]; i < t.row_begin[row + 1]; ++i) {
                const std::uint32_t g = b.base + i;
                const std::uint32_t lab = parent[g] == g ? root[g] : root[root[g]];
                if (t.start[i] > x) std::memset(o + x, 0, (t.start[i] - x) * sizeof(std::uint32_t));
                std::fill(o + t.start[i], o + t.end[i] + 1, lab);
                x = t.end[i] + 1;
            }
            if (x < w) std::memset(o + x, 0, (w - x) * sizeof(std::uint32_t));
        }
    };

    if (nb == 1) {
        work(0);
    } else {
        std::vector<std::jthread> pool;
        pool.reserve(std::size_t(nb - 1));
        for (int b = 1; b < nb; ++b) pool.emplace_back(work, b);
        work(0);
    }
    return total_labels;
}

}  // namespace

std::uint32_t label(const detail::Request& r, std::uint32_t* out) {
    return detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        return r.connectivity == 4 ? label_impl<F, 4>(r, out) : label_impl<F, 8>(r, out);
    });
}

}  // namespace cclabel::cpu
