// The region adjacency graph against a brute-force count: every pixel looks at all its neighbours
// (4 or 8 directions), each touching pair is then seen from both sides and counted twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "cclabel/adjacency.hpp"
#include "cclabel/cclabel.hpp"
#include "core/huge_pages.hpp"
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

namespace cd = cclabel::cuda::detail;

/// What the GPU's tile kernel puts out, run on the CPU: the warp of each row as 32 lanes side by
/// side (their pairs, the heads a ballot would give), the block's table with plain operations.
struct TileItems {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> items;  ///< (pair, contacts)
    std::uint64_t spilled = 0;   ///< items that found no table slot
    std::uint64_t heads = 0;     ///< runs added to tables
};

/// Whether lane @p lane of a quad tile's row @p y (tile columns from @p xq) finds its four pixels
/// quiet, from the values the quad kernel gathers by loads and shuffles (adjacency_cuda.cu's
/// quad_band_noisy): its own four and the four below, column x + 4 of both rows and x − 1 below.
bool quad_lane_quiet(const cd::AdjParams& p, std::uint32_t xq, std::uint32_t y, std::uint32_t lane) {
    const std::uint32_t x = xq + 4 * lane;
    if (x >= p.width) return true;
    if (x + 3 >= p.width) return false;  // the picture's edge cuts the quad
    auto at = [&](std::uint32_t cx, std::uint32_t cy) { return p.labels[std::int64_t(cy) * p.stride + cx]; };
    const bool has_below = y + 1 < p.height, has_right = x + 4 < p.width, has_left = x > 0;
    std::uint32_t self[4], below[4] = {0, 0, 0, 0};
    for (std::uint32_t k = 0; k < 4; ++k) {
        self[k] = at(x + k, y);
        if (has_below) below[k] = at(x + k, y + 1);
    }
    const std::uint32_t right = has_right ? at(x + 4, y) : 0u;
    const std::uint32_t below_right = has_right && has_below ? at(x + 4, y + 1) : 0u;
    const std::uint32_t below_left = has_left && has_below ? at(x - 1, y + 1) : 0u;
    return cd::quad_quiet(self, below, right, below_right, below_left, has_right, has_left, has_below, p.connectivity,
                          p.include_background);
}

