// The region adjacency graph of label volumes against a brute-force count: every voxel looks at
// all its 6, 18 or 26 neighbours, so each touching pair is seen from both sides and counted twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/cclabel.hpp"

namespace cclabel::test {
namespace {

using Graph = std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t>;

Graph brute_force(const std::vector<std::uint32_t>& l, std::int64_t w, std::int64_t h, std::int64_t d, int conn,
                  bool background) {
    Graph twice;
    for (std::int64_t z = 0; z < d; ++z)
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x)
                for (int dz = -1; dz <= 1; ++dz)
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx) {
                            const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
                            if (nonzero == 0 || (conn == 6 && nonzero > 1) || (conn == 18 && nonzero > 2)) continue;
                            const std::int64_t X = x + dx, Y = y + dy, Z = z + dz;
                            if (X < 0 || Y < 0 || Z < 0 || X >= w || Y >= h || Z >= d) continue;
                            const std::uint32_t p = l[std::size_t((z * h + y) * w + x)];
                            const std::uint32_t q = l[std::size_t((Z * h + Y) * w + X)];
                            if (p == q || (!background && (p == 0 || q == 0))) continue;
                            ++twice[{std::min(p, q), std::max(p, q)}];
                        }
    for (auto& [k, n] : twice) n /= 2;
    return twice;
}

Graph as_graph(const std::vector<AdjacencyEdge>& edges) {
    Graph g;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const AdjacencyEdge& e = edges[i];
        EXPECT_LT(e.a, e.b);
        if (i > 0) EXPECT_TRUE(std::pair(edges[i - 1].a, edges[i - 1].b) < std::pair(e.a, e.b)) << "not sorted at " << i;
        g[{e.a, e.b}] = e.contacts;
    }
    return g;
}

/// Blocks of one label with noise: long stretches of one label (the chunk test skips them) and
/// boundaries in every direction.
std::vector<std::uint32_t> random_volume(std::int64_t w, std::int64_t h, std::int64_t d, std::uint32_t labels,
                                         double noise, std::mt19937& rng) {
    std::vector<std::uint32_t> v(std::size_t(w * h * d));
    std::uniform_int_distribution<std::uint32_t> pick(0, labels - 1);
    std::uniform_real_distribution<double> coin(0, 1);
    const std::int64_t bx = 1 + std::int64_t(rng() % 9), by = 1 + std::int64_t(rng() % 5), bz = 1 + std::int64_t(rng() % 3);
    for (std::int64_t z = 0; z < d; ++z)
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                std::uint32_t l = std::uint32_t((x / bx) * 7 + (y / by) * 13 + (z / bz) * 29) % labels;
                if (coin(rng) < noise) l = pick(rng);
                v[std::size_t((z * h + y) * w + x)] = l;
            }
    return v;
}

std::string where(std::int64_t w, std::int64_t h, std::int64_t d, int conn, bool bg, int threads) {
    return std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d) + " c" + std::to_string(conn) +
           (bg ? " bg" : "") + " threads " + std::to_string(threads);
}

void check(const std::vector<std::uint32_t>& v, std::int64_t w, std::int64_t h, std::int64_t d, int conn, bool bg,
           int threads) {
    const auto edges = adjacency(make_volume_view(v.data(), w, h, d, PixelFormat::U32), conn, bg, Backend::Cpu, threads);
    EXPECT_EQ(as_graph(edges), brute_force(v, w, h, d, conn, bg)) << where(w, h, d, conn, bg, threads);
}

TEST(Adjacency3d, RandomVolumesEveryConnectivityAgainstBruteForce) {
    std::mt19937 rng(0);
    // Widths around the 16-voxel chunk (17 is the first with a chunk), thin and flat volumes.
    const std::int64_t shapes[][3] = {{1, 1, 1},  {5, 1, 1},  {1, 5, 1},  {1, 1, 5},  {17, 1, 1}, {18, 2, 2},
                                      {33, 3, 4}, {16, 4, 3}, {40, 7, 5}, {70, 3, 2}, {9, 9, 9},  {2, 2, 2}};
    for (const auto& s : shapes)
        for (const std::uint32_t labels : {2u, 5u, 1000u})
            for (const double noise : {0.0, 0.05, 0.6}) {
                const auto v = random_volume(s[0], s[1], s[2], labels, noise, rng);
                for (const int conn : {6, 18, 26})
                    for (const bool bg : {false, true})
                        for (const int threads : {1, 3}) check(v, s[0], s[1], s[2], conn, bg, threads);
            }
}

