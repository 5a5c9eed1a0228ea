// compare_labels: one pass that records, for every truth value, the first given value seen with it
// (and whether another one follows), and the same the other way round; then the counts.
#include "cclabel/compare.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"

namespace cclabel {
namespace {

/// Numbers the distinct values of a label image 0..size-1: the values themselves when they are
/// all at most the pixel count (any labeller's output), otherwise through a hash table (so a label
/// image with one label 4e9 does not cost 16 GB).
class ValueIndex {
public:
    ValueIndex(const std::uint32_t* v, std::uint64_t n) {
        const std::uint32_t max = n ? *std::max_element(v, v + n) : 0;
        dense_ = max <= n;
        if (dense_) {
            size_ = std::uint64_t(max) + 1;
            return;
        }
        for (std::uint64_t i = 0; i < n; ++i) {
            if (map_.try_emplace(v[i], std::uint32_t(values_.size())).second) values_.push_back(v[i]);
        }
        size_ = values_.size();
    }
    std::uint32_t operator()(std::uint32_t v) const { return dense_ ? v : map_.find(v)->second; }
    std::uint32_t value(std::uint64_t index) const { return dense_ ? std::uint32_t(index) : values_[index]; }
    std::uint64_t size() const { return size_; }

private:
    bool dense_ = true;
    std::uint64_t size_ = 0;
    std::unordered_map<std::uint32_t, std::uint32_t> map_;
    std::vector<std::uint32_t> values_;
};

/// For each value of one image: seen at all, the other image's value at its first pixel, and
/// whether a different one occurs later.
struct Side {
    explicit Side(std::uint64_t n) : seen(n), many(n), first(n) {}
    std::vector<std::uint8_t> seen, many;
    std::vector<std::uint32_t> first;
    void add(std::uint32_t index, std::uint32_t other) {
        if (!seen[index]) {
            seen[index] = 1;
            first[index] = other;
        } else if (first[index] != other) {
            many[index] = 1;
        }
    }
};

}  // namespace

LabelComparison compare_labels(const std::uint32_t* truth, const std::uint32_t* given, std::int64_t width,
                               std::int64_t height) {
    if (width < 0 || height < 0)
        throw Error("label image size must not be negative (got " + std::to_string(width) + " x " +
                    std::to_string(height) + ")");
    if (width != 0 && height != 0 && std::uint64_t(height) > kMaxPixels / std::uint64_t(width))
        throw Error("label image of " + std::to_string(width) + " x " + std::to_string(height) +
                    " pixels exceeds the limit of 2^32 - 1 pixels");
    const std::uint64_t n = std::uint64_t(width) * std::uint64_t(height);
    if (n != 0 && (truth == nullptr || given == nullptr)) throw Error("null label image");

    const ValueIndex ti(truth, n), gi(given, n);
    Side t(ti.size()), g(gi.size());
    LabelComparison c;
    for (std::uint64_t p = 0; p < n; ++p) {
        const std::uint32_t tv = truth[p], gv = given[p];
        t.add(ti(tv), gv);
        g.add(gi(gv), tv);
        c.pixels_differ += tv != gv;
    }

    // A value is "bad" when it makes the partitions differ; the first pixel of a bad value is shown.
    std::vector<std::uint8_t> t_bad(ti.size()), g_bad(gi.size());
    for (std::uint64_t i = 0; i < ti.size(); ++i) {
        const std::uint32_t v = ti.value(i);
        if (!t.seen[i] || v == 0) continue;
        ++c.true_regions;
        if (t.many[i]) {
            ++c.split;
        } else if (t.first[i] == 0) {
            ++c.missed;
        } else {
            c.renumbered += t.first[i] != v;
            continue;
        }
        t_bad[i] = 1;
    }
    for (std::uint64_t i = 0; i < gi.size(); ++i) {
        if (!g.seen[i] || gi.value(i) == 0) continue;
        ++c.given_regions;
        if (g.many[i]) {
            ++c.joined;
        } else if (g.first[i] == 0) {
            ++c.extra;
        } else {
            continue;
        }
        g_bad[i] = 1;
    }
    if (!c.same_partition()) {
        for (std::uint64_t p = 0; p < n; ++p) {
            if (t_bad[ti(truth[p])] || g_bad[gi(given[p])]) {
                c.x = std::int64_t(p % std::uint64_t(width));
                c.y = std::int64_t(p / std::uint64_t(width));
                break;
            }
        }
    }
    return c;
}

}  // namespace cclabel
