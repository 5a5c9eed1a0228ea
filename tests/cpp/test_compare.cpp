// compare_labels against label images damaged on purpose: the true labels of seeded random
// pictures, with regions split, joined, lost to the background, invented on the background or
// renumbered by a program; the expected counts and the first damaged pixel follow from what was
// done, not from the function under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/compare.hpp"

namespace cclabel::test {
namespace {

using Labels = std::vector<std::uint32_t>;

struct Truth {
    std::int64_t w = 0, h = 0;
    Labels labels;
    std::uint32_t n = 0;
    std::vector<std::vector<std::uint64_t>> pixels;  ///< per label, its pixel indices in raster order
};

/// The CPU labelling of a random Gray8 picture over @p colours values (value 0 the background).
Truth make_truth(std::int64_t w, std::int64_t h, int colours, int conn, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> img(std::size_t(w * h));
    for (auto& p : img) p = std::uint8_t(rng() % unsigned(colours));
    Truth t;
    t.w = w;
    t.h = h;
    t.labels.resize(img.size());
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    o.background = std::vector<std::uint64_t>{0};
    t.n = label(make_view(img.data(), w, h, PixelFormat::Gray8), t.labels.data(), o).count;
    t.pixels.resize(std::size_t(t.n) + 1);
    for (std::size_t i = 0; i < t.labels.size(); ++i) t.pixels[t.labels[i]].push_back(i);
    return t;
}

std::int64_t first_of(const Truth& t, const std::vector<std::uint32_t>& regions) {
    std::uint64_t best = ~std::uint64_t(0);
    for (std::uint32_t r : regions) best = std::min(best, t.pixels[r].front());
    return std::int64_t(best);
}

LabelComparison compare(const Truth& t, const Labels& given) {
    return compare_labels(t.labels.data(), given.data(), t.w, t.h);
}

std::uint64_t differ(const Labels& a, const Labels& b) {
    std::uint64_t d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
    return d;
}

struct Case {
    std::int64_t w, h;
    int colours, conn;
};

class CompareLabels : public ::testing::TestWithParam<Case> {};

TEST_P(CompareLabels, IdenticalWhenUnchanged) {
    const Case c = GetParam();
    const Truth t = make_truth(c.w, c.h, c.colours, c.conn, 1);
    const LabelComparison r = compare(t, t.labels);
    EXPECT_TRUE(r.identical());
    EXPECT_EQ(r.true_regions, t.n);
    EXPECT_EQ(r.given_regions, t.n);
    EXPECT_EQ(r.pixels_differ, 0u);
    EXPECT_EQ(r.x, -1);
}

TEST_P(CompareLabels, PermutationIsRenumberedOnly) {
    const Case c = GetParam();
    for (std::uint32_t seed = 1; seed <= 5; ++seed) {
        const Truth t = make_truth(c.w, c.h, c.colours, c.conn, seed);
        std::vector<std::uint32_t> perm(std::size_t(t.n) + 1);
        std::iota(perm.begin(), perm.end(), 0u);
        std::mt19937 rng(seed);
        std::shuffle(perm.begin() + 1, perm.end(), rng);
        std::uint64_t moved = 0;
        for (std::uint32_t l = 1; l <= t.n; ++l) moved += perm[l] != l;
        Labels given(t.labels);
        for (auto& v : given) v = perm[v];
        const LabelComparison r = compare(t, given);
        EXPECT_TRUE(r.same_partition());
        EXPECT_EQ(r.split + r.joined + r.missed + r.extra, 0u);
        EXPECT_EQ(r.renumbered, moved);
        EXPECT_EQ(r.identical(), moved == 0);
        EXPECT_EQ(r.pixels_differ, differ(given, t.labels));
    }
}

TEST_P(CompareLabels, LargeLabelValuesUseTheHashPath) {
    const Case c = GetParam();
    const Truth t = make_truth(c.w, c.h, c.colours, c.conn, 9);
    Labels given(t.labels);
    for (auto& v : given) v = v ? 0xFFFFFFFFu - v : 0;  // every label far above the pixel count
    const LabelComparison r = compare(t, given);
    EXPECT_TRUE(r.same_partition());
    EXPECT_EQ(r.renumbered, t.n);
    EXPECT_EQ(r.given_regions, t.n);
    // And the other way round: the truth's values are the large ones.
    const LabelComparison back = compare_labels(given.data(), t.labels.data(), t.w, t.h);
    EXPECT_TRUE(back.same_partition());
    EXPECT_EQ(back.renumbered, t.n);
}

TEST_P(CompareLabels, SplitsJoinsMissesAndExtrasAreCounted) {
    const Case c = GetParam();
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
        const Truth t = make_truth(c.w, c.h, c.colours, c.conn, seed);
        std::mt19937 rng(seed * 7919);
        // Regions of two or more pixels can be split; shuffle all regions and deal them out.
        std::vector<std::uint32_t> order(t.n);
        std::iota(order.begin(), order.end(), 1u);
        std::shuffle(order.begin(), order.end(), rng);
        Labels given(t.labels);
        std::uint32_t fresh = t.n + 1;
        std::vector<std::uint32_t> damaged;
        std::uint64_t want_split = 0, want_joined = 0, want_missed = 0, want_extra = 0;
        std::size_t next = 0;
        const std::size_t budget = std::min<std::size_t>(order.size(), 12);
        // Split: move the last pixel of a region to a new label.
        for (int k = 0; k < 3 && next < budget; ++next) {
            const std::uint32_t r = order[next];
            if (t.pixels[r].size() < 2) continue;
            given[t.pixels[r].back()] = fresh++;
            damaged.push_back(r);
            ++want_split;
            ++k;
        }
        // Join: two regions under one label (the first's).
        for (int k = 0; k < 2 && next + 1 < budget; ++k, next += 2) {
            const std::uint32_t a = order[next], b = order[next + 1];
            for (auto p : t.pixels[b]) given[p] = a;
            damaged.push_back(a);
            damaged.push_back(b);
            ++want_joined;
        }
        // Missed: a region given the background.
        if (next < budget) {
            const std::uint32_t r = order[next++];
            for (auto p : t.pixels[r]) given[p] = 0;
            damaged.push_back(r);
            ++want_missed;
        }
        std::int64_t first = damaged.empty() ? -1 : first_of(t, damaged);
        // Extra: one background pixel gets a label of its own.
        if (!t.pixels[0].empty()) {
            const std::uint64_t p = t.pixels[0][rng() % t.pixels[0].size()];
            given[p] = fresh++;
            ++want_extra;
            first = first < 0 ? std::int64_t(p) : std::min(first, std::int64_t(p));
        }
        const LabelComparison r = compare(t, given);
        EXPECT_EQ(r.split, want_split) << "seed " << seed;
        EXPECT_EQ(r.joined, want_joined) << "seed " << seed;
        EXPECT_EQ(r.missed, want_missed) << "seed " << seed;
        EXPECT_EQ(r.extra, want_extra) << "seed " << seed;
        EXPECT_EQ(r.true_regions, t.n);
        EXPECT_EQ(r.given_regions, std::set<std::uint32_t>(given.begin(), given.end()).size() -
                                       (std::find(given.begin(), given.end(), 0u) != given.end()));
        EXPECT_EQ(r.pixels_differ, differ(given, t.labels));
        EXPECT_EQ(r.same_partition(), want_split + want_joined + want_missed + want_extra == 0);
        if (first >= 0) {
            EXPECT_EQ(r.x, first % t.w) << "seed " << seed;
            EXPECT_EQ(r.y, first / t.w) << "seed " << seed;
        }
    }
}

TEST_P(CompareLabels, BackgroundMixedIntoALabelIsAJoin) {
    const Case c = GetParam();
    const Truth t = make_truth(c.w, c.h, c.colours, c.conn, 3);
    if (t.pixels[0].empty() || t.n == 0) GTEST_SKIP() << "needs background and a region";
    Labels given(t.labels);
    const std::uint64_t p = t.pixels[0].back();
    given[p] = 1;  // a background pixel joins region 1
    const LabelComparison r = compare(t, given);
    EXPECT_EQ(r.joined, 1u);
    EXPECT_EQ(r.split + r.missed + r.extra, 0u);
    const std::int64_t first = std::min<std::int64_t>(std::int64_t(p), first_of(t, {1}));
    EXPECT_EQ(r.y * t.w + r.x, first);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CompareLabels,
                         ::testing::Values(Case{1, 1, 2, 8}, Case{37, 1, 3, 4}, Case{1, 29, 3, 8}, Case{33, 17, 3, 4},
                                           Case{64, 64, 2, 8}, Case{65, 31, 5, 4}, Case{128, 97, 4, 8}));

TEST(CompareLabelsErrors, BadArgumentsThrow) {
    const std::uint32_t one = 1;
    EXPECT_THROW(compare_labels(&one, &one, -1, 1), Error);
    EXPECT_THROW(compare_labels(&one, &one, 1, -1), Error);
    EXPECT_THROW(compare_labels(nullptr, &one, 1, 1), Error);
    EXPECT_THROW(compare_labels(&one, nullptr, 1, 1), Error);
    EXPECT_THROW(compare_labels(&one, &one, 1 << 20, 1 << 20), Error);
    EXPECT_TRUE(compare_labels(nullptr, nullptr, 0, 5).identical());
}

}  // namespace
}  // namespace cclabel::test
