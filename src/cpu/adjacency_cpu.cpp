// The region adjacency graph on the CPU, in three steps.
//
// 1. Bands of rows side by side, each reading a row and the row below once for every direction.
//    Position x of row y owns the pairs of its 2x2 window (r: row y, b: row y + 1):
//
//        r[x] r[x+1]      right        (r[x], r[x+1])
//        b[x] b[x+1]      below        (r[x], b[x])
//                         below-right  (r[x], b[x+1])     8-connectivity only
//                         below-left   (r[x+1], b[x])     8-connectivity only
//
//    The last column owns only its below pair, the last row only right pairs, so every unordered
//    neighbour pair has one owner. Sixteen windows are tested at a time for one label throughout,
//    and eight at a time for their counted pairs (AVX2 where the processor has it): most of a
//    drawing is one region or the paper, and without include_background a pair with label 0 is not
//    counted either. Before, four passes a row pair, one a direction, looked at every pixel that
//    differed from its neighbour.
// 2. A counted pair reaches the band's list through two filters: the last pair (a boundary along
//    a row gives one pair at every pixel, in three directions; across a row, in three directions at
//    one pixel) and a small direct-mapped cache (the boundaries that cross a row mostly cross the
//    next). The list is of what the cache evicts (see BandPairs).
// 3. The lists are split into parts by key ranges (splitters from a sample), each part
//    radix-sorted on its own thread and summed by pair straight into the output, at offsets from
//    the parts' counts of distinct pairs. Before, each band kept a hash table, sorted, and the
//    tables were merged two by two, the last merge, of every edge, on one thread.
#include "core/adjacency_backends.hpp"

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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CCLABEL_ADJ_AVX2 1
#endif

