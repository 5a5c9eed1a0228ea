// The region adjacency graph against a brute-force count: every pixel looks at all its neighbours
// (4 or 8 directions), each touching pair is then seen from both sides and counted twice.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "cclabel/adjacency.hpp"
#include "cclabel/cclabel.hpp"
#include "cuda/kernels/adjacency_bodies.cuh"

namespace cclabel::test {
namespace {

std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> brute_force(const std::vector<std::uint32_t>& l,
                                                                             std::int64_t w, std::int64_t h, int conn,
                                                                             bool background) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> twice;
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if ((dx == 0 && dy == 0) || (conn == 4 && dx != 0 && dy != 0)) continue;
                    if (x + dx < 0 || y + dy < 0 || x + dx >= w || y + dy >= h) continue;
                    const std::uint32_t p = l[std::size_t(y * w + x)], q = l[std::size_t((y + dy) * w + x + dx)];
                    if (p == q || (!background && (p == 0 || q == 0))) continue;
                    ++twice[{std::min(p, q), std::max(p, q)}];
                }
    for (auto& [k, n] : twice) n /= 2;
    return twice;
}

void expect_brute_force(const std::vector<std::uint32_t>& l, std::int64_t w, std::int64_t h, int conn, bool bg,
                        std::int64_t pad, const std::string& what) {
    // Copy into rows of w + pad labels, the padding holding labels that must not be read.
    std::vector<std::uint32_t> strided(std::size_t((w + pad) * h), 0xFFFFFFF0u);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) strided[std::size_t(y * (w + pad) + x)] = l[std::size_t(y * w + x)];
    const auto edges = adjacency(strided.data(), w, h, conn, bg, pad ? w + pad : 0, Backend::Cpu);
    const auto ref = brute_force(l, w, h, conn, bg);
    // The GPU's per-thread program (kernels/adjacency_bodies.cuh) over every segment, its items
    // summed by pair as the GPU's sort and reduce-by-key do.
    namespace cd = cclabel::cuda::detail;
    cd::AdjParams p;
    p.labels = strided.data();
    p.width = std::uint32_t(w);
    p.height = std::uint32_t(h);
    p.stride = w + pad;
    p.segs_x = std::uint32_t((w + cd::kAdjSeg - 1) / cd::kAdjSeg);
    p.segs = std::uint64_t(p.segs_x) * std::uint64_t(h);
    p.connectivity = conn;
    p.include_background = bg;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> gpu;
    std::uint64_t items = 0;
    for (std::uint64_t s = 0; s < p.segs + 2; ++s) {  // two past the end: nothing
        const std::uint32_t n = cd::segment_pairs(p, s, [&](std::uint64_t key, std::uint32_t c) {
            gpu[{std::uint32_t(key >> 32), std::uint32_t(key)}] += c;
            ASSERT_LT(key >> 32, key & 0xFFFFFFFFu) << what << ": a pair's smaller label first";
        });
        if (s >= p.segs) ASSERT_EQ(n, 0u) << what;
        items += n;
    }
    EXPECT_TRUE(gpu == ref) << what << ": the GPU's items";
    EXPECT_LE(items, std::uint64_t(4 * w * h)) << what;
    ASSERT_EQ(edges.size(), ref.size()) << what;
    auto it = ref.begin();
    for (const AdjacencyEdge& e : edges) {
        ASSERT_EQ(e.a, it->first.first) << what;
        ASSERT_EQ(e.b, it->first.second) << what;
        ASSERT_EQ(e.contacts, it->second) << what << " pair " << e.a << "-" << e.b;
        ++it;
    }
}

