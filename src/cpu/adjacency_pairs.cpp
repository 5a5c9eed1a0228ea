// Step 3 of the CPU's region adjacency graph (src/cpu/adjacency_cpu.cpp has steps 1 and 2, and
// src/cpu/adjacency3d_cpu.cpp their volume twins): the bands' lists are split into parts by key
// ranges (splitters from a sample), each part radix-sorted on its own thread and summed by pair
// straight into the output, at offsets from the parts' counts of distinct pairs. Before, each band
// kept a hash table, sorted, and the tables were merged two by two, the last merge, of every
// edge, on one thread. Here too: a band's list that outgrows its pixels is sorted and summed.
#include "cpu/adjacency_pairs.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/parallel_for.hpp"

namespace cclabel::detail {
namespace {

/// Sorts @p n items at @p a by key(item), an integer below 2^64: a least-significant-digit radix
/// sort of the keys less the smallest, through @p tmp (n items). Returns a or tmp, whichever holds
/// the result.
template <typename T, typename Key>
T* radix_sort(T* a, T* tmp, std::size_t n, Key key) {
    if (n < 256) {
        std::sort(a, a + n, [&](const T& x, const T& y) { return key(x) < key(y); });
        return a;
    }
    std::uint64_t lo = kNone, hi = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t k = key(a[i]);
        lo = std::min(lo, k);
        hi = std::max(hi, k);
    }
    const int bits = int(std::bit_width(hi - lo));
    if (bits == 0) return a;
    // Digits of at most 11 bits: 2048 buckets, whose counters and write positions stay in cache
    // (wider digits, fewer passes, were slower on 0.7 and 2.2 million pairs).
    const int passes = (bits + 10) / 11, digit = (bits + passes - 1) / passes;
    const std::uint64_t dmask = (std::uint64_t(1) << digit) - 1;
    std::vector<std::size_t> hist(std::size_t(passes) << digit, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = key(a[i]) - lo;
        for (int d = 0; d < passes; ++d) ++hist[std::size_t(d) << digit | ((v >> (d * digit)) & dmask)];
    }
    T *src = a, *dst = tmp;
    for (int d = 0; d < passes; ++d) {
        std::size_t* h = hist.data() + (std::size_t(d) << digit);
        if (std::find(h, h + dmask + 1, n) != h + dmask + 1) continue;  // every key has this digit
        std::size_t sum = 0;
        for (std::size_t k = 0; k <= dmask; ++k) sum += std::exchange(h[k], sum);
        for (std::size_t i = 0; i < n; ++i) dst[h[((key(src[i]) - lo) >> (d * digit)) & dmask]++] = src[i];
        std::swap(src, dst);
    }
    return src;
}

/// A pair's key with its labels packed into 2 × @p label_bits bits, in the same order.
inline std::uint64_t packed(std::uint64_t key, int label_bits) {
    return (key >> 32) << label_bits | (key & 0xFFFFFFFFu);
}

/// Sums the counts of equal keys in the sorted @p s (n entries) into @p out, which may be s;
/// returns the entries written.
std::size_t sum_by_key(const Entry* s, std::size_t n, Entry* out) {
    std::size_t d = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (d > 0 && out[d - 1].key == s[i].key) out[d - 1].count += s[i].count;
        else out[d++] = s[i];
    }
    return d;
}
}  // namespace

void BandPairs::make_room() {
    if (n_ >= limit_) {
        std::unique_ptr<Entry[]> tmp(new Entry[n_]);
        const int bits = int(std::bit_width(max_label_));
        const Entry* s =
            radix_sort(list_.get(), tmp.get(), n_, [bits](const Entry& e) { return packed(e.key, bits); });
        n_ = sum_by_key(s, n_, list_.get());
        // A sum may pass every count appended so far (the sort's one-word items rely on it).
        for (std::size_t i = 0; i < n_; ++i) max_count_ = std::max(max_count_, list_[i].count);
        limit_ = std::max(limit_, 2 * n_);
        if (n_ < cap_) return;
    }
    // Not a vector: its growth would fault the new pages in 4 KiB at a time, before any advice.
    // The first block has room for a pair every 16 pixels (the 200 dpi sheet has one every 70):
    // pages are only touched as they are written, so a generous block costs nothing, and a
    // copy into a larger one is left to noise.
    const std::size_t cap = cap_ ? 2 * cap_ : first_cap_;
    std::unique_ptr<Entry[]> grown(new Entry[cap]);
    advise_huge_pages(grown.get(), cap * sizeof(Entry));
    std::copy(list_.get(), list_.get() + n_, grown.get());
    list_ = std::move(grown);
    cap_ = cap;
}

