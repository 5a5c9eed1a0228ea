// The host-and-device pieces of the GPU tile pipeline (src/core/tile_grid.hpp), checked on the CPU
// (CI has no GPU): the grid covers the image exactly; ring_pixel() reproduces label_tile()'s border
// layout; the run-start rule finds every label's first pixel (what first_kernel computes with
// atomicMin); and the whole pipeline as the GPU runs it — tiles labelled on their own, borders
// gathered with ring_pixel, first pixels from run starts, grid_seams, resolve_tiles, relabelling —
// equals label() on random and adversarial pictures.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "cclabel/cclabel.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/tiles.hpp"
#include "core/tile_grid.hpp"
#include "support/adversarial.hpp"
#include "support/test_image.hpp"

namespace cclabel::test {
namespace {

using detail::TileGrid;
using Size = std::pair<std::int64_t, std::int64_t>;

TEST(TileGrid, CoversTheImageExactlyOnce) {
    for (Size img : {Size{1, 1}, Size{10, 7}, Size{33, 1}, Size{1, 33}, Size{64, 64}})
        for (Size t : {Size{1, 1}, Size{3, 2}, Size{10, 7}, Size{64, 64}, Size{100, 1}, Size{1, 100}}) {
            const TileGrid g(img.first, img.second, t.first, t.second);
            std::vector<int> hits(std::size_t(img.first * img.second), 0);
            for (std::uint64_t k = 0; k < g.count(); ++k) {
                const TileRect r = g.rect(k);
                ASSERT_GE(r.width, 1);
                ASSERT_GE(r.height, 1);
                ASSERT_LE(std::uint64_t(r.width) * std::uint64_t(r.height), g.max_tile_pixels());
                for (std::int64_t y = r.y0; y < r.y0 + r.height; ++y)
                    for (std::int64_t x = r.x0; x < r.x0 + r.width; ++x) ++hits[std::size_t(y * img.first + x)];
            }
            EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }))
                << img.first << "x" << img.second << " tiles " << t.first << "x" << t.second;
        }
    EXPECT_EQ(TileGrid(0, 5, 2, 2).count(), 0u);
}

TEST(TileGrid, RingPixelIsTheBorderLayout) {
    for (Size s : {Size{1, 1}, Size{1, 5}, Size{5, 1}, Size{2, 2}, Size{7, 3}}) {
        const auto [w, h] = s;
        const std::uint64_t ring = 2 * std::uint64_t(w + h);
        for (std::uint64_t i = 0; i < ring; ++i) {
            const auto p = detail::ring_pixel(i, w, h);
            std::int64_t ex, ey;
            if (i < std::uint64_t(w)) ex = std::int64_t(i), ey = 0;
            else if (i < 2 * std::uint64_t(w)) ex = std::int64_t(i) - w, ey = h - 1;
            else if (i < 2 * std::uint64_t(w) + std::uint64_t(h)) ex = 0, ey = std::int64_t(i) - 2 * w;
            else ex = w - 1, ey = std::int64_t(i) - 2 * w - h;
            EXPECT_EQ(p.x, ex) << i;
            EXPECT_EQ(p.y, ey) << i;
        }
    }
}

