// The tile API and label_tiled(): tiled equals untiled (label() and the flood-fill reference) on
// random and adversarial pictures for many tile shapes (1 row, 1 column, 1x1, larger than the
// image, ragged, seam-aligned patterns, seams cutting every region, corner-only contacts); the
// steps driven by hand as an outside scheduler would (irregular tiles, copied, out of order);
// 64-bit labels, including past a lowered label limit; every error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <random>
#include <set>

#include "cclabel/cclabel.hpp"
#include "cclabel/tiles.hpp"
#include "core/tiles_limit.hpp"
#include "cpp/label_check.hpp"
#include "support/adversarial.hpp"

namespace cclabel::test {
namespace {

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

using Size = std::pair<std::int64_t, std::int64_t>;

std::string tiling(Size t) { return " tiles " + std::to_string(t.first) + "x" + std::to_string(t.second); }

// label_tiled (uint32 and, where asked, uint64) against @p want, value for value.
void expect_tiled(const ImageView& view, const Options& o, Size tile, const std::vector<std::uint32_t>& want,
                  std::uint32_t n_want, bool wide, const std::string& what) {
    std::vector<std::uint32_t> got(want.size() + 1, 0xA5A5A5A5u);
    const TiledResult r = label_tiled(view, got.data(), o, tile.first, tile.second);
    ASSERT_EQ(r.count, n_want) << what;
    ASSERT_EQ(got.back(), 0xA5A5A5A5u) << what << ": wrote past the output";
    for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got[i], want[i]) << what << " at (" << i % std::size_t(view.width) << ", "
                                   << i / std::size_t(view.width) << ")";
    if (!wide) return;
    std::vector<std::uint64_t> got64(want.size() + 1, 0xA5A5A5A5A5A5ull);
    const TiledResult r64 = label_tiled(view, got64.data(), o, tile.first, tile.second);
    ASSERT_EQ(r64.count, n_want) << what << " (uint64)";
    ASSERT_EQ(got64.back(), 0xA5A5A5A5A5A5ull) << what << " (uint64): wrote past the output";
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got64[i], want[i]) << what << " (uint64) at " << i;
}

TEST(Tiles, RandomImagesEveryFormatAndTileShape) {
    const Size sizes[] = {{1, 1}, {1, 9}, {9, 1}, {5, 5}, {17, 9}, {33, 31}, {64, 23}};
    std::uint32_t seed = 1;
    for (auto [w, h] : sizes)
        for (PixelFormat f : kFormats)
            for (std::uint64_t palette : {2, 3, 16}) {
                const TestImage img = make_image(w, h, f, random_values(w, h, palette, 0.2, seed++), seed % 3, seed % 2);
                const Size tiles[] = {{1, 1}, {w, 1},  {1, h},  {1, 3},  {3, 1},        {2, 2},
                                      {3, 5}, {7, 4},  {16, 16}, {w, h}, {1000, 1000}, {w - 1 > 0 ? w - 1 : 1, 2}};
                for (int conn : {4, 8})
                    for (auto bg : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0}}) {
                        if (f == PixelFormat::Binary8 && !bg) continue;
                        std::uint32_t n_ref = 0;
                        const auto ref = flood_fill(img.values, w, h, conn, reference_background(f, bg), &n_ref);
                        int k = 0;
                        for (Size t : tiles) {
                            const Options o = make_options(img, conn, bg, 1 + k % 3);
                            const std::string what = std::to_string(w) + "x" + std::to_string(h) + " " +
                                                     std::string(format_name(f)) + " palette " + std::to_string(palette) +
                                                     " conn " + std::to_string(conn) + (bg ? " bg" : "") + tiling(t);
                            expect_tiled(img.view(), o, t, ref, n_ref, k++ % 4 == 0, what);
                            if (HasFailure()) return;
                        }
                    }
            }
}

// TESTING.md's adversarial pictures, generated with 7x5 as "the tile" so that the seam-aligned
// cases (A15 tile corners, A31 run boundaries, A32 seam lines) sit on label_tiled's seams. The
// first tiling of each case is checked with 64-bit labels too.
constexpr Size kAdversarialTile{7, 5};