TEST(Adjacency3d, EdgesDoNotDependOnThreads) {
    std::mt19937 rng(7);
    const auto v = random_volume(37, 11, 13, 40, 0.1, rng);
    const auto view = make_volume_view(v.data(), 37, 11, 13, PixelFormat::U32);
    for (const int conn : {6, 18, 26}) {
        const auto one = adjacency(view, conn, true, Backend::Cpu, 1);
        ASSERT_FALSE(one.empty());
        for (const int threads : {2, 4, 7, 143, 1000}) {
            const auto many = adjacency(view, conn, true, Backend::Cpu, threads);
            ASSERT_EQ(many.size(), one.size()) << conn << " " << threads;
            for (std::size_t i = 0; i < one.size(); ++i) {
                EXPECT_EQ(many[i].a, one[i].a);
                EXPECT_EQ(many[i].b, one[i].b);
                EXPECT_EQ(many[i].contacts, one[i].contacts);
            }
        }
    }
}

TEST(Adjacency3d, OneSliceIsThePictureGraph) {
    // Within a slice 6-neighbours are 4-neighbours, 18- and 26-neighbours are 8-neighbours.
    std::mt19937 rng(3);
    const auto v = random_volume(45, 19, 1, 30, 0.2, rng);
    for (const auto [conn, plane] : {std::pair{6, 4}, {18, 8}, {26, 8}}) {
        const auto vol = as_graph(adjacency(make_volume_view(v.data(), 45, 19, 1, PixelFormat::U32), conn, false));
        const auto pic = as_graph(adjacency(v.data(), 45, 19, plane, false, 0, Backend::Cpu));
        EXPECT_EQ(vol, pic) << conn;
        EXPECT_FALSE(vol.empty());
    }
}

TEST(Adjacency3d, KnownCountsOfTwoHalves) {
    // Two 4 x 3 x 2 halves meeting along z: the face has 12 voxel pairs; 18 adds each voxel's
    // edge neighbours across (x +-1 and y +-1 in the other half): 2·(3·3 + 4·2) = 34; 26 adds
    // the corners: 4 · (3 · 2) = 24 more.
    const std::int64_t w = 4, h = 3, d = 4;
    std::vector<std::uint32_t> v(std::size_t(w * h * d), 1);
    std::fill(v.begin() + w * h * 2, v.end(), 2);
    const auto view = make_volume_view(v.data(), w, h, d, PixelFormat::U32);
    EXPECT_EQ(as_graph(adjacency(view, 6)), (Graph{{{1, 2}, 12}}));
    EXPECT_EQ(as_graph(adjacency(view, 18)), (Graph{{{1, 2}, 12 + 34}}));
    EXPECT_EQ(as_graph(adjacency(view, 26)), (Graph{{{1, 2}, 12 + 34 + 24}}));
}

TEST(Adjacency3d, BackgroundPairsOnlyOnRequest) {
    std::vector<std::uint32_t> v = {0, 1, 2, 0,  // z = 0
                                    3, 0, 0, 0};  // z = 1
    const auto view = make_volume_view(v.data(), 2, 2, 2, PixelFormat::U32);
    for (const int conn : {6, 18, 26}) {
        for (const AdjacencyEdge& e : adjacency(view, conn, false)) EXPECT_NE(e.a, 0u);
        EXPECT_EQ(as_graph(adjacency(view, conn, true)), brute_force(v, 2, 2, 2, conn, true)) << conn;
        EXPECT_EQ(as_graph(adjacency(view, conn, false)), brute_force(v, 2, 2, 2, conn, false)) << conn;
    }
}