/// @p quads: the quad kernel's program (tiles kAdjQuadW wide; rows where every lane is quiet are
/// skipped, and each quiet lane is checked to own no pair; the others are read 32 pixels a step).
TileItems tile_program(const std::uint32_t* labels, std::int64_t w, std::int64_t h, std::int64_t stride, int conn,
                       bool bg, bool quads = false) {
    cd::AdjParams p;
    p.labels = labels;
    p.width = std::uint32_t(w);
    p.height = std::uint32_t(h);
    p.stride = stride;
    const std::uint32_t tile_w = quads ? cd::kAdjQuadW : cd::kAdjTileW;
    p.tiles_x = std::uint32_t((w + tile_w - 1) / tile_w);
    p.tiles = std::uint64_t(p.tiles_x) * std::uint64_t((h + cd::kAdjTileH - 1) / cd::kAdjTileH);
    p.connectivity = conn;
    p.include_background = bg;
    TileItems out;
    std::vector<std::uint64_t> keys(cd::kAdjTable);
    std::vector<std::uint32_t> counts(cd::kAdjTable);
    std::vector<std::uint32_t> used;  // the slots a tile took, in the order taken
    auto cas = [&](std::uint32_t slot, std::uint64_t expected, std::uint64_t desired) {
        const std::uint64_t old = keys[slot];
        if (old == expected) {
            keys[slot] = desired;
            if (old == cd::kNoPair) used.push_back(slot);
        }
        return old;
    };
    auto add = [&](std::uint32_t slot, std::uint32_t n) { counts[slot] += n; };
    std::fill(keys.begin(), keys.end(), cd::kNoPair);
    for (std::uint64_t tile = 0; tile < p.tiles; ++tile) {
        const std::uint32_t ty = std::uint32_t(tile / p.tiles_x);
        const std::uint32_t xq = std::uint32_t(tile % p.tiles_x) * cd::kAdjQuadW;
        for (std::uint32_t step = 0; step < cd::kAdjTileH * (quads ? cd::kAdjQuadW / 32 : 1); ++step) {
            const std::uint32_t r = quads ? step / (cd::kAdjQuadW / 32) : step;
            const std::uint32_t y = ty * cd::kAdjTileH + r;
            if (quads) {
                if (y >= p.height) break;
                std::uint32_t noisy_lanes = 0;
                for (std::uint32_t lane = 0; lane < 32; ++lane) {
                    if (!quad_lane_quiet(p, xq, y, lane)) {
                        noisy_lanes |= 1u << lane;
                        continue;
                    }
                    for (std::uint32_t k = 0; k < 4; ++k) {
                        const cd::LaneNeighbours n = cd::pixel_neighbours(p, xq + 4 * lane + k, y);
                        for (int d = 0; d < cd::adjacency_directions(p); ++d)
                            EXPECT_EQ(cd::neighbour_pair(n, d, bg), cd::kNoPair)
                                << "a quiet quad owns a pair: pixel " << xq + 4 * lane + k << ", " << y << " direction " << d;
                    }
                }
                // Only the 32-pixel steps that hold a noisy lane are read again.
                if (!(cd::quad_steps(noisy_lanes) >> (step % (cd::kAdjQuadW / 32)) & 1u)) continue;
            }
            cd::LaneNeighbours nb[32];
            bool any = false;
            for (std::uint32_t lane = 0; lane < 32; ++lane) {
                nb[lane] = quads ? cd::pixel_neighbours(p, xq + step % (cd::kAdjQuadW / 32) * 32 + lane, y)
                                 : cd::lane_neighbours(p, tile, r, lane);
                any |= cd::lane_has_pair(nb[lane], cd::adjacency_directions(p), bg);
            }
            for (int d = 0; d < cd::adjacency_directions(p); ++d) {
                std::uint64_t lane_key[32];
                std::uint32_t heads = 0;
                for (std::uint32_t lane = 0; lane < 32; ++lane) {
                    lane_key[lane] = cd::neighbour_pair(nb[lane], d, bg);
                    // A row the warp skips (no lane has a pair) must hold none.
                    if (!any) EXPECT_EQ(lane_key[lane], cd::kNoPair) << "tile " << tile << " row " << r << " lane " << lane;
                    // __shfl_up_sync gives lane 0 its own value
                    if (cd::run_head(lane, lane_key[lane], lane_key[lane ? lane - 1 : 0])) heads |= 1u << lane;
                }
                if (!any) continue;
                for (std::uint32_t lane = 0; lane < 32; ++lane) {
                    if (!(heads >> lane & 1u) || lane_key[lane] == cd::kNoPair) continue;
                    const std::uint32_t n = cd::run_length(heads, lane);
                    ++out.heads;
                    if (cd::table_full(std::uint32_t(used.size())) || !cd::table_add(lane_key[lane], n, cas, add)) {
                        out.items.emplace_back(lane_key[lane], n);
                        ++out.spilled;
                    }
                }
            }
        }
        // Only the slots taken go out, and are cleared: the next tile must find an empty table.
        for (const std::uint32_t slot : used) {
            out.items.emplace_back(keys[slot], counts[slot]);
            keys[slot] = cd::kNoPair;
            counts[slot] = 0;
        }
        used.clear();
        for (std::uint32_t i = 0; i < cd::kAdjTable; ++i) EXPECT_EQ(keys[i], cd::kNoPair) << "slot " << i << " after tile " << tile;
    }
    return out;
}