namespace cclabel::detail {
namespace {

constexpr std::uint64_t kNone = ~std::uint64_t(0);  // no pair: a < b, so no key is all ones

/// A pair (smaller label << 32 | larger label) and its contacts.
struct Entry {
    std::uint64_t key;
    std::uint64_t count;
};

inline std::uint64_t pair_key(std::uint32_t p, std::uint32_t q) {
    return p < q ? (std::uint64_t(p) << 32 | q) : (std::uint64_t(q) << 32 | p);
}

template <bool Bg>
inline bool counted(std::uint32_t p, std::uint32_t q) {
    return p != q && (Bg || (p != 0 && q != 0));
}

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

/// One band's pairs: the last pair, a direct-mapped cache, and a list of what the cache evicts.
/// On a drawing the cache holds a pair while its boundary lasts, so the list holds each pair about
/// once (1.04 times on the 200 dpi sheet) and a hash table behind the cache (the version before
/// this one) only added a cache miss a pair. Pairs that keep evicting each other could make the
/// list far longer than the graph; so when it outgrows the band's pixels, it is sorted and summed
/// by pair, and allowed to grow to twice its new length.
class BandPairs {
public:
    BandPairs() = default;
    explicit BandPairs(std::uint64_t pixels)
        : cache_(std::size_t(1) << kCacheBits, Entry{kNone, 0}),
          limit_(std::max<std::size_t>(std::size_t(1) << 16, std::size_t(pixels))),
          first_cap_(std::max<std::size_t>(std::size_t(1) << 14, std::size_t(pixels / 16))) {}
    void add(std::uint64_t key) {
        if (key == last_) {
            ++last_n_;
            return;
        }
        if (last_n_) to_cache(last_, last_n_);
        last_ = key;
        last_n_ = 1;
    }
    /// Everything into the list, which is then the band's whole answer.
    void finish() {
        if (last_n_) to_cache(last_, last_n_);
        last_n_ = 0;
        for (const Entry& c : cache_)
            if (c.key != kNone) append(c);
        std::vector<Entry>().swap(cache_);
    }
    Entry* data() noexcept { return list_.get(); }
    std::size_t size() const noexcept { return n_; }
    std::uint32_t max_label() const noexcept { return max_label_; }
    std::uint64_t max_count() const noexcept { return max_count_; }
    void release() noexcept { list_.reset(), n_ = cap_ = 0; }

private:
    // 2^12 entries, 64 KiB: on the 200 dpi sheet 2^10 sent 1.4 pairs an edge to the list, 2^12
    // 1.04 and 2^14 1.01.
    static constexpr int kCacheBits = 12;
    void to_cache(std::uint64_t key, std::uint64_t n) {
        Entry& c = cache_[std::size_t((key * 0x9E3779B97F4A7C15ull) >> (64 - kCacheBits))];
        if (c.key == key) {
            c.count += n;
            return;
        }
        if (c.key != kNone) append(c);
        c = Entry{key, n};
    }
    void append(const Entry& e) {
        if (n_ == cap_) make_room();
        list_[n_++] = e;
        max_label_ = std::max(max_label_, std::uint32_t(e.key));
        max_count_ = std::max(max_count_, e.count);
    }
    void make_room() {
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
    std::uint64_t last_ = kNone, last_n_ = 0;
    std::vector<Entry> cache_;
    std::unique_ptr<Entry[]> list_;
    std::size_t n_ = 0, cap_ = 0, limit_ = 0, first_cap_ = 0;
    std::uint32_t max_label_ = 0;
    std::uint64_t max_count_ = 0;
};

/// Which pairs a row owns: right only (the last row), right and below (4-connectivity), or all
/// four directions (8-connectivity).
enum Dirs { kRight, kFour, kEight };

// Masks of eight windows: bit 8d + i is set when window i has a counted pair in direction d
// (0 right, 1 below, 2 below-right, 3 below-left).

/// The masks of windows 0..n-1 (n ≤ 8) at @p r, @p b (reads n + 1 labels of each row).
template <Dirs D, bool Bg>
inline std::uint32_t masks_scalar(const std::uint32_t* r, const std::uint32_t* b, std::int64_t n) {
    std::uint32_t m = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        m |= std::uint32_t(counted<Bg>(r[i], r[i + 1])) << i;
        if constexpr (D != kRight) m |= std::uint32_t(counted<Bg>(r[i], b[i])) << (8 + i);
        if constexpr (D == kEight) {
            m |= std::uint32_t(counted<Bg>(r[i], b[i + 1])) << (16 + i);
            m |= std::uint32_t(counted<Bg>(r[i + 1], b[i])) << (24 + i);
        }
    }
    return m;
}

/// Each direction's windows in turn, so that a boundary's one pair in several directions reaches
/// the band as one run.
template <Dirs D>
inline void emit(std::uint32_t m, const std::uint32_t* r, const std::uint32_t* b, BandPairs& acc) {
    for (std::uint32_t k = m & 0xFFu; k; k &= k - 1) {
        const int i = std::countr_zero(k);
        acc.add(pair_key(r[i], r[i + 1]));
    }
    if constexpr (D != kRight)
        for (std::uint32_t k = (m >> 8) & 0xFFu; k; k &= k - 1) {
            const int i = std::countr_zero(k);
            acc.add(pair_key(r[i], b[i]));
        }
    if constexpr (D == kEight) {
        for (std::uint32_t k = (m >> 16) & 0xFFu; k; k &= k - 1) {
            const int i = std::countr_zero(k);
            acc.add(pair_key(r[i], b[i + 1]));
        }
        for (std::uint32_t k = m >> 24; k; k &= k - 1) {
            const int i = std::countr_zero(k);
            acc.add(pair_key(r[i + 1], b[i]));
        }
    }
}

/// Windows x.. of the row, then the last column's below pair.
template <Dirs D, bool Bg>
inline void finish_row(const std::uint32_t* r, const std::uint32_t* b, std::int64_t x, std::int64_t w,
                       BandPairs& acc) {
    for (; x < w - 1; x += 8)
        if (const std::uint32_t m = masks_scalar<D, Bg>(r + x, b + x, std::min<std::int64_t>(8, w - 1 - x)))
            emit<D>(m, r + x, b + x, acc);
    if constexpr (D != kRight)
        if (counted<Bg>(r[w - 1], b[w - 1])) acc.add(pair_key(r[w - 1], b[w - 1]));
}

#if CCLABEL_ADJ_AVX2
/// The lanes where (p, q) is counted, as bits (zp, zq: the lanes where p, q are 0).
template <bool Bg>
__attribute__((target("avx2"), always_inline)) inline std::uint32_t counted8(__m256i p, __m256i q, __m256i zp,
                                                                              __m256i zq) {
    __m256i skip = _mm256_cmpeq_epi32(p, q);
    if constexpr (!Bg) skip = _mm256_or_si256(skip, _mm256_or_si256(zp, zq));
    return ~std::uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(skip))) & 0xFFu;
}

