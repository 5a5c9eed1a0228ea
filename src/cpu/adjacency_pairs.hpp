#pragma once
// What the CPU's region adjacency passes share (the pictures' src/cpu/adjacency_cpu.cpp, the
// volumes' src/cpu/adjacency3d_cpu.cpp): a band's list of counted pairs behind a last-pair filter
// and a small cache (BandPairs), and the step that turns the bands' lists into sorted edges
// (gather_pairs, src/cpu/adjacency_pairs.cpp), which does not care where the pairs came from.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cclabel/adjacency.hpp"

namespace cclabel::detail {

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
    /// Sorts and sums the list when it outgrows its limit, or grows it (src/cpu/adjacency_pairs.cpp).
    void make_room();
    std::uint64_t last_ = kNone, last_n_ = 0;
    std::vector<Entry> cache_;
    std::unique_ptr<Entry[]> list_;
    std::size_t n_ = 0, cap_ = 0, limit_ = 0, first_cap_ = 0;
    std::uint32_t max_label_ = 0;
    std::uint64_t max_count_ = 0;
};

/// The bands' lists as sorted edges, pairs summed within and across bands, on @p threads threads
/// (≥ 1); each band's memory is released as it is read.
std::vector<AdjacencyEdge> gather_pairs(std::vector<BandPairs>& bands, int threads);

/// The pairs that rows y0..y1 of a width × height plane own within the plane (right, below, and
/// for 8-connectivity the two lower diagonals; the last row right only): step 1 of the pictures'
/// pass (src/cpu/adjacency_cpu.cpp), which the volumes' pass runs on each slice.
void scan_plane_rows(const std::uint32_t* labels, std::int64_t width, std::int64_t height, std::int64_t stride,
                     int connectivity, std::int64_t y0, std::int64_t y1, bool include_background, BandPairs& acc);

}  // namespace cclabel::detail