const std::vector<CaseMaker>& makers() {
    static const std::vector<CaseMaker> ms = adversarial_makers(false, kAdversarialTile.first, kAdversarialTile.second);
    return ms;
}

class TilesAdversarial : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TilesAdversarial, TiledEqualsUntiled) {
    const Case c = makers()[GetParam()].make();
    const std::int64_t w = c.width, h = c.height;
    // Tiny tiles (many thousands of tiles) on the smaller pictures only, to keep the suite fast;
    // the large ones (up to 1 Mpx) get bands of rows and of columns instead of single ones.
    std::vector<Size> tiles{{64, 64}, {w / 2 + 1, h / 3 + 1}};
    if (w * h <= 300000) {
        tiles.insert(tiles.begin(), kAdversarialTile);
        if (h <= 4096) tiles.push_back({w, 1});
        if (w <= 4096) tiles.push_back({1, h});
        if (w * h <= 4096) tiles.push_back({1, 1});
    } else {
        tiles.push_back({w, 37});
        tiles.push_back({13, h});
    }
    std::vector<PixelFormat> formats{PixelFormat::U32};
    if (c.binary) formats.push_back(PixelFormat::Binary8);
    for (PixelFormat f : formats) {
        const TestImage img = make_image(w, h, f, c.v, 0, 0);
        for (int conn : {4, 8})
            for (auto bg : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0}}) {
                if (f == PixelFormat::Binary8 && !bg) continue;
                const Options o = make_options(img, conn, bg, 2);
                std::vector<std::uint32_t> want(std::size_t(w * h));
                const std::uint32_t n = label(img.view(), want.data(), o).count;
                for (std::size_t k = 0; k < tiles.size(); ++k) {
                    const std::string what = c.name + " " + std::string(format_name(f)) + " conn " +
                                             std::to_string(conn) + (bg ? " bg" : "") + tiling(tiles[k]);
                    expect_tiled(img.view(), o, tiles[k], want, n, k == 0, what);
                    if (HasFailure()) return;
                }
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, TilesAdversarial, ::testing::Range<std::size_t>(0, makers().size()),
                         [](const auto& info) {
                             std::string n = std::to_string(info.param) + "_" + makers()[info.param].name;
                             for (char& ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });

// How many tiles of @p tile the pixels of each region of @p labels lie in.
std::vector<std::set<std::uint64_t>> tiles_of_regions(const std::vector<std::uint32_t>& labels, std::uint32_t n,
                                                      std::int64_t w, Size tile) {
    std::vector<std::set<std::uint64_t>> s(n + 1);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::int64_t x = std::int64_t(i) % w, y = std::int64_t(i) / w;
        s[labels[i]].insert(std::uint64_t(y / tile.second) << 32 | std::uint64_t(x / tile.first));
    }
    return s;
}

// Stripes two pixels wide, shifted by one against 2-wide tiles: every region is cut by a seam.
TEST(Tiles, SeamsCutEveryRegion) {
    for (bool vertical : {true, false}) {
        const std::int64_t w = vertical ? 21 : 13, h = vertical ? 13 : 21;
        std::vector<std::uint64_t> v(std::size_t(w * h));
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                const std::int64_t s = ((vertical ? x : y) + 1) / 2;  // stripe s covers 2s - 1, 2s
                v[std::size_t(y * w + x)] = 1 + (s == 0 ? 1 : s) % 2;  // stripe 0 (one pixel) joins stripe 1
            }
        for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8})
            for (int conn : {4, 8})
                for (std::int64_t across : {1, 2, 5, 100}) {
                    const Size tile = vertical ? Size{2, across} : Size{across, 2};
                    const TestImage img = make_image(w, h, f, v);
                    std::uint32_t n = 0;
                    const auto ref = flood_fill(img.values, w, h, conn, std::nullopt, &n);
                    const auto where = tiles_of_regions(ref, n, w, tile);
                    for (std::uint32_t l = 1; l <= n; ++l)
                        ASSERT_GE(where[l].size(), 2u) << "test image: region " << l << " is not cut";
                    expect_tiled(img.view(), make_options(img, conn, std::nullopt, 2), tile, ref, n, true,
                                 std::string(vertical ? "vertical" : "horizontal") + " stripes " +
                                     std::string(format_name(f)) + " conn " + std::to_string(conn) + tiling(tile));
                }
    }
}

