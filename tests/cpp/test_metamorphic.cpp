// Properties that hold for any picture, checked on generated ones without a reference labeller.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "cclabel/cclabel.hpp"
#include "support/adversarial.hpp"
#include "support/test_image.hpp"

namespace cclabel::test {
namespace {

Labels run(const TestImage& img, int conn, bool bg = false, int threads = 2) {
    Options o;
    o.connectivity = conn;
    o.threads = threads;
    if (bg) o.background = background_channels(img.format, 0);
    return label(img.view(), o);
}

std::vector<std::vector<std::uint64_t>> pictures() {
    std::vector<std::vector<std::uint64_t>> ps;
    for (std::uint32_t seed = 0; seed < 6; ++seed) ps.push_back(random_values(83, 59, 2 + seed * 3, 0.3, seed));
    ps.push_back(granular(83, 59, 3, 4, 9).v);
    ps.push_back(percolation(83, 59, 0.55, 4).v);
    return ps;
}

TEST(Metamorphic, PermutingColoursLeavesLabelsUnchanged) {
    for (const auto& v : pictures()) {
        std::vector<std::uint64_t> perm(v.size());
        // A bijection on the values present: v -> (v * 7919 + 13) mod 2^24 (7919 is odd).
        std::transform(v.begin(), v.end(), perm.begin(), [](std::uint64_t c) { return (c * 7919 + 13) & 0xFFFFFF; });
        for (int conn : {4, 8}) {
            const Labels a = run(make_image(83, 59, PixelFormat::RGB8, v), conn);
            const Labels b = run(make_image(83, 59, PixelFormat::RGB8, perm), conn);
            EXPECT_EQ(a.count, b.count);
            EXPECT_EQ(a.data, b.data);
        }
    }
}

TEST(Metamorphic, FourConnectedPartitionRefinesEightConnected) {
    for (const auto& v : pictures())
        for (bool bg : {false, true}) {
            const auto img = make_image(83, 59, PixelFormat::U32, v);
            const Labels l4 = run(img, 4, bg), l8 = run(img, 8, bg);
            EXPECT_GE(l4.count, l8.count);
            std::map<std::uint32_t, std::uint32_t> to8;  // every 4-region lies inside one 8-region
            for (std::size_t i = 0; i < v.size(); ++i) {
                EXPECT_EQ(l4.data[i] == 0, l8.data[i] == 0);
                auto [it, fresh] = to8.emplace(l4.data[i], l8.data[i]);
                ASSERT_EQ(it->second, l8.data[i]) << "4-region " << l4.data[i] << " spans two 8-regions";
            }
        }
}

TEST(Metamorphic, LabellingTheLabelsIsTheIdentity) {
    for (const auto& v : pictures())
        for (int conn : {4, 8}) {
            const Labels l = run(make_image(83, 59, PixelFormat::RGB8, v), conn, true);
            Options o;
            o.connectivity = conn;
            o.background = std::vector<std::uint64_t>{0};
            const Labels again = label(make_view(l.data.data(), 83, 59, PixelFormat::U32), o);
            EXPECT_EQ(again.count, l.count);
            EXPECT_EQ(again.data, l.data);
        }
}

TEST(Metamorphic, SideBySideWithSeparatorAddsCounts) {
    const auto ps = pictures();
    for (std::size_t k = 0; k + 1 < ps.size(); ++k)
        for (int conn : {4, 8}) {
            const std::int64_t w = 83, h = 59, W = 2 * w + 1;
            std::vector<std::uint64_t> both(std::size_t(W * h));
            for (std::int64_t y = 0; y < h; ++y) {
                for (std::int64_t x = 0; x < w; ++x) {
                    both[std::size_t(y * W + x)] = ps[k][std::size_t(y * w + x)];
                    both[std::size_t(y * W + w + 1 + x)] = ps[k + 1][std::size_t(y * w + x)];
                }
                both[std::size_t(y * W + w)] = 0xABCDEF;  // a fresh colour
            }
            const Labels a = run(make_image(w, h, PixelFormat::RGB8, ps[k]), conn);
            const Labels b = run(make_image(w, h, PixelFormat::RGB8, ps[k + 1]), conn);
            const Labels ab = run(make_image(W, h, PixelFormat::RGB8, both), conn);
            EXPECT_EQ(ab.count, a.count + b.count + 1);
        }
}

TEST(Metamorphic, TransposeGivesTheSamePartition) {
    for (const auto& v : pictures())
        for (int conn : {4, 8}) {
            const std::int64_t w = 83, h = 59;
            std::vector<std::uint64_t> t(v.size());
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x) t[std::size_t(x * h + y)] = v[std::size_t(y * w + x)];
            const Labels a = run(make_image(w, h, PixelFormat::U32, v), conn);
            const Labels b = run(make_image(h, w, PixelFormat::U32, t), conn);
            ASSERT_EQ(a.count, b.count);
            std::map<std::uint32_t, std::uint32_t> m;  // the partitions match as a bijection
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x) {
                    auto [it, fresh] = m.emplace(a.data[std::size_t(y * w + x)], b.data[std::size_t(x * h + y)]);
                    ASSERT_EQ(it->second, b.data[std::size_t(x * h + y)]);
                }
            EXPECT_EQ(m.size(), a.count);
        }
}

TEST(Metamorphic, RepeatedRunsAreByteIdentical) {
    const auto img = make_image(1001, 999, PixelFormat::Binary8, percolation(1001, 999, 0.5927, 1).v);
    const Labels first = run(img, 4, false, 3);
    for (int i = 0; i < 5; ++i)
        for (int threads : {1, 2, 3, 7}) EXPECT_EQ(run(img, 4, false, threads).data, first.data);
}

}  // namespace
}  // namespace cclabel::test