void expect_brute_force(const std::vector<std::uint32_t>& l, std::int64_t w, std::int64_t h, int conn, bool bg,
                        std::int64_t pad, const std::string& what) {
    // Copy into rows of w + pad labels, the padding holding labels that must not be read.
    std::vector<std::uint32_t> strided(std::size_t((w + pad) * h), 0xFFFFFFF0u);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) strided[std::size_t(y * (w + pad) + x)] = l[std::size_t(y * w + x)];
    const auto edges = adjacency(strided.data(), w, h, conn, bg, pad ? w + pad : 0, Backend::Cpu);
    const auto ref = brute_force(l, w, h, conn, bg);
    // Bands of rows on several threads: the same edges (a pair across a band seam summed once).
    for (int threads : {1, 3, 8}) {
        const auto banded = adjacency(strided.data(), w, h, conn, bg, pad ? w + pad : 0, Backend::Cpu, threads);
        ASSERT_EQ(banded.size(), edges.size()) << what << " on " << threads << " threads";
        for (std::size_t i = 0; i < edges.size(); ++i)
            ASSERT_TRUE(banded[i].a == edges[i].a && banded[i].b == edges[i].b && banded[i].contacts == edges[i].contacts)
                << what << " on " << threads << " threads, edge " << i;
    }
    // The GPU's programs (kernels/adjacency_bodies.cuh: a pixel a lane, and four a lane) over every
    // tile, their items summed by pair as the GPU's sort and reduce-by-key do.
    for (bool quads : {false, true}) {
        const TileItems t = tile_program(strided.data(), w, h, w + pad, conn, bg, quads);
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> gpu;
        for (const auto& [key, c] : t.items) {
            ASSERT_LT(key >> 32, key & 0xFFFFFFFFu) << what << ": a pair's smaller label first";
            gpu[{std::uint32_t(key >> 32), std::uint32_t(key)}] += c;
        }
        const std::uint64_t items = t.items.size();
        EXPECT_TRUE(gpu == ref) << what << ": the GPU's items" << (quads ? " (quads)" : "");
        EXPECT_LE(items, std::uint64_t(4 * w * h)) << what;
    }
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
    // row below, but a warp's row adds one run a direction to its tile's table, and the table holds
    // the pair once.
    const std::int64_t w = 96, h = 4;
    std::vector<std::uint32_t> l(std::size_t(w * h), 1);
    for (std::int64_t i = 2 * w; i < w * h; ++i) l[std::size_t(i)] = 2;
    const TileItems t = tile_program(l.data(), w, h, w, 8, false);
    std::uint64_t contacts = 0;
    for (const auto& [key, c] : t.items) contacts += c;
    EXPECT_EQ(contacts, std::uint64_t(w + 2 * (w - 1)));  // below, below-right, below-left
    EXPECT_EQ(t.heads, 9u);                              // 3 tiles × 3 directions
    EXPECT_EQ(t.items.size(), 3u);                       // one pair a tile
    EXPECT_EQ(t.spilled, 0u);
}

TEST(Adjacency, PairsBeyondATilesTableGoOutOnTheirOwn) {
    // Distinct labels everywhere: a 32 x 32 tile owns about 4 pairs a pixel, twice its table's
    // slots, so pairs spill; every contact must still be counted once.
    const std::int64_t w = 70, h = 45;
    std::vector<std::uint32_t> l(std::size_t(w * h));
    std::mt19937 rng(17);
    for (auto& v : l) v = 1 + rng() % 1000000u;
    const TileItems t = tile_program(l.data(), w, h, w, 8, false);
    EXPECT_GT(t.spilled, 0u);
    expect_brute_force(l, w, h, 8, false, 0, "distinct labels");
    expect_brute_force(l, w, h, 4, true, 5, "distinct labels, conn 4");
}

TEST(Adjacency, RowsEqualButOnePixelMatchBruteForce) {
    // The CPU skips windows that are one label throughout, sixteen or eight at a time, then looks
    // at the rest one window at a time: one odd pixel at every position of rows 1..40 wide (every
    // place in and around a block) must give its pairs, and nothing else.
    for (std::int64_t w = 1; w <= 40; ++w)
        for (std::int64_t x = 0; x < w; ++x)
            for (std::uint32_t odd : {0u, 7u})
                for (int conn : {4, 8})
                    for (bool bg : {false, true}) {
                        const std::int64_t h = 3;
                        std::vector<std::uint32_t> l(std::size_t(w * h), 5);
                        l[std::size_t(w + x)] = odd;
                        expect_brute_force(l, w, h, conn, bg, x % 2 ? 3 : 0,
                                           "width " + std::to_string(w) + ", odd pixel " + std::to_string(odd) +
                                               " at x " + std::to_string(x) + ", conn " + std::to_string(conn) +
                                               (bg ? " bg" : ""));
                    }
}