// Pairs of pixels touching only diagonally across every tile corner (both diagonals), on a
// background: 8-connectivity joins each pair through a corner seam, 4-connectivity does not.
TEST(Tiles, DiagonalContactsAtTileCorners) {
    for (Size tile : {Size{1, 1}, Size{2, 2}, Size{3, 2}, Size{4, 5}}) {
        const std::int64_t tw = tile.first, th = tile.second;
        // Corners used are at least 3 pixels apart, so that the pairs do not touch each other.
        const std::int64_t si = (3 + tw - 1) / tw, sj = (3 + th - 1) / th, cols = 5 * si, rows = 4 * sj;
        const std::int64_t w = tw * cols, h = th * rows;
        std::vector<std::uint64_t> v(std::size_t(w * h), 0);
        std::uint32_t pairs = 0;
        std::uint64_t colour = 1;
        for (std::int64_t j = sj; j < rows; j += sj)
            for (std::int64_t i = si; i < cols; i += si, ++colour) {
                const std::int64_t x = i * tw, y = j * th;  // the corner between four tiles
                if ((i / si + j / sj) % 2 == 0) {  // "\": up-left tile to down-right tile
                    v[std::size_t((y - 1) * w + x - 1)] = colour;
                    v[std::size_t(y * w + x)] = colour;
                } else {  // "/": up-right tile to down-left tile
                    v[std::size_t((y - 1) * w + x)] = colour;
                    v[std::size_t(y * w + x - 1)] = colour;
                }
                ++pairs;
            }
        for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::U32, PixelFormat::RGBA8})
            for (int conn : {4, 8}) {
                const TestImage img = make_image(w, h, f, v);
                std::uint32_t n = 0;
                const auto ref = flood_fill(img.values, w, h, conn, 0, &n);
                ASSERT_EQ(n, conn == 8 ? pairs : 2 * pairs) << "reference";
                expect_tiled(img.view(), make_options(img, conn, 0, 2), tile, ref, n, true,
                             std::string(format_name(f)) + " conn " + std::to_string(conn) + tiling(tile));
            }
    }
}

TEST(Tiles, ThreadCountsGiveTheSameLabels) {
    const TestImage img = make_image(97, 61, PixelFormat::Gray8, random_values(97, 61, 3, 0.1, 42));
    std::uint32_t n = 0;
    const auto ref = flood_fill(img.values, 97, 61, 8, std::nullopt, &n);
    for (int threads : {0, 1, 2, 3, 7, 64})
        expect_tiled(img.view(), make_options(img, 8, std::nullopt, threads), {10, 9}, ref, n, false,
                     "threads " + std::to_string(threads));
}

TEST(Tiles, EmptyImages) {
    for (Size s : {Size{0, 0}, Size{0, 5}, Size{5, 0}}) {
        Options o;
        std::uint32_t out32 = 7;
        std::uint64_t out64 = 7;
        EXPECT_EQ(label_tiled(make_view(nullptr, s.first, s.second, PixelFormat::Gray8), &out32, o, 3, 3).count, 0u);
        EXPECT_EQ(label_tiled(make_view(nullptr, s.first, s.second, PixelFormat::Gray8), &out64, o, 3, 3).count, 0u);
        EXPECT_EQ(label_tiled(make_view(nullptr, s.first, s.second, PixelFormat::Gray8), (std::uint32_t*)nullptr, o, 3, 3).count, 0u);
        EXPECT_EQ(out32, 7u);
        EXPECT_EQ(out64, 7u);
    }
}