TEST(Adjacency3d, StridedLabelsReadInPlace) {
    std::mt19937 rng(11);
    const std::int64_t w = 21, h = 6, d = 5, rs = 25, ss = rs * h + 13;
    const auto packed = random_volume(w, h, d, 9, 0.3, rng);
    std::vector<std::uint32_t> padded(std::size_t(ss * d), 0xDEADBEEFu);  // padding that would pair if read
    for (std::int64_t z = 0; z < d; ++z)
        for (std::int64_t y = 0; y < h; ++y)
            std::copy_n(packed.begin() + (z * h + y) * w, w, padded.begin() + z * ss + y * rs);
    for (const int conn : {6, 18, 26}) {
        const auto edges = adjacency(make_volume_view(padded.data(), w, h, d, PixelFormat::U32, rs * 4, ss * 4), conn, true,
                                     Backend::Cpu, 2);
        EXPECT_EQ(as_graph(edges), brute_force(packed, w, h, d, conn, true)) << conn;
    }
}

TEST(Adjacency3d, EmptyVolumesHaveNoEdges) {
    EXPECT_TRUE(adjacency(make_volume_view(nullptr, 0, 4, 4, PixelFormat::U32), 26).empty());
    EXPECT_TRUE(adjacency(make_volume_view(nullptr, 4, 4, 0, PixelFormat::U32), 6).empty());
    const std::vector<std::uint32_t> one(64, 5);
    EXPECT_TRUE(adjacency(make_volume_view(one.data(), 4, 4, 4, PixelFormat::U32), 26, true).empty());
}

void expect_error(const VolumeView& v, int conn, Backend backend, const std::string& part) {
    try {
        (void)adjacency(v, conn, false, backend);
        ADD_FAILURE() << "no error, expected one saying '" << part << "'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
}

TEST(Adjacency3d, BadInputIsAnError) {
    const std::vector<std::uint32_t> v(2 * 3 * 4, 1);
    const auto ok = make_volume_view(v.data(), 4, 3, 2, PixelFormat::U32);
    expect_error(ok, 4, Backend::Cpu, "connectivity 4 is for pictures");
    expect_error(ok, 8, Backend::Cpu, "connectivity 8 is for pictures");
    for (const int c : {0, 1, 3, 7, 27, -6}) expect_error(ok, c, Backend::Cpu, "must be 6, 18 or 26");
    expect_error(make_volume_view(v.data(), 4, 3, 2, PixelFormat::Gray8), 26, Backend::Cpu, "format u32");
    expect_error(make_volume_view(v.data(), -4, 3, 2, PixelFormat::U32), 26, Backend::Cpu, "must not be negative");
    expect_error(make_volume_view(v.data(), 4, 3, -2, PixelFormat::U32), 26, Backend::Cpu, "must not be negative");
    expect_error(make_volume_view(v.data(), 4, 3, 2, PixelFormat::U32, -16), 26, Backend::Cpu, "negative strides");
    expect_error(make_volume_view(v.data(), 4, 3, 2, PixelFormat::U32, 18), 26, Backend::Cpu, "multiples of 4");
    expect_error(make_volume_view(v.data(), 4, 3, 2, PixelFormat::U32, 12), 26, Backend::Cpu, "rows would overlap");
    expect_error(make_volume_view(v.data(), 4, 3, 2, PixelFormat::U32, 16, 32), 26, Backend::Cpu, "slices would overlap");
    expect_error(make_volume_view(nullptr, 4, 3, 2, PixelFormat::U32), 26, Backend::Cpu, "null");
    // Backend::Cuda: the GPU's pass (tests/cuda/test_volume_adjacency_cuda.cpp), or an Error
    // that says why where there is none.
    if (!cuda_available()) expect_error(ok, 26, Backend::Cuda, "backend cuda");
    else EXPECT_EQ(adjacency(ok, 26, false, Backend::Cuda).size(), 0u);
    EXPECT_THROW((void)adjacency(ok, 26, false, Backend::Cpu, -1), Error);
    EXPECT_NO_THROW((void)adjacency(ok, 26, false, Backend::Auto));
}

}  // namespace
}  // namespace cclabel::test