namespace {

constexpr std::size_t kMaxParts = 1024;

/// Where the entries of each part go: parts one after the other, within a part band after band.
struct Split {
    std::size_t parts = 1;
    std::vector<std::uint64_t> splitters;  ///< part p: keys k with splitters[p - 1] <= k < splitters[p]
    std::vector<std::size_t> at;           ///< at[b * parts + p]: band b's first entry of part p
    std::vector<std::size_t> begin;        ///< part p: begin[p] .. begin[p + 1]

    /// upper_bound without branches: a key's part is a coin toss among neighbouring parts.
    std::size_t part_of(std::uint64_t key) const noexcept {
        const std::uint64_t* base = splitters.data();
        std::size_t n = splitters.size();
        if (n == 0) return 0;
        while (n > 1) {
            const std::size_t half = n / 2;
            base = base[half - 1] <= key ? base + half : base;
            n -= half;
        }
        return std::size_t(base - splitters.data()) + (*base <= key);
    }
};

Split split(std::vector<BandPairs>& bands, std::size_t total, int threads) {
    Split sp;
    // Several parts a thread, handed out one at a time, even out the parts' sizes.
    sp.parts = threads <= 1 ? 1 : std::min<std::size_t>({std::size_t(4) * std::size_t(threads), kMaxParts, total / 1024 + 1});
    if (sp.parts > 1) {
        std::vector<std::uint64_t> sample;
        for (BandPairs& b : bands) {
            const std::size_t want = b.size() * 64 * sp.parts / total + 1;
            const std::size_t step = std::max<std::size_t>(1, b.size() / want);
            for (std::size_t i = 0; i < b.size(); i += step) sample.push_back(b.data()[i].key);
        }
        std::sort(sample.begin(), sample.end());
        for (std::size_t p = 1; p < sp.parts; ++p) sp.splitters.push_back(sample[p * sample.size() / sp.parts]);
    }
    const std::size_t nb = bands.size(), parts = sp.parts;
    sp.at.assign(nb * parts, 0);
    sp.begin.assign(parts + 1, 0);
    if (parts == 1) {
        for (std::size_t b = 0; b < nb; ++b) sp.at[b] = bands[b].size();
    } else {
        parallel_for(nb, threads, [&](std::uint64_t b) {
            const Entry* e = bands[b].data();
            for (std::size_t i = 0, n = bands[b].size(); i < n; ++i) ++sp.at[b * parts + sp.part_of(e[i].key)];
        });
    }
    std::size_t sum = 0;
    for (std::size_t p = 0; p < parts; ++p) {
        sp.begin[p] = sum;
        for (std::size_t b = 0; b < nb; ++b) sum += std::exchange(sp.at[b * parts + p], sum);
    }
    sp.begin[parts] = sum;
    return sp;
}

/// Step 3 with the bands' entries as items of type T: pack(entry) makes one, key(item) is its
/// pair packed (the order of pairs), edge(item) the AdjacencyEdge it stands for.
template <typename T, typename Pack, typename Key, typename ToEdge>
std::vector<AdjacencyEdge> gather_as(std::vector<BandPairs>& bands, std::size_t total, int threads, Pack pack, Key key,
                                     ToEdge edge) {
    const Split sp = split(bands, total, threads);
    const std::size_t nb = bands.size(), parts = sp.parts;
    // Not zeroed: every item is written before it is read.
    std::unique_ptr<T[]> items, tmp(new T[total]);
    advise_huge_pages(tmp.get(), total * sizeof(T));
    T* it = nullptr;
    if (nb == 1 && parts == 1) {
        Entry* e = bands[0].data();
        if constexpr (std::is_same_v<T, Entry>) {
            it = e;
        } else {
            // In place, each word over a word of an entry already read.
            it = reinterpret_cast<T*>(e);
            for (std::size_t i = 0; i < total; ++i) {
                const T t = pack(e[i]);
                std::memcpy(static_cast<void*>(it + i), &t, sizeof(T));
            }
        }
    } else {
        items.reset(new T[total]);
        it = items.get();
        advise_huge_pages(it, total * sizeof(T));
        parallel_for(nb, threads, [&](std::uint64_t b) {
            std::size_t at[kMaxParts];
            std::copy(sp.at.begin() + std::ptrdiff_t(b * parts), sp.at.begin() + std::ptrdiff_t((b + 1) * parts), at);
            const Entry* e = bands[b].data();
            for (std::size_t i = 0, n = bands[b].size(); i < n; ++i) it[at[parts == 1 ? 0 : sp.part_of(e[i].key)]++] = pack(e[i]);
            bands[b].release();
        });
    }
    std::vector<const T*> sorted(parts);
    std::vector<std::size_t> distinct(parts + 1, 0);
    parallel_for(parts, threads, [&](std::uint64_t p) {
        const std::size_t n = sp.begin[p + 1] - sp.begin[p];
        const T* s = radix_sort(it + sp.begin[p], tmp.get() + sp.begin[p], n, key);
        std::size_t d = 0;
        for (std::size_t i = 0; i < n; ++i) d += i == 0 || key(s[i]) != key(s[i - 1]);
        sorted[p] = s;
        distinct[p] = d;
    });
    for (std::size_t p = 0, d = 0; p <= parts; ++p) d += std::exchange(distinct[p], d);
    // reserve, then the advice and the pages faulted in on every thread, then resize: the zeroing
    // that resize cannot skip no longer takes each page's fault on one thread (core/huge_pages.hpp).
    std::vector<AdjacencyEdge> edges;
    edges.reserve(distinct[parts]);
    advise_huge_pages(edges.data(), edges.capacity() * sizeof(AdjacencyEdge));
    populate_for_writing(edges.data(), edges.capacity() * sizeof(AdjacencyEdge), threads);
    edges.resize(distinct[parts]);
    parallel_for(parts, threads, [&](std::uint64_t p) {
        const T* s = sorted[p];
        AdjacencyEdge* out = edges.data() + distinct[p];
        for (std::size_t i = 0, n = sp.begin[p + 1] - sp.begin[p]; i < n; ++i) {
            const AdjacencyEdge e = edge(s[i]);
            if (i > 0 && key(s[i]) == key(s[i - 1])) out[-1].contacts += e.contacts;
            else *out++ = e;
        }
    });
    return edges;
}

/// Step 3: the bands' lists as sorted edges, pairs summed within and across bands.
std::vector<AdjacencyEdge> gather(std::vector<BandPairs>& bands, int threads) {
    std::size_t total = 0;
    std::uint32_t max_label = 0;
    std::uint64_t max_count = 0;
    for (const BandPairs& b : bands) {
        total += b.size();
        max_label = std::max(max_label, b.max_label());
        max_count = std::max(max_count, b.max_count());
    }
    if (total == 0) return {};
    const int label_bits = int(std::bit_width(max_label)), count_bits = 64 - 2 * label_bits;
    // Where the pair leaves room for every entry's count, items are one 64-bit word (pair above
    // count) instead of two: half the bytes through each pass of the sort. The 200 dpi sheet's
    // 280,000 labels leave 26 bits; an entry counts one band's contacts of one pair.
    if (count_bits >= 1 && int(std::bit_width(max_count)) <= count_bits) {
        const std::uint64_t count_mask = (std::uint64_t(1) << count_bits) - 1;
        const std::uint64_t label_mask = (std::uint64_t(1) << label_bits) - 1;
        return gather_as<std::uint64_t>(
            bands, total, threads, [=](const Entry& e) { return packed(e.key, label_bits) << count_bits | e.count; },
            [=](std::uint64_t w) { return w >> count_bits; },
            [=](std::uint64_t w) {
                const std::uint64_t k = w >> count_bits;
                return AdjacencyEdge{std::uint32_t(k >> label_bits), std::uint32_t(k & label_mask), w & count_mask};
            });
    }
    return gather_as<Entry>(
        bands, total, threads, [](const Entry& e) { return e; },
        [=](const Entry& e) { return packed(e.key, label_bits); },
        [](const Entry& e) { return AdjacencyEdge{std::uint32_t(e.key >> 32), std::uint32_t(e.key), e.count}; });
}

}  // namespace

std::vector<AdjacencyEdge> gather_pairs(std::vector<BandPairs>& bands, int threads) {
    return gather(bands, std::max(threads, 1));
}

}  // namespace cclabel::detail