// label_tile on a sub-view: the local labels are label() of the tile, first_index and the border
// are what a direct reading of the picture and those labels gives.
TEST(Tiles, LabelTileTablesMatchDirectComputation) {
    const std::int64_t W = 41, H = 29;
    for (PixelFormat f : kFormats) {
        const TestImage img = make_image(W, H, f, random_values(W, H, 4, 0.3, 7), 3, 1);
        const TileRect r{11, 6, 17, 13};
        const ImageView tv = tile_view(img.view(), r);
        Options o;
        o.connectivity = 4;
        if (f != PixelFormat::Binary8) o.background = background_channels(f, 0);
        std::vector<std::uint32_t> local(std::size_t(r.width * r.height)), direct(local.size());
        const TileInfo info = label_tile(tv, r.x0, r.y0, W, local.data(), o);
        const std::uint32_t n = label(tv, direct.data(), o).count;
        ASSERT_EQ(local, direct);
        ASSERT_EQ(info.count(), n);
        EXPECT_EQ(info.image_width, W);
        EXPECT_EQ(info.rect.x0, r.x0);
        EXPECT_EQ(info.rect.height, r.height);
        std::vector<std::uint64_t> first(n, ~std::uint64_t(0));
        for (std::int64_t y = 0; y < r.height; ++y)
            for (std::int64_t x = 0; x < r.width; ++x)
                if (const std::uint32_t l = local[std::size_t(y * r.width + x)])
                    first[l - 1] = std::min(first[l - 1], std::uint64_t((r.y0 + y) * W + r.x0 + x));
        EXPECT_EQ(info.first_index, first) << format_name(f);
        // The border ring: top, bottom, left, right; keys equal exactly when colour classes are equal.
        std::vector<std::pair<std::int64_t, std::int64_t>> ring;
        for (std::int64_t x = 0; x < r.width; ++x) ring.push_back({x, 0});
        for (std::int64_t x = 0; x < r.width; ++x) ring.push_back({x, r.height - 1});
        for (std::int64_t y = 0; y < r.height; ++y) ring.push_back({0, y});
        for (std::int64_t y = 0; y < r.height; ++y) ring.push_back({r.width - 1, y});
        ASSERT_EQ(info.edge_labels.size(), ring.size());
        ASSERT_EQ(info.edge_keys.size(), ring.size());
        for (std::size_t i = 0; i < ring.size(); ++i) {
            const auto [x, y] = ring[i];
            EXPECT_EQ(info.edge_labels[i], local[std::size_t(y * r.width + x)]) << "border entry " << i;
            for (std::size_t j = 0; j < ring.size(); j += 7) {
                const auto [x2, y2] = ring[j];
                const bool same = img.values[std::size_t((r.y0 + y) * W + r.x0 + x)] ==
                                  img.values[std::size_t((r.y0 + y2) * W + r.x0 + x2)];
                ASSERT_EQ(info.edge_keys[i] == info.edge_keys[j], same) << format_name(f) << " entries " << i << ", " << j;
            }
        }
    }
}

// Two 2x2 tiles meeting only at a corner: one pair under 8-connectivity, none under 4; either
// argument order gives the pair in (a, b) order.
TEST(Tiles, SeamAtACornerOnly) {
    const std::uint8_t px[16] = {1, 2, 0, 0,   //
                                 3, 5, 0, 0,   //
                                 0, 0, 5, 4,   //
                                 0, 0, 6, 7};
    const ImageView img = make_view(px, 4, 4, PixelFormat::Gray8);
    Options o;
    o.background = std::vector<std::uint64_t>{0};
    std::uint32_t la[4], lb[4];
    const TileInfo a = label_tile(tile_view(img, {0, 0, 2, 2}), 0, 0, 4, la, o);
    const TileInfo b = label_tile(tile_view(img, {2, 2, 2, 2}), 2, 2, 4, lb, o);
    EXPECT_EQ(seam_equivalences(a, b, 8), (std::vector<std::uint32_t>{4, 1}));  // the 5s: label 4 in a, 1 in b
    EXPECT_EQ(seam_equivalences(b, a, 8), (std::vector<std::uint32_t>{1, 4}));
    EXPECT_TRUE(seam_equivalences(a, b, 4).empty());
    const TileInfo c = label_tile(tile_view(img, {2, 0, 2, 2}), 2, 0, 4, la, o);  // all background
    EXPECT_TRUE(seam_equivalences(a, c, 8).empty());
}