TEST(Adjacency, RunsAcrossBlockBoundariesMatchBruteForce) {
    // Runs of 1..17 labels (0 among them) that start at every offset from the blocks' edges,
    // shifted from row to row so that below-left and below-right pairs cross block edges too.
    for (std::int64_t w = 1; w <= 40; ++w)
        for (std::int64_t run : {1, 3, 7, 8, 9, 16, 17})
            for (std::int64_t shift : {0, 1, 5})
                for (int conn : {4, 8})
                    for (bool bg : {false, true}) {
                        const std::int64_t h = 4;
                        std::vector<std::uint32_t> l(std::size_t(w * h));
                        for (std::int64_t y = 0; y < h; ++y)
                            for (std::int64_t x = 0; x < w; ++x)
                                l[std::size_t(y * w + x)] = std::uint32_t(((x + y * shift) / run) % 3);
                        expect_brute_force(l, w, h, conn, bg, run % 2 ? 0 : 2,
                                           "width " + std::to_string(w) + ", runs of " + std::to_string(run) +
                                               " shifted " + std::to_string(shift) + ", conn " + std::to_string(conn) +
                                               (bg ? " bg" : ""));
                    }
}

TEST(Adjacency, QuadStepsHoldTheirNoisyLanes) {
    EXPECT_EQ(cd::quad_steps(0u), 0u);
    EXPECT_EQ(cd::quad_steps(1u), 1u);
    EXPECT_EQ(cd::quad_steps(0x80u), 1u);
    EXPECT_EQ(cd::quad_steps(0x100u), 2u);
    EXPECT_EQ(cd::quad_steps(0x80000000u), 8u);
    EXPECT_EQ(cd::quad_steps(0x00FF0001u), 5u);
    EXPECT_EQ(cd::quad_steps(0xFFFFFFFFu), 15u);
}

TEST(Adjacency, QuadQuietIsExactlyNoPairOwned) {
    // Every quad of labels 0..2 with its five neighbours' values, each edge flag, connectivity and
    // background choice: quad_quiet is true exactly when none of the four pixels owns a pair.
    std::uint64_t quiet = 0, cases = 0;
    for (std::uint32_t code = 0; code < 19683; code += 7) {  // 3^9 self/below/right pictures, sampled
        std::uint32_t c = code, self[4], below[4];
        for (auto& v : self) { v = c % 3; c /= 3; }
        for (auto& v : below) { v = c % 3; c /= 3; }
        const std::uint32_t right = c % 3, below_right = (code / 5) % 3, below_left = (code / 11) % 3;
        for (int flags = 0; flags < 8; ++flags)
            for (int conn : {4, 8})
                for (bool bg : {false, true}) {
                    const bool has_right = flags & 1, has_left = flags & 2, has_below = flags & 4;
                    bool owns = false;
                    for (int i = 0; i < 4; ++i) {
                        cd::LaneNeighbours n;
                        n.in = true;
                        n.has_right = i < 3 || has_right;
                        n.has_left = i > 0 || has_left;
                        n.has_below = has_below;
                        n.self = self[i];
                        n.right = i < 3 ? self[i + 1] : right;
                        n.below = below[i];
                        n.below_right = i < 3 ? below[i + 1] : below_right;
                        n.below_left = i > 0 ? below[i - 1] : below_left;
                        for (int d = 0; d < (conn == 8 ? 4 : 2); ++d) owns |= cd::neighbour_pair(n, d, bg) != cd::kNoPair;
                    }
                    const bool q = cd::quad_quiet(self, below, right, below_right, below_left, has_right, has_left,
                                                  has_below, conn, bg);
                    ASSERT_EQ(q, !owns) << "quad code " << code << " flags " << flags << " conn " << conn << (bg ? " bg" : "");
                    quiet += q;
                    ++cases;
                }
    }
    EXPECT_GT(quiet, 0u);
    EXPECT_LT(quiet, cases);
}