// The GPU pipeline, step by step on the CPU with the shared helpers.
template <typename Out>
std::uint64_t pipeline(const ImageView& img, const Options& o, Size tile, Out* out) {
    const TileGrid g(img.width, img.height, tile.first, tile.second);
    std::vector<TileInfo> infos(g.count());
    std::vector<std::vector<std::uint32_t>> local(g.count());
    for (std::uint64_t t = 0; t < g.count(); ++t) {
        const TileRect r = g.rect(t);
        auto& lab = local[t];
        lab.resize(std::size_t(r.width * r.height));
        Options to = o;
        to.backend = Backend::Cpu;
        const std::uint32_t n = label(tile_view(img, r), lab.data(), to).count;
        TileInfo& info = infos[t];
        info.rect = r;
        info.image_width = img.width;
        // first_kernel: an atomicMin over run starts, from ~0.
        std::vector<std::uint32_t> first(n, ~std::uint32_t(0));
        for (std::int64_t y = 0; y < r.height; ++y) {
            const std::uint32_t* row = lab.data() + y * r.width;
            for (std::int64_t x = 0; x < r.width; ++x)
                if (detail::is_run_start(row, x, row[x]))
                    first[row[x] - 1] = std::min(first[row[x] - 1], std::uint32_t(y * r.width + x));
        }
        for (std::uint32_t f : first) info.first_index.push_back(detail::global_index(r, img.width, f));
        // border_kernel.
        const std::uint64_t ring = 2 * std::uint64_t(r.width + r.height);
        const ImageView tv = tile_view(img, r);
        for (std::uint64_t i = 0; i < ring; ++i) {
            const auto p = detail::ring_pixel(i, r.width, r.height);
            const auto* px = static_cast<const std::uint8_t*>(tv.data) + p.y * tv.stride + p.x * bytes_per_pixel(img.format);
            info.edge_keys.push_back(detail::dispatch_format(img.format, [&]<PixelFormat F>() {
                return detail::PixelTraits<F>::key(px);
            }));
            info.edge_labels.push_back(lab[std::size_t(p.y * r.width + p.x)]);
        }
        // The same tables as label_tile's.
        std::vector<std::uint32_t> again(lab.size());
        const TileInfo ref = label_tile(tv, r.x0, r.y0, img.width, again.data(), to);
        EXPECT_EQ(ref.first_index, info.first_index) << "tile " << t;
        EXPECT_EQ(ref.edge_keys, info.edge_keys) << "tile " << t;
        EXPECT_EQ(ref.edge_labels, info.edge_labels) << "tile " << t;
    }
    const auto seams = detail::grid_seams(g, infos, o.connectivity);
    std::vector<std::vector<std::uint64_t>> first;
    for (auto& i : infos) first.push_back(i.first_index);
    const Resolution res = resolve_tiles(first, seams);
    for (std::uint64_t t = 0; t < g.count(); ++t) {
        const TileRect r = g.rect(t);
        relabel_tile(local[t].data(), r.width, r.height, res.maps[t], out + r.y0 * img.width + r.x0, img.width);
    }
    return res.count;
}

void expect_pipeline(const TestImage& img, const Options& o, Size tile, const std::string& what) {
    std::vector<std::uint32_t> want(std::size_t(img.width * img.height)), got(want.size());
    Options oc = o;
    oc.backend = Backend::Cpu;
    const std::uint32_t n = label(img.view(), want.data(), oc).count;
    EXPECT_EQ(pipeline(img.view(), o, tile, got.data()), n) << what;
    EXPECT_EQ(got, want) << what;
    std::vector<std::uint64_t> got64(want.size());
    EXPECT_EQ(pipeline(img.view(), o, tile, got64.data()), n) << what;
    EXPECT_TRUE(std::equal(want.begin(), want.end(), got64.begin())) << what << " (uint64)";
}

TEST(TileGrid, HostPipelineEqualsLabel) {
    std::uint32_t seed = 3;
    for (Size s : {Size{1, 1}, Size{1, 17}, Size{17, 1}, Size{23, 19}, Size{40, 9}})
        for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray16, PixelFormat::RGB8, PixelFormat::RGBA8})
            for (int conn : {4, 8})
                for (bool bg : {false, true}) {
                    if (f == PixelFormat::Binary8 && !bg) continue;
                    const TestImage img = make_image(s.first, s.second, f, random_values(s.first, s.second, 3, 0.2, seed++), 2, 1);
                    Options o;
                    o.connectivity = conn;
                    if (bg && f != PixelFormat::Binary8) o.background = background_channels(f, 0);
                    for (Size t : {Size{1, 1}, Size{s.first, 1}, Size{1, s.second}, Size{4, 3}, Size{100, 100}})
                        expect_pipeline(img, o, t,
                                        std::to_string(s.first) + "x" + std::to_string(s.second) + " " +
                                            std::string(format_name(f)) + " conn " + std::to_string(conn) +
                                            (bg ? " bg" : "") + " tiles " + std::to_string(t.first) + "x" +
                                            std::to_string(t.second));
                }
}

TEST(TileGrid, HostPipelineOnAdversarialPictures) {
    for (const Case& c : {spiral(61, 47), checkerboard(15, 15), seam_lines(7, 5), tile_corners(7, 5, 6), rings(41)})
        for (int conn : {4, 8}) {
            Options o;
            o.connectivity = conn;
            const TestImage img = make_image(c.width, c.height, PixelFormat::U32, c.v);
            for (Size t : {Size{7, 5}, Size{1, 9}, Size{9, 1}, Size{16, 16}})
                expect_pipeline(img, o, t, c.name + " conn " + std::to_string(conn));
        }
}

}  // namespace
}  // namespace cclabel::test