// An outside scheduler: irregular tiles (rows of different tile widths), each copied into its own
// packed buffer as a chunk would arrive, labelled in a shuffled order; seams asked of every pair
// of tiles (non-touching pairs give none) in another order; resolved; relabelled into the image.
TEST(Tiles, StepsDrivenByHandOutOfOrder) {
    const std::int64_t W = 53, H = 37;
    const std::vector<std::int64_t> row_heights{5, 11, 1, 13, 7};
    const std::vector<std::vector<std::int64_t>> col_widths{{53}, {10, 20, 23}, {1, 1, 51}, {7, 7, 7, 7, 7, 7, 11}, {30, 23}};
    std::vector<TileRect> rects;
    std::int64_t y = 0;
    for (std::size_t j = 0; j < row_heights.size(); ++j) {
        std::int64_t x = 0;
        for (std::int64_t cw : col_widths[j]) {
            rects.push_back({x, y, cw, row_heights[j]});
            x += cw;
        }
        ASSERT_EQ(x, W);
        y += row_heights[j];
    }
    ASSERT_EQ(y, H);
    std::mt19937 rng(5);
    for (PixelFormat f : {PixelFormat::RGB8, PixelFormat::Gray16, PixelFormat::Binary8})
        for (int conn : {4, 8}) {
            const TestImage img = make_image(W, H, f, random_values(W, H, 3, 0.15, std::uint32_t(conn) + 17), 2, 0);
            Options o;
            o.connectivity = conn;
            if (f != PixelFormat::Binary8) o.background = background_channels(f, 0);
            const int bpp = bytes_per_pixel(f);
            std::vector<std::size_t> order(rects.size());
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
            std::vector<TileInfo> infos(rects.size());
            std::vector<std::vector<std::uint32_t>> local(rects.size());
            for (std::size_t t : order) {
                const TileRect& r = rects[t];
                std::vector<std::uint8_t> chunk(std::size_t(r.width * r.height * bpp));
                const ImageView src = tile_view(img.view(), r);
                for (std::int64_t yy = 0; yy < r.height; ++yy)
                    std::copy_n(static_cast<const std::uint8_t*>(src.data) + yy * src.stride, r.width * bpp,
                                chunk.data() + yy * r.width * bpp);
                local[t].resize(std::size_t(r.width * r.height));
                infos[t] = label_tile(make_view(chunk.data(), r.width, r.height, f), r.x0, r.y0, W, local[t].data(), o);
            }
            std::vector<Seam> seams;
            for (std::size_t a = 0; a < rects.size(); ++a)
                for (std::size_t b = a + 1; b < rects.size(); ++b) {
                    const bool flip = rng() % 2;  // each pair once, in a random direction
                    const std::size_t p = flip ? b : a, q = flip ? a : b;
                    Seam s{p, q, seam_equivalences(infos[p], infos[q], conn)};
                    if (!s.pairs.empty()) seams.push_back(std::move(s));
                }
            std::shuffle(seams.begin(), seams.end(), rng);
            std::vector<std::vector<std::uint64_t>> first;
            for (const TileInfo& i : infos) first.push_back(i.first_index);
            const Resolution res = resolve_tiles(first, seams);
            std::vector<std::uint32_t> got(std::size_t(W * H), 0xDEADBEEF);
            std::vector<std::uint64_t> got64(std::size_t(W * H), 0xDEADBEEF);
            for (std::size_t t : order) {
                const TileRect& r = rects[t];
                relabel_tile(local[t].data(), r.width, r.height, res.maps[t], got.data() + r.y0 * W + r.x0, W);
                relabel_tile(local[t].data(), r.width, r.height, res.maps[t], got64.data() + r.y0 * W + r.x0, W);
            }
            std::uint32_t n = 0;
            const auto ref = flood_fill(img.values, W, H, conn, reference_background(f, 0), &n);
            const std::string what = std::string(format_name(f)) + " conn " + std::to_string(conn);
            ASSERT_EQ(res.count, n) << what;
            ASSERT_EQ(got, ref) << what;
            ASSERT_TRUE(std::equal(got64.begin(), got64.end(), ref.begin())) << what;
        }
}