TEST(Adjacency, WidePicturesOfSparseBoundariesMatchBruteForce) {
    // Mostly one label (or background) with a few strokes: most quads of the quad program are
    // quiet, and widths around the 128-pixel quad tiles put the picture's edge inside a quad, at
    // a quad's end and at a tile's end.
    std::uint32_t seed = 41;
    for (std::int64_t w : {124, 127, 128, 129, 131, 252, 256, 259})
        for (std::uint32_t paper : {0u, 9u})
            for (int conn : {4, 8})
                for (bool bg : {false, true}) {
                    const std::int64_t h = 70;
                    std::mt19937 rng(seed++);
                    std::vector<std::uint32_t> l(std::size_t(w * h), paper);
                    for (int stroke = 0; stroke < 12; ++stroke) {
                        const std::int64_t x0 = rng() % w, y0 = rng() % h, len = 1 + rng() % 20;
                        const std::uint32_t v = 1 + rng() % 4;
                        const bool across = rng() % 2;
                        for (std::int64_t k = 0; k < len; ++k) {
                            const std::int64_t x = across ? x0 + k : x0, y = across ? y0 : y0 + k;
                            if (x < w && y < h) l[std::size_t(y * w + x)] = v;
                        }
                    }
                    expect_brute_force(l, w, h, conn, bg, w % 2 ? 4 : 0,
                                       "width " + std::to_string(w) + ", paper " + std::to_string(paper) + ", conn " +
                                           std::to_string(conn) + (bg ? " bg" : ""));
                }
}

TEST(Adjacency, ThreadCountsGiveIdenticalEdges) {
    // Enough distinct pairs that the bands' lists are split into several parts by key, sorted one
    // part a thread; a blocky picture with noise in places, so bands differ in their work.
    const std::int64_t w = 301, h = 173;
    std::vector<std::uint32_t> l(std::size_t(w * h));
    std::mt19937 rng(28);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
            l[std::size_t(y * w + x)] = (x / 50 + y / 40) % 2 ? std::uint32_t(1 + x / 50 + 10 * (y / 40))
                                                                 : std::uint32_t(rng() % 3000);
    for (int conn : {4, 8})
        for (bool bg : {false, true}) {
            const std::string what = "conn " + std::to_string(conn) + (bg ? " bg" : "");
            const auto one = adjacency(l.data(), w, h, conn, bg, 0, Backend::Cpu, 1);
            ASSERT_GT(one.size(), 10000u) << what;
            for (int threads = 2; threads <= 7; ++threads) {
                const auto many = adjacency(l.data(), w, h, conn, bg, 0, Backend::Cpu, threads);
                ASSERT_EQ(many.size(), one.size()) << what << " on " << threads << " threads";
                for (std::size_t i = 0; i < one.size(); ++i)
                    ASSERT_TRUE(many[i].a == one[i].a && many[i].b == one[i].b && many[i].contacts == one[i].contacts)
                        << what << " on " << threads << " threads, edge " << i;
            }
            expect_brute_force(l, w, h, conn, bg, 0, what);
        }
}

TEST(Adjacency, PairsThatKeepEvictingEachOtherAreSummed) {
    // 300 labels at random: 45,000 possible pairs, each met again and again but rarely twice in
    // a row, so the band's cache keeps evicting them and its list outgrows the band's pixels (at
    // least 2^16 entries); the list is then sorted and summed as it goes.
    const std::int64_t w = 400, h = 400;
    std::vector<std::uint32_t> l(std::size_t(w * h));
    std::mt19937 rng(5);
    for (auto& v : l) v = rng() % 300;
    expect_brute_force(l, w, h, 8, false, 0, "300 labels at random");
    expect_brute_force(l, w, h, 4, true, 0, "300 labels at random, conn 4, bg");
}

TEST(Adjacency, CountsSummedInABandsListStillFitBesideTheirPair) {
    // 220 labels of 28 bits at random on 1.7 million pixels: 24,000 pairs evict each other from
    // the cache (each list entry counts a few contacts) until the list is summed, and a summed
    // pair's count (about 300) no longer fits in the 8 bits its labels leave, so the sort must
    // take pair and count side by side.
    const std::int64_t w = 1300, h = 1300;
    std::vector<std::uint32_t> l(std::size_t(w * h));
    std::mt19937 rng(220);
    for (auto& v : l) v = (1u << 27) + rng() % 220;
    const auto one = adjacency(l.data(), w, h, 8, false, 0, Backend::Cpu, 1);
    const auto ref = brute_force(l, w, h, 8, false);
    ASSERT_EQ(one.size(), ref.size());
    auto it = ref.begin();
    for (const AdjacencyEdge& e : one) {
        ASSERT_TRUE(e.a == it->first.first && e.b == it->first.second && e.contacts == it->second)
            << "pair " << e.a << "-" << e.b;
        ++it;
    }
}

