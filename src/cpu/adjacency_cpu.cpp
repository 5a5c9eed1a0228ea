// The region adjacency graph on the CPU: bands of rows side by side, each pass visiting every
// unordered neighbour pair once (E, and with 8-connectivity SE and SW; their mirror images are the
// same pairs). Along a row, a pixel whose pair in a direction equals its left neighbour's only
// lengthens that run (a boundary between two regions gives the same pair at every pixel), so the
// band's table sees a run where the first version, one thread and std::unordered_map, saw every
// boundary pixel: 7.3 s on the 800 dpi sheet, whose labelling takes 84 ms (H100 host,
// 2026-12-07). The tables' entries are then sorted and summed by pair.
#include "core/adjacency_backends.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/parallel_for.hpp"

namespace cclabel::detail {
namespace {

constexpr std::uint64_t kNone = ~std::uint64_t(0);  // no pair: a < b, so no key is all ones

/// Open addressing from a packed pair to its count; doubles at half full.
class PairTable {
public:
    PairTable() { grow(1u << 10); }
    void add(std::uint64_t key, std::uint64_t n) {
        std::size_t i = slot(key);
        while (keys_[i] != kNone && keys_[i] != key) i = (i + 1) & mask_;
        if (keys_[i] == kNone) {
            keys_[i] = key;
            if (++used_ * 2 > keys_.size()) {
                counts_[i] = n;
                grow(keys_.size() * 2);
                return;
            }
        }
        counts_[i] += n;
    }
    template <typename Fn>
    void each(Fn&& fn) const {
        for (std::size_t i = 0; i < keys_.size(); ++i)
            if (keys_[i] != kNone) fn(keys_[i], counts_[i]);
    }
    std::size_t size() const noexcept { return used_; }

private:
    std::size_t slot(std::uint64_t key) const noexcept { return std::size_t((key * 0x9E3779B97F4A7C15ull) >> shift_); }
    void grow(std::size_t cap) {
        std::vector<std::uint64_t> k(cap, kNone), c(cap, 0);
        k.swap(keys_);
        c.swap(counts_);
        mask_ = cap - 1;
        shift_ = 64 - __builtin_ctzll(cap);
        used_ = 0;
        for (std::size_t i = 0; i < k.size(); ++i)
            if (k[i] != kNone) {
                std::size_t j = slot(k[i]);
                while (keys_[j] != kNone) j = (j + 1) & mask_;
                keys_[j] = k[i];
                counts_[j] = c[i];
                ++used_;
            }
    }
    std::vector<std::uint64_t> keys_, counts_;
    std::size_t mask_ = 0;
    int shift_ = 64;
    std::size_t used_ = 0;
};

inline std::uint64_t pair_of(std::uint32_t p, std::uint32_t q, bool include_background) {
    if (p == q || (!include_background && (p == 0 || q == 0))) return kNone;
    return p < q ? (std::uint64_t(p) << 32 | q) : (std::uint64_t(q) << 32 | p);
}

/// The pairs that row @p y owns in direction dx (0: right; otherwise the row below at x + dx - 1
/// for dx = 1, 2, 0 meaning below, below-right, below-left), runs merged, into @p t.
void row_pairs(const std::uint32_t* row, const std::uint32_t* other, std::int64_t x0, std::int64_t x1, int shift,
               bool bg, PairTable& t) {
    std::uint64_t cur = kNone, n = 0;
    for (std::int64_t x = x0; x < x1; ++x) {
        if (n == 0) {  // no open run: skip stretches of equal labels eight at a time (vector compares)
            while (x + 8 <= x1) {
                std::uint32_t d = 0;
                for (int k = 0; k < 8; ++k) d |= row[x + k] ^ other[x + k + shift];
                if (d != 0) break;
                x += 8;
            }
            if (x >= x1) break;
        }
        const std::uint32_t p = row[x], q = other[x + shift];
        if (p == q) {  // inside a region: most pixels
            if (n) t.add(cur, n);
            cur = kNone;
            n = 0;
            continue;
        }
        const std::uint64_t k = pair_of(p, q, bg);
        if (k == kNone) {  // background that is not counted
            if (n) t.add(cur, n);
            cur = kNone;
            n = 0;
            continue;
        }
        if (k == cur) {
            ++n;
            continue;
        }
        if (n) t.add(cur, n);
        cur = k;
        n = 1;
    }
    if (n) t.add(cur, n);
}

}  // namespace

std::vector<AdjacencyEdge> adjacency_cpu(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                         std::int64_t stride, int connectivity, bool include_background, int threads) {
    const int bands = int(std::min<std::int64_t>(std::max(threads, 1), height));
    std::vector<PairTable> tables(std::size_t(std::max(bands, 1)));
    parallel_for(std::uint64_t(bands), bands, [&](std::uint64_t b) {
        const std::int64_t y0 = height * std::int64_t(b) / bands, y1 = height * std::int64_t(b + 1) / bands;
        PairTable& t = tables[b];
        for (std::int64_t y = y0; y < y1; ++y) {
            const std::uint32_t* row = labels + y * stride;
            row_pairs(row, row, 0, width - 1, 1, include_background, t);  // right
            if (y + 1 >= height) continue;
            const std::uint32_t* below = row + stride;
            row_pairs(row, below, 0, width, 0, include_background, t);  // below
            if (connectivity == 8) {
                row_pairs(row, below, 0, width - 1, 1, include_background, t);  // below-right
                row_pairs(row, below, 1, width, -1, include_background, t);     // below-left
            }
        }
    });
    // Each band's pairs sorted, then merged two by two, side by side, summing a pair whose boundary
    // crosses bands (one thread sorting a sheet's millions of edges took longer than the pass).
    using Item = std::pair<std::uint64_t, std::uint64_t>;
    std::vector<std::vector<Item>> parts(tables.size());
    parallel_for(parts.size(), bands, [&](std::uint64_t b) {
        parts[b].reserve(tables[b].size());
        tables[b].each([&](std::uint64_t key, std::uint64_t n) { parts[b].emplace_back(key, n); });
        tables[b] = PairTable();
        std::sort(parts[b].begin(), parts[b].end());
    });
    while (parts.size() > 1) {
        std::vector<std::vector<Item>> merged((parts.size() + 1) / 2);
        parallel_for(merged.size(), bands, [&](std::uint64_t m) {
            if (2 * m + 1 >= parts.size()) {
                merged[m] = std::move(parts[2 * m]);
                return;
            }
            const std::vector<Item>& a = parts[2 * m];
            const std::vector<Item>& b = parts[2 * m + 1];
            std::vector<Item>& out = merged[m];
            out.reserve(a.size() + b.size());
            advise_huge_pages(out.data(), out.capacity() * sizeof(Item));
            std::size_t i = 0, j = 0;
            while (i < a.size() && j < b.size()) {
                if (a[i].first < b[j].first) out.push_back(a[i++]);
                else if (b[j].first < a[i].first) out.push_back(b[j++]);
                else {
                    out.emplace_back(a[i].first, a[i].second + b[j].second);
                    ++i;
                    ++j;
                }
            }
            out.insert(out.end(), a.begin() + std::ptrdiff_t(i), a.end());
            out.insert(out.end(), b.begin() + std::ptrdiff_t(j), b.end());
        });
        parts.swap(merged);
    }
    // Built in one pass (a vector made at its size first is zeroed, then written again), on huge
    // pages as each merge's output (core/huge_pages.hpp).
    std::vector<AdjacencyEdge> items;
    if (!parts.empty()) {
        items.reserve(parts[0].size());
        advise_huge_pages(items.data(), items.capacity() * sizeof(AdjacencyEdge));
        for (const Item& it : parts[0]) items.push_back({std::uint32_t(it.first >> 32), std::uint32_t(it.first), it.second});
    }
    return items;
}

}  // namespace cclabel::detail