// A RAII guard for the test hook that lowers the tiled path's label limit.
struct LabelLimit {
    explicit LabelLimit(std::uint64_t l) { detail::set_tiled_label_limit_for_testing(l); }
    ~LabelLimit() { detail::set_tiled_label_limit_for_testing(0); }
};

// With the limit lowered to 1000, a 64x48 image is "too large for uint32 labels": the uint32 call
// refuses it, the uint64 call labels it tile by tile (tiles of at most 1000 pixels) and equals
// label(); with all pixels distinct N = 3072 exceeds the limit and only 64-bit relabelling works.
// resolve_tiles above 2^18 labels numbers in bands on several threads: the same maps and count on
// 1, 2, 3 and all cores (threads 0), with seams joining labels across tiles and bands.
TEST(Tiles, ResolveGivesTheSameOnAnyThreadCount) {
    std::mt19937_64 rng(77);
    const std::size_t tiles = 5, per = 70000;  // 350,000 labels: above the one-band limit
    std::vector<std::vector<std::uint64_t>> first(tiles);
    std::vector<std::uint64_t> all(tiles * per);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    for (std::size_t t = 0; t < tiles; ++t) {
        first[t].assign(all.begin() + std::ptrdiff_t(t * per), all.begin() + std::ptrdiff_t((t + 1) * per));
        for (auto& v : first[t]) v = v * 3 + t % 3;  // distinct global indices, spread over the range
        std::sort(first[t].begin(), first[t].end());
    }
    std::vector<Seam> seams;
    for (std::uint64_t a = 0; a + 1 < tiles; ++a) {
        Seam s{a, a + 1, {}};
        for (int k = 0; k < 3000; ++k) {
            s.pairs.push_back(std::uint32_t(1 + rng() % per));
            s.pairs.push_back(std::uint32_t(1 + rng() % per));
        }
        seams.push_back(std::move(s));
    }
    const Resolution one = resolve_tiles(first, seams, 1);
    EXPECT_LT(one.count, tiles * per);  // the seams joined some labels
    EXPECT_GT(one.count, tiles * per / 2);
    for (int threads : {2, 3, 0}) {
        const Resolution r = resolve_tiles(first, seams, threads);
        EXPECT_EQ(r.count, one.count) << threads << " threads";
        EXPECT_TRUE(r.maps == one.maps) << threads << " threads";
    }
    EXPECT_THROW(resolve_tiles(first, seams, -1), Error);
}

// Overlapping tiles of many labels, claiming two pixels twice (one low, one high in the index range):
// whatever the thread count and timing, the error names the lowest.
TEST(Tiles, ResolveReportsTheLowestClashOnAnyThreadCount) {
    const std::uint64_t n = 200000;
    std::vector<std::vector<std::uint64_t>> first(2);
    for (std::uint64_t i = 0; i < n; ++i) first[0].push_back(2 * i);
    for (std::uint64_t i = 0; i < n; ++i) {
        if (i == 5) first[1].push_back(10);  // before 11
        first[1].push_back(2 * i + 1);
        if (i == n - 2) first[1].push_back(2 * n - 2);  // after 2n − 3
    }
    for (int threads : {1, 2, 3, 0})
        for (int rep = 0; rep < 3; ++rep) {
            try {
                resolve_tiles(first, {}, threads);
                ADD_FAILURE() << "no error on " << threads << " threads";
            } catch (const Error& e) {
                EXPECT_NE(std::string(e.what()).find("both claim global pixel 10 "), std::string::npos)
                    << threads << " threads: " << e.what();
            }
        }
}