TEST(Adjacency, LabelsNearTheTopOfTheRange) {
    // Pairs packed for the sort use every bit of both labels.
    const std::uint32_t top = 0xFFFFFFFFu;
    std::vector<std::uint32_t> l = {top, top - 1, 1, 0, top, 2, top - 1, top, 1, 0, 3, top, top, top, 1, 2};
    for (int conn : {4, 8})
        for (bool bg : {false, true}) expect_brute_force(l, 4, 4, conn, bg, 1, "labels near 2^32");
    std::vector<std::uint32_t> big(std::size_t(97 * 61));
    std::mt19937 rng(11);
    for (auto& v : big) v = rng() % 2 ? top - rng() % 50 : rng() % 50;
    expect_brute_force(big, 97, 61, 8, true, 0, "labels at both ends of the range");
    // Labels of 28 bits leave 8 bits beside a pair for its count, too few for 300 contacts: the
    // sort takes pair and count side by side instead of in one word.
    const std::int64_t w = 300;
    std::vector<std::uint32_t> two(std::size_t(2 * w), 1);
    for (std::int64_t x = 0; x < w; ++x) two[std::size_t(w + x)] = (1u << 28) - 1;
    for (int conn : {4, 8}) expect_brute_force(two, w, 2, conn, false, 0, "a long boundary between 28-bit labels");
}

TEST(Adjacency, AnEdgeListOfMegabytesMatchesBruteForce) {
    // A label a pixel: 1.2 million edges, 19 MB of result, whose room is faulted in on several
    // threads before it is written (core/huge_pages.hpp's populate_for_writing).
    const std::int64_t w = 700, h = 600;
    std::vector<std::uint32_t> l(std::size_t(w * h));
    std::mt19937 rng(11);
    for (std::size_t i = 0; i < l.size(); ++i) l[i] = std::uint32_t(i + 1);
    std::shuffle(l.begin(), l.end(), rng);
    for (int threads : {1, 3}) {
        const auto edges = adjacency(l.data(), w, h, 8, false, 0, Backend::Cpu, threads);
        ASSERT_GT(edges.size() * sizeof(AdjacencyEdge), std::size_t(8) << 20);
    }
    expect_brute_force(l, w, h, 8, false, 0, "a label a pixel");
}

TEST(HugePages, PopulatingLeavesWhatTheMemoryHolds) {
    // Prefaulting a buffer must not change a byte of it: written pages keep their contents, and
    // reserved capacity (never written) reads as whatever it is after, as the vector fills it.
    std::vector<std::uint64_t> v(std::size_t(3) << 20);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = i * 0x9E3779B97F4A7C15ull;
    for (int threads : {1, 4}) {
        cclabel::detail::populate_for_writing(reinterpret_cast<char*>(v.data()) + 3, v.size() * 8 - 5, threads);
        for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i * 0x9E3779B97F4A7C15ull) << i;
    }
    std::vector<std::uint64_t> r;
    r.reserve(std::size_t(2) << 20);
    cclabel::detail::populate_for_writing(r.data(), r.capacity() * 8, 2);
    r.assign(v.begin(), v.begin() + std::ptrdiff_t(r.capacity()));
    for (std::size_t i = 0; i < r.size(); ++i) ASSERT_EQ(r[i], v[i]) << i;
    cclabel::detail::populate_for_writing(nullptr, 0, 2);  // nothing to do
}

TEST(Adjacency, RunLengthsEndAtTheNextHead) {
    EXPECT_EQ(cd::run_length(1u, 0), 32u);
    EXPECT_EQ(cd::run_length(0x80000001u, 0), 31u);
    EXPECT_EQ(cd::run_length(0x80000001u, 31), 1u);
    EXPECT_EQ(cd::run_length(0b10110u, 1), 1u);
    EXPECT_EQ(cd::run_length(0b10110u, 2), 2u);
    EXPECT_EQ(cd::run_length(0b10110u, 4), 28u);
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
    EXPECT_THROW(adjacency(l, 2, 2, 8, false, 0, Backend::Cpu, -1), Error);
    if (!cuda_available()) EXPECT_THROW(adjacency(l, 2, 2, 8, false, 0, Backend::Cuda), Error);
}

}  // namespace
}  // namespace cclabel::test