/// masks_scalar of eight windows (reads nine labels of each row).
template <Dirs D, bool Bg>
__attribute__((target("avx2"), always_inline)) inline std::uint32_t masks8_avx2(const std::uint32_t* r,
                                                                                 const std::uint32_t* b) {
    const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r));
    const __m256i r1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + 1));
    const __m256i zero = _mm256_setzero_si256();
    const __m256i zr0 = Bg ? zero : _mm256_cmpeq_epi32(r0, zero), zr1 = Bg ? zero : _mm256_cmpeq_epi32(r1, zero);
    std::uint32_t m = counted8<Bg>(r0, r1, zr0, zr1);
    if constexpr (D != kRight) {
        const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
        const __m256i zb0 = Bg ? zero : _mm256_cmpeq_epi32(b0, zero);
        m |= counted8<Bg>(r0, b0, zr0, zb0) << 8;
        if constexpr (D == kEight) {
            const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 1));
            const __m256i zb1 = Bg ? zero : _mm256_cmpeq_epi32(b1, zero);
            m |= counted8<Bg>(r0, b1, zr0, zb1) << 16;
            m |= counted8<Bg>(r1, b0, zr1, zb0) << 24;
        }
    }
    return m;
}

/// Whether the eight windows at @p r, @p b may hold a pair at all: some window is not one label
/// throughout (right and below are enough to look at without below-right and below-left).
template <Dirs D>
__attribute__((target("avx2"), always_inline)) inline __m256i differ8(const std::uint32_t* r, const std::uint32_t* b) {
    const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r));
    __m256i d = _mm256_xor_si256(r0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + 1)));
    if constexpr (D != kRight) {
        const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
        d = _mm256_or_si256(d, _mm256_xor_si256(r0, b0));
        if constexpr (D == kEight)
            d = _mm256_or_si256(d, _mm256_xor_si256(b0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 1))));
    }
    return d;
}

template <Dirs D, bool Bg>
__attribute__((target("avx2"))) void scan_row_avx2(const std::uint32_t* r, const std::uint32_t* b, std::int64_t w,
                                                    BandPairs& acc) {
    std::int64_t x = 0;
    // Sixteen windows at a time: most of them, on a drawing, are one label throughout (the test is
    // a third of the masks' work).
    for (; x + 16 < w; x += 16) {
        if (_mm256_testz_si256(_mm256_or_si256(differ8<D>(r + x, b + x), differ8<D>(r + x + 8, b + x + 8)),
                               _mm256_set1_epi32(-1)))
            continue;
        if (const std::uint32_t m = masks8_avx2<D, Bg>(r + x, b + x)) emit<D>(m, r + x, b + x, acc);
        if (const std::uint32_t m = masks8_avx2<D, Bg>(r + x + 8, b + x + 8)) emit<D>(m, r + x + 8, b + x + 8, acc);
    }
    for (; x + 8 < w; x += 8)
        if (const std::uint32_t m = masks8_avx2<D, Bg>(r + x, b + x)) emit<D>(m, r + x, b + x, acc);
    finish_row<D, Bg>(r, b, x, w, acc);
}
#endif

template <Dirs D, bool Bg>
void scan_row(const std::uint32_t* r, const std::uint32_t* b, std::int64_t w, BandPairs& acc) {
#if CCLABEL_ADJ_AVX2
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return scan_row_avx2<D, Bg>(r, b, w, acc);
#endif
    finish_row<D, Bg>(r, b, 0, w, acc);
}

template <bool Bg>
void scan_band(const std::uint32_t* labels, std::int64_t w, std::int64_t h, std::int64_t stride, int connectivity,
               std::int64_t y0, std::int64_t y1, BandPairs& acc) {
    for (std::int64_t y = y0; y < y1; ++y) {
        const std::uint32_t* row = labels + y * stride;
        if (y + 1 == h) scan_row<kRight, Bg>(row, row, w, acc);
        else if (connectivity == 8) scan_row<kEight, Bg>(row, row + stride, w, acc);
        else scan_row<kFour, Bg>(row, row + stride, w, acc);
    }
}

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

std::vector<AdjacencyEdge> adjacency_cpu(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                         std::int64_t stride, int connectivity, bool include_background, int threads) {
    threads = std::max(threads, 1);
    const int bands = int(std::min<std::int64_t>(threads, height));
    std::vector<BandPairs> acc(static_cast<std::size_t>(bands));
    parallel_for(std::uint64_t(bands), threads, [&](std::uint64_t b) {
        const std::int64_t y0 = height * std::int64_t(b) / bands, y1 = height * std::int64_t(b + 1) / bands;
        acc[b] = BandPairs(std::uint64_t(width) * std::uint64_t(y1 - y0));  // its cache made on its thread
        if (include_background) scan_band<true>(labels, width, height, stride, connectivity, y0, y1, acc[b]);
        else scan_band<false>(labels, width, height, stride, connectivity, y0, y1, acc[b]);
        acc[b].finish();
    });
    return gather(acc, threads);
}

}  // namespace cclabel::detail