TEST(Tiles, SixtyFourBitPathPastALoweredLimit) {
    const std::int64_t W = 64, H = 48;
    for (std::uint64_t palette : {std::uint64_t(3), std::uint64_t(0)}) {
        const TestImage img = make_image(W, H, PixelFormat::U32, random_values(W, H, palette, 0.0, 9));
        std::vector<std::uint32_t> want(std::size_t(W * H));
        Options o;
        const std::uint32_t n = label(img.view(), want.data(), o).count;
        if (palette == 0) ASSERT_EQ(n, std::uint32_t(W * H));
        const LabelLimit limit(1000);
        std::vector<std::uint32_t> out32(want.size());
        EXPECT_THROW(label_tiled(img.view(), out32.data(), o, 16, 16), Error);
        for (Size t : {Size{20, 20}, Size{64, 15}, Size{1, 48}, Size{7, 3}}) {
            std::vector<std::uint64_t> out(want.size() + 1, 0x5A5A);
            const TiledResult r = label_tiled(img.view(), out.data(), o, t.first, t.second);
            EXPECT_EQ(r.count, n) << tiling(t);
            EXPECT_EQ(out.back(), 0x5A5Au);
            EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin())) << "palette " << palette << tiling(t);
        }
        std::vector<std::uint64_t> out(want.size());
        EXPECT_THROW(label_tiled(img.view(), out.data(), o, 40, 40), Error);  // 1600-pixel tiles
        // Resolving by hand: the maps hold labels above the limit, so uint32 relabelling refuses.
        const TileRect r{0, 0, 20, 20};
        std::vector<std::uint32_t> local(400);
        const TileInfo info = label_tile(tile_view(img.view(), r), 0, 0, W, local.data(), o);
        const Resolution res = resolve_tiles({info.first_index}, {});
        std::vector<std::uint64_t> map = res.maps[0];
        for (auto& m : map) m = m ? m + 2000 : 0;  // as the tile's labels would be deep in a large image
        std::vector<std::uint32_t> o32(400);
        std::vector<std::uint64_t> o64(400);
        EXPECT_THROW(relabel_tile(local.data(), 20, 20, map, o32.data(), 20), Error);
        relabel_tile(local.data(), 20, 20, map, o64.data(), 20);
        for (std::size_t i = 0; i < 400; ++i) EXPECT_EQ(o64[i], local[i] + 2000u);
    }
}

template <typename Fn>
void expect_error(Fn&& fn, const std::string& fragment) {
    try {
        fn();
        ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "multi-line: " << e.what();
    }
}