TEST(Adjacency, RandomLabelImagesMatchBruteForce) {
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {13, 7}, {64, 33}};
    std::uint32_t seed = 3;
    for (auto [w, h] : sizes)
        for (std::uint32_t palette : {2u, 5u, 40u})
            for (int conn : {4, 8})
                for (bool bg : {false, true}) {
                    std::mt19937 rng(seed++);
                    std::vector<std::uint32_t> l(std::size_t(w * h));
                    for (auto& v : l) v = rng() % palette;
                    expect_brute_force(l, w, h, conn, bg, seed % 2 ? 3 : 0,
                                       std::to_string(w) + "x" + std::to_string(h) + " palette " +
                                           std::to_string(palette) + " conn " + std::to_string(conn) + (bg ? " bg" : ""));
                }
}

TEST(Adjacency, OfLabelledRegions) {
    // Labels from the labeller: regions of one value never touch themselves, so every edge is a
    // boundary between two values.
    std::mt19937 rng(9);
    std::vector<std::uint8_t> px(50 * 40);
    for (auto& v : px) v = std::uint8_t(rng() % 3);
    for (int conn : {4, 8}) {
        const Labels l = label(make_view(px.data(), 50, 40, PixelFormat::Gray8),
                               Options{.connectivity = conn, .background = std::vector<std::uint64_t>{0}});
        for (bool bg : {false, true}) expect_brute_force(l.data, 50, 40, conn, bg, 0, "labelled");
    }
}

TEST(Adjacency, CountsEveryTouchingPairOnce) {
    // 1 1 2
    // 1 2 2      4-connected: 1-2 touch across 3 edges; 8-connected: and 3 corners.
    const std::vector<std::uint32_t> l = {1, 1, 2, 1, 2, 2};
    const auto e4 = adjacency(l.data(), 3, 2, 4);
    ASSERT_EQ(e4.size(), 1u);
    EXPECT_EQ(e4[0].contacts, 3u);
    const auto e8 = adjacency(l.data(), 3, 2, 8);
    ASSERT_EQ(e8.size(), 1u);
    EXPECT_EQ(e8[0].contacts, 5u);
}

TEST(Adjacency, BoundaryRunsAreMergedBeforeTheyAreEmitted) {
    // Two regions split by a horizontal line: every pixel of the row above the line touches the
    // row below, but a segment emits one item per direction, not one per pixel.
    const std::int64_t w = 96, h = 4;
    std::vector<std::uint32_t> l(std::size_t(w * h), 1);
    for (std::int64_t i = 2 * w; i < w * h; ++i) l[std::size_t(i)] = 2;
    namespace cd = cclabel::cuda::detail;
    cd::AdjParams p;
    p.labels = l.data();
    p.width = std::uint32_t(w);
    p.height = std::uint32_t(h);
    p.stride = w;
    p.segs_x = 3;
    p.segs = 3 * std::uint64_t(h);
    p.connectivity = 8;
    std::uint64_t items = 0, contacts = 0;
    for (std::uint64_t s = 0; s < p.segs; ++s)
        items += cd::segment_pairs(p, s, [&](std::uint64_t, std::uint32_t c) { contacts += c; });
    EXPECT_EQ(contacts, std::uint64_t(w + 2 * (w - 1)));  // below, below-right, below-left
    EXPECT_EQ(items, 9u);                                // 3 segments × 3 directions
}

TEST(Adjacency, BadArgumentsAreErrors) {
    const std::uint32_t l[4] = {};
    EXPECT_THROW(adjacency(l, 2, 2, 6), Error);
    EXPECT_THROW(adjacency(l, -1, 2, 8), Error);
    EXPECT_THROW(adjacency(l, 2, 2, 8, false, 1), Error);
    EXPECT_THROW(adjacency(l, 2, 2, 8, false, -2), Error);
    EXPECT_THROW(adjacency(nullptr, 2, 2, 8), Error);
    EXPECT_TRUE(adjacency(nullptr, 0, 5, 8).empty());
    EXPECT_THROW(adjacency(l, 2, 2, 8, false, 0, Backend(42)), Error);
    if (!cuda_available()) EXPECT_THROW(adjacency(l, 2, 2, 8, false, 0, Backend::Cuda), Error);
}

}  // namespace
}  // namespace cclabel::test