TEST(Tiles, Errors) {
    std::vector<std::uint8_t> px(100, 1);
    const ImageView img = make_view(px.data(), 10, 10, PixelFormat::Gray8);
    std::vector<std::uint32_t> out(100);
    std::vector<std::uint64_t> out64(100);
    const Options o;
    for (Size t : {Size{0, 4}, Size{4, 0}, Size{-1, 4}, Size{4, -3}}) {
        expect_error([&] { label_tiled(img, out.data(), o, t.first, t.second); }, "tile size");
        expect_error([&] { label_tiled(img, out64.data(), o, t.first, t.second); }, "tile size");
    }
    expect_error([&] { label_tiled(img, (std::uint32_t*)nullptr, o, 4, 4); }, "null");
    expect_error([&] { label_tiled(img, (std::uint64_t*)nullptr, o, 4, 4); }, "null");
    expect_error([&] { label_tiled(make_view(nullptr, 10, 10, PixelFormat::Gray8), out64.data(), o, 4, 4); }, "null");
    expect_error([&] { label_tiled(make_view(px.data(), -1, 10, PixelFormat::Gray8), out64.data(), o, 4, 4); }, "negative");
    expect_error([&] { label_tiled(make_view(px.data(), 10, 10, PixelFormat::Gray8, 5), out64.data(), o, 4, 4); }, "stride");
    expect_error([&] { label_tiled(make_view(px.data(), 10, 10, PixelFormat::Gray8, -10), out64.data(), o, 4, 4); },
                 "stride");
    expect_error([&] { label_tiled(make_view(px.data(), 10, 10, PixelFormat(99)), out64.data(), o, 4, 4); }, "format");
    Options bad = o;
    bad.connectivity = 6;
    expect_error([&] { label_tiled(img, out64.data(), bad, 4, 4); }, "connectivity");
    bad = o;
    bad.background = std::vector<std::uint64_t>{1, 2, 3};
    expect_error([&] { label_tiled(img, out64.data(), bad, 4, 4); }, "background");
    // Sizes past the limits, with a dummy pointer that nothing reads.
    const ImageView huge = make_view(px.data(), 65536, 65536, PixelFormat::Gray8);
    expect_error([&] { label_tiled(huge, out.data(), o, 1024, 1024); }, "4294967295");
    expect_error([&] { label_tiled(huge, out64.data(), o, 65536, 65536); }, "tiles of 65536 x 65536");
    expect_error([&] { label_tiled(make_view(px.data(), std::int64_t(1) << 40, std::int64_t(1) << 40, PixelFormat::Gray8),
                                   out64.data(), o, 1024, 1024); },
                 "2^63");

    // tile_view and label_tile.
    expect_error([&] { tile_view(img, {8, 0, 3, 2}); }, "not inside");
    expect_error([&] { tile_view(img, {0, 9, 1, 2}); }, "not inside");
    expect_error([&] { tile_view(img, {-1, 0, 3, 2}); }, "negative");
    expect_error([&] { label_tile(tile_view(img, {0, 0, 4, 4}), -1, 0, 10, out.data(), o); }, "negative");
    expect_error([&] { label_tile(tile_view(img, {0, 0, 4, 4}), 7, 0, 10, out.data(), o); }, "past the image width");
    expect_error([&] { label_tile(tile_view(img, {0, 0, 4, 4}), 0, 0, 10, nullptr, o); }, "null");

    // seam_equivalences.
    std::uint32_t la[16], lb[16];
    const TileInfo a = label_tile(tile_view(img, {0, 0, 4, 4}), 0, 0, 10, la, o);
    const TileInfo b = label_tile(tile_view(img, {4, 0, 4, 4}), 4, 0, 10, lb, o);
    EXPECT_EQ(seam_equivalences(a, b, 4), (std::vector<std::uint32_t>{1, 1}));
    expect_error([&] { seam_equivalences(a, b, 6); }, "connectivity");
    expect_error([&] { seam_equivalences(a, a, 8); }, "overlap");
    TileInfo odd = b;
    odd.image_width = 11;
    expect_error([&] { seam_equivalences(a, odd, 8); }, "different widths");
    odd = b;
    odd.edge_keys.pop_back();
    expect_error([&] { seam_equivalences(a, odd, 8); }, "edge keys");
    odd = b;
    odd.edge_labels[3] = 2;
    expect_error([&] { seam_equivalences(a, odd, 8); }, "edge label 2");

    // resolve_tiles.
    const std::vector<std::vector<std::uint64_t>> first{a.first_index, b.first_index};
    expect_error([&] { resolve_tiles(first, {Seam{0, 2, {1, 1}}}); }, "names tile 2");
    expect_error([&] { resolve_tiles(first, {Seam{0, 1, {1}}}); }, "odd number");
    expect_error([&] { resolve_tiles(first, {Seam{0, 1, {1, 2}}}); }, "pairs labels 1 and 2");
    expect_error([&] { resolve_tiles(first, {Seam{0, 1, {0, 1}}}); }, "pairs labels 0 and 1");
    expect_error([&] { resolve_tiles({{5, 3}}, {}); }, "not strictly ascending");
    expect_error([&] { resolve_tiles({{5}, {5}}, {}); }, "both claim global pixel 5");
    const Resolution res = resolve_tiles(first, {Seam{0, 1, {1, 1}}});
    EXPECT_EQ(res.count, 1u);

    // relabel_tile.
    std::vector<std::uint32_t> dst(16);
    expect_error([&] { relabel_tile(la, 4, 4, {0}, dst.data(), 4); }, "no entry");
    expect_error([&] { relabel_tile(la, 4, 4, res.maps[0], dst.data(), 3); }, "stride");
    expect_error([&] { relabel_tile(la, 4, 4, {7, 1}, dst.data(), 4); }, "map[0]");
    expect_error([&] { relabel_tile(nullptr, 4, 4, res.maps[0], dst.data(), 4); }, "null");
    expect_error([&] { relabel_tile(la, -4, 4, res.maps[0], dst.data(), 4); }, "negative");
}

}  // namespace
}  // namespace cclabel::test
