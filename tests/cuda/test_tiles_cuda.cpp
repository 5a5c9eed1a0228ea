// The streamed GPU tile pipeline (cuda::label_tiled_streamed, and label_tiled with Backend::Cuda)
// against cclabel::label on the CPU, value for value: random multi-colour pictures in every format,
// TESTING.md's adversarial pictures, seams that cut every region, corner-only contacts, tiles of
// 1 row, 1 column, 1x1, larger than the image and ragged; 4- and 8-connectivity, background on and
// off; devices {0} and {0, 0, 0} (one GPU treated as three devices); pageable and pinned host
// memory; uint32 and uint64 labels; full-width strips downloaded early (and stale ones again).
// With CCLABEL_GPU_HUGE=1 also an 806 Mpx RGB8 sheet-sized picture in tiles of 8192². Skipped
// without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda_tiles.hpp"
#include "cclabel/tiles.hpp"
#include "core/tiles_profile.hpp"
#include "support/adversarial.hpp"
#include "support/test_image.hpp"
#include "cuda/gpu_test.hpp"

namespace cclabel::test {
namespace {

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};
using Size = std::pair<std::int64_t, std::int64_t>;
const std::vector<int> kOne{0}, kThree{0, 0, 0};

Options options_for(PixelFormat f, int conn, std::optional<std::uint64_t> bg) {
    Options o;
    o.connectivity = conn;
    if (bg && f != PixelFormat::Binary8) o.background = background_channels(f, *bg);
    return o;
}

std::string tiling(Size t, const std::vector<int>& d) {
    return " tiles " + std::to_string(t.first) + "x" + std::to_string(t.second) + " devices " +
           std::to_string(d.size());
}

// label_tiled_streamed (uint32, and uint64 when @p wide) against @p want.
void expect_streamed(const ImageView& view, const Options& o, Size tile, const std::vector<int>& devices,
                     const std::vector<std::uint32_t>& want, std::uint32_t n_want, bool wide, const std::string& what) {
    std::vector<std::uint32_t> got(want.size() + 1, 0xA5A5A5A5u);
    TiledResult r;
    try {
        r = cuda::label_tiled_streamed(view, got.data(), o, tile.first, tile.second, devices);
    } catch (const std::exception& e) {
        FAIL() << what << ": " << e.what();
    }
    ASSERT_EQ(r.count, n_want) << what;
    ASSERT_EQ(r.backend, Backend::Cuda) << what;
    ASSERT_EQ(got.back(), 0xA5A5A5A5u) << what << ": wrote past the output";
    for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(got[i], want[i]) << what << " at (" << i % std::size_t(view.width) << ", "
                                   << i / std::size_t(view.width) << ")";
    if (!wide) return;
    std::vector<std::uint64_t> got64(want.size() + 1, 0xA5A5A5A5A5A5ull);
    try {
        r = cuda::label_tiled_streamed(view, got64.data(), o, tile.first, tile.second, devices);
    } catch (const std::exception& e) {
        FAIL() << what << " (uint64): " << e.what();
    }
    ASSERT_EQ(r.count, n_want) << what << " (uint64)";
    ASSERT_EQ(got64.back(), 0xA5A5A5A5A5A5ull) << what << " (uint64): wrote past the output";
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got64[i], want[i]) << what << " (uint64) at " << i;
}

// Every tile costs a dozen launches and a few host synchronisations (tens of microseconds), so a
// call is kept to a few hundred tiles: a tile that would cut the picture into more is scaled up by
// a whole factor (its seams stay on multiples of the original's, so seam-aligned cases still sit
// on seams), and the GPU suite stays within its minute.
std::uint64_t tiles_of(std::int64_t w, std::int64_t h, Size t) {
    const std::int64_t tw = std::min(t.first, w), th = std::min(t.second, h);
    return std::uint64_t((w + tw - 1) / tw) * std::uint64_t((h + th - 1) / th);
}
Size capped(Size t, std::int64_t w, std::int64_t h, std::uint64_t max_tiles) {
    for (std::int64_t k = 1;; ++k) {
        const Size s{t.first * k, t.second * k};
        if (tiles_of(w, h, s) <= max_tiles) return s;
    }
}

std::vector<std::uint32_t> cpu_labels(const ImageView& view, Options o, std::uint32_t& n) {
    o.backend = Backend::Cpu;
    std::vector<std::uint32_t> want(std::size_t(view.pixels()));
    n = label(view, want.data(), o).count;
    return want;
}

TEST(TilesCuda, RandomImagesEveryFormatTileShapeAndDeviceList) {
    REQUIRE_GPU();
    const Size sizes[] = {{1, 1}, {1, 70}, {70, 1}, {33, 31}, {64, 23}, {257, 130}};
    std::uint32_t seed = 1;
    for (auto [w, h] : sizes)
        for (PixelFormat f : kFormats)
            for (std::uint64_t palette : {2, 5}) {
                const std::uint32_t sd = seed++;
                const TestImage img = make_image(w, h, f, random_values(w, h, palette, 0.2, sd), sd % 3, sd % 2);
                const Size tiles[] = {{1, 1},  {w, 1},   {1, h},   {3, 5},       {16, 16},
                                      {w, h},  {1000, 1000}, {w - 1 > 0 ? w - 1 : 1, 2}, {64, 7}};
                int config = 0;
                for (int conn : {4, 8})
                    for (auto bg : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0}}) {
                        if (f == PixelFormat::Binary8 && !bg) continue;
                        const Options o = options_for(f, conn, bg);
                        std::uint32_t n = 0;
                        const auto want = cpu_labels(img.view(), o, n);
                        int k = 0;
                        ++config;
                        for (std::size_t j = 0; j < std::size(tiles); ++j) {
                            // Half the tilings a configuration, alternating: each tiling still meets
                            // both connectivities, with and without a background, over the palettes.
                            if ((j + std::size_t(config) + std::size_t(palette)) % 2) continue;
                            const Size t = capped(tiles[j], w, h, 128);  // thousands of tiles: slow, not harder
                            const auto& devices = k % 2 ? kThree : kOne;
                            const std::string what = std::to_string(w) + "x" + std::to_string(h) + " " +
                                                     std::string(format_name(f)) + " palette " +
                                                     std::to_string(palette) + " conn " + std::to_string(conn) +
                                                     (bg ? " bg" : "") + tiling(t, devices);
                            expect_streamed(img.view(), o, t, devices, want, n, k++ % 3 == 0, what);
                            if (HasFailure()) return;
                        }
                    }
            }
}

// The adversarial pictures with 7x5 as "the tile" (seam-aligned cases sit on the seams).
constexpr Size kAdversarialTile{7, 5};

const std::vector<CaseMaker>& makers() {
    static const std::vector<CaseMaker> ms = adversarial_makers(false, kAdversarialTile.first, kAdversarialTile.second);
    return ms;
}

class TilesCudaAdversarial : public ::testing::TestWithParam<std::size_t> {};

TEST_P(TilesCudaAdversarial, StreamedEqualsCpu) {
    REQUIRE_GPU();
    const Case c = makers()[GetParam()].make();
    const std::int64_t w = c.width, h = c.height;
    std::vector<Size> tiles{kAdversarialTile, {64, 64}, {w / 2 + 1, h / 3 + 1}, {4096, 4096}, {w, 1}, {1, h}};
    if (w * h > 300000) {
        tiles.push_back({w, 37});
        tiles.push_back({13, h});
    }
    for (Size& t : tiles) t = capped(t, w, h, 160);  // e.g. 7x5 on a 100003 x 1 row: 14287 tiles
    std::vector<PixelFormat> formats{PixelFormat::U32};
    if (c.binary) formats.push_back(PixelFormat::Binary8);
    std::size_t config = 0;
    for (PixelFormat f : formats) {
        const TestImage img = make_image(w, h, f, c.v, 0, 0);
        for (int conn : {4, 8})
            for (auto bg : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0}}) {
                if (f == PixelFormat::Binary8 && !bg) continue;
                const Options o = options_for(f, conn, bg);
                std::uint32_t n = 0;
                const auto want = cpu_labels(img.view(), o, n);
                ++config;
                for (std::size_t k = 0; k < tiles.size(); ++k) {
                    // The seam-aligned tile every time; the others in half the configurations (each
                    // still meets both connectivities).
                    if (k > 0 && (k + config) % 2) continue;
                    const auto& devices = k % 2 ? kThree : kOne;
                    const std::string what = c.name + " " + std::string(format_name(f)) + " conn " +
                                             std::to_string(conn) + (bg ? " bg" : "") + tiling(tiles[k], devices);
                    expect_streamed(img.view(), o, tiles[k], devices, want, n, k == 0 && config == 1, what);
                    if (HasFailure()) return;
                }
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Cases, TilesCudaAdversarial, ::testing::Range<std::size_t>(0, makers().size()),
                         [](const auto& info) {
                             std::string n = std::to_string(info.param) + "_" + makers()[info.param].name;
                             for (char& ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });

// Stripes two pixels wide, shifted by one against 2-wide tiles: every region is cut by a seam.
TEST(TilesCuda, SeamsCutEveryRegion) {
    REQUIRE_GPU();
    for (bool vertical : {true, false}) {
        const std::int64_t w = vertical ? 41 : 23, h = vertical ? 23 : 41;
        std::vector<std::uint64_t> v(std::size_t(w * h));
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                const std::int64_t s = ((vertical ? x : y) + 1) / 2;
                v[std::size_t(y * w + x)] = 1 + (s == 0 ? 1 : s) % 2;
            }
        for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8})
            for (int conn : {4, 8})
                for (std::int64_t across : {1, 2, 5, 100}) {
                    const Size tile = vertical ? Size{2, across} : Size{across, 2};
                    const TestImage img = make_image(w, h, f, v);
                    const Options o = options_for(f, conn, std::nullopt);
                    std::uint32_t n = 0;
                    const auto want = cpu_labels(img.view(), o, n);
                    for (const auto* devices : {&kOne, &kThree})
                        expect_streamed(img.view(), o, tile, *devices, want, n, devices == &kOne,
                                        std::string(vertical ? "vertical" : "horizontal") + " stripes " +
                                            std::string(format_name(f)) + " conn " + std::to_string(conn) +
                                            tiling(tile, *devices));
                }
    }
}

// Pairs of pixels touching only diagonally across every tile corner, on a background.
TEST(TilesCuda, DiagonalContactsAtTileCorners) {
    REQUIRE_GPU();
    for (Size tile : {Size{1, 1}, Size{2, 2}, Size{3, 2}, Size{4, 5}}) {
        const std::int64_t tw = tile.first, th = tile.second;
        const std::int64_t si = (3 + tw - 1) / tw, sj = (3 + th - 1) / th, cols = 5 * si, rows = 4 * sj;
        const std::int64_t w = tw * cols, h = th * rows;
        std::vector<std::uint64_t> v(std::size_t(w * h), 0);
        std::uint64_t colour = 1;
        for (std::int64_t j = sj; j < rows; j += sj)
            for (std::int64_t i = si; i < cols; i += si, ++colour) {
                const std::int64_t x = i * tw, y = j * th;
                if ((i / si + j / sj) % 2 == 0) {
                    v[std::size_t((y - 1) * w + x - 1)] = colour;
                    v[std::size_t(y * w + x)] = colour;
                } else {
                    v[std::size_t((y - 1) * w + x)] = colour;
                    v[std::size_t(y * w + x - 1)] = colour;
                }
            }
        for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGBA8})
            for (int conn : {4, 8}) {
                const TestImage img = make_image(w, h, f, v);
                const Options o = options_for(f, conn, 0);
                std::uint32_t n = 0;
                const auto want = cpu_labels(img.view(), o, n);
                for (const auto* devices : {&kOne, &kThree})
                    expect_streamed(img.view(), o, tile, *devices, want, n, true,
                                    std::string(format_name(f)) + " conn " + std::to_string(conn) + tiling(tile, *devices));
            }
    }
}

// A spiral through every tile, in pinned host memory (the 2-D copies straight to and from the
// user's buffers) and pageable (the staging path), and label_tiled with Backend::Cuda.
TEST(TilesCuda, PinnedAndPageableAndLabelTiledHook) {
    REQUIRE_GPU();
    const Case c = spiral(1031, 777);
    const TestImage img = make_image(c.width, c.height, PixelFormat::RGB8, c.v, 5, 3);
    const Options o = options_for(PixelFormat::RGB8, 8, std::nullopt);
    std::uint32_t n = 0;
    const auto want = cpu_labels(img.view(), o, n);
    const std::size_t px = want.size();

    void* pin_img = nullptr;
    void* pin_out = nullptr;
    ASSERT_EQ(cudaMallocHost(&pin_img, img.storage.size()), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&pin_out, px * 8), cudaSuccess);
    std::memcpy(pin_img, img.storage.data(), img.storage.size());
    ImageView pv = img.view();
    pv.data = static_cast<const std::uint8_t*>(pin_img) + img.offset;
    for (Size t : {Size{100, 100}, Size{1031, 13}, Size{7, 777}}) {
        for (const auto* devices : {&kOne, &kThree}) {
            auto* o32 = static_cast<std::uint32_t*>(pin_out);
            std::memset(o32, 0xEE, px * 4);
            const TiledResult r = cuda::label_tiled_streamed(pv, o32, o, t.first, t.second, *devices);
            EXPECT_EQ(r.count, n);
            EXPECT_TRUE(std::equal(want.begin(), want.end(), o32)) << "pinned uint32" << tiling(t, *devices);
            auto* o64 = static_cast<std::uint64_t*>(pin_out);
            std::memset(o64, 0xEE, px * 8);
            EXPECT_EQ(cuda::label_tiled_streamed(pv, o64, o, t.first, t.second, *devices).count, n);
            EXPECT_TRUE(std::equal(want.begin(), want.end(), o64)) << "pinned uint64" << tiling(t, *devices);
            // Pinned picture, pageable output and the other way round.
            std::vector<std::uint32_t> page(px, 0xEEEEEEEEu);
            EXPECT_EQ(cuda::label_tiled_streamed(pv, page.data(), o, t.first, t.second, *devices).count, n);
            EXPECT_EQ(page, want) << "pinned in, pageable out" << tiling(t, *devices);
            std::memset(o32, 0xEE, px * 4);
            EXPECT_EQ(cuda::label_tiled_streamed(img.view(), o32, o, t.first, t.second, *devices).count, n);
            EXPECT_TRUE(std::equal(want.begin(), want.end(), o32)) << "pageable in, pinned out" << tiling(t, *devices);
        }
        Options oc = o;
        oc.backend = Backend::Cuda;
        std::vector<std::uint32_t> got(px, 0xEEEEEEEEu);
        const TiledResult r = label_tiled(img.view(), got.data(), oc, t.first, t.second);
        EXPECT_EQ(r.count, n);
        EXPECT_EQ(r.backend, Backend::Cuda);
        EXPECT_EQ(got, want) << "label_tiled(Backend::Cuda)" << tiling(t, kOne);
    }
    cudaFreeHost(pin_img);
    cudaFreeHost(pin_out);
}

// The first-pixel tables go to a device store of two tiles' pixels, reserved tile by tile in
// phase A; tiles whose table does not fit get theirs after phase A, and maps larger than two
// tiles' worth go slot by slot. A checkerboard at 4-connectivity (every pixel a region) in 12
// tiles overflows both; a few large blocks in the same tiles overflow neither. The profile record
// says which path ran, and its marks are in order.
TEST(TilesCuda, FirstTableStoreOverflowMapsSlotBySlotAndProfile) {
    REQUIRE_GPU();
    const std::int64_t w = 64, h = 48;
    for (bool checker : {true, false}) {
        std::vector<std::uint64_t> v(std::size_t(w * h));
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x)
                v[std::size_t(y * w + x)] = checker ? std::uint64_t((x + y) % 2) : std::uint64_t(x / 20 + 3 * (y / 20));
        const TestImage img = make_image(w, h, PixelFormat::Gray8, v);
        const Options o = options_for(PixelFormat::Gray8, 4, std::nullopt);
        std::uint32_t n = 0;
        const auto want = cpu_labels(img.view(), o, n);
        for (const auto* devices : {&kOne, &kThree}) {
            const std::string what = std::string(checker ? "checkerboard" : "blocks") + tiling({16, 16}, *devices);
            expect_streamed(img.view(), o, {16, 16}, *devices, want, n, true, what);
            cclabel::detail::TilesProfile p;
            std::vector<std::uint32_t> got(want.size());
            const TiledResult r =
                cuda::detail::label_tiled_streamed_profiled(img.view(), got.data(), o, 16, 16, *devices, &p);
            EXPECT_EQ(r.count, n) << what;
            EXPECT_EQ(got, want) << what << " (profiled)";
            EXPECT_EQ(p.tiles, 12u) << what;
            EXPECT_EQ(p.regions, n) << what;
            if (checker) {
                EXPECT_EQ(p.local_labels, std::uint64_t(w * h)) << what;
                EXPECT_GT(p.overflow_tiles, 0u) << what;
                EXPECT_FALSE(p.maps_at_once) << what;
            } else {
                EXPECT_EQ(p.overflow_tiles, 0u) << what;
                EXPECT_TRUE(p.maps_at_once) << what;
            }
            const double marks[] = {p.setup_ms,  p.alloc_ms,   p.enqueue_ms, p.phase_a_ms, p.first_ms,
                                    p.seams_ms,  p.resolve_ms, p.maps_ms,    p.phase_c_ms, p.release_ms};
            for (std::size_t k = 1; k < std::size(marks); ++k) EXPECT_LE(marks[k - 1], marks[k]) << what << " mark " << k;
        }
    }
}

// Full-width strips from a pinned picture into pinned labels: strips are downloaded during phase A
// with the early numbering's maps, and those whose map turns out stale are downloaded again. A U
// closing in the last strip, a comb joined by its bottom row (every tooth a separate region until
// then), a spiral and random pictures, at lags from 0 (every early map at risk) to past the
// picture: the labels equal the CPU's every time, uint32 and uint64, and the profile shows both
// paths taken (early maps that held, early maps redone).
TEST(TilesCuda, EarlyDownloadsOfStripsEqualCpu) {
    REQUIRE_GPU();
    std::vector<Case> cases{late_merge(), comb(120, 90, 0), spiral(301, 203)};
    {
        Case c;
        c.name = "random";
        c.width = 211;
        c.height = 150;
        c.v = random_values(c.width, c.height, 2, 0.0, 99);
        cases.push_back(std::move(c));
    }
    std::uint64_t held = 0, redone = 0, off_early = 0;
    for (const Case& c : cases) {
        const PixelFormat f = c.name == "random" ? PixelFormat::Gray8 : PixelFormat::RGB8;
        const TestImage img = make_image(c.width, c.height, f, c.v, 0, 0);
        const std::size_t px = std::size_t(c.width * c.height);
        void* pin_img = nullptr;
        void* pin_out = nullptr;
        ASSERT_EQ(cudaMallocHost(&pin_img, img.storage.size()), cudaSuccess);
        ASSERT_EQ(cudaMallocHost(&pin_out, (px + 1) * 8), cudaSuccess);
        std::memcpy(pin_img, img.storage.data(), img.storage.size());
        ImageView pv = img.view();
        pv.data = static_cast<const std::uint8_t*>(pin_img) + img.offset;
        for (int conn : {4, 8})
            for (bool bg : {false, true}) {
                const Options o = options_for(f, conn, bg ? std::optional<std::uint64_t>{0} : std::nullopt);
                std::uint32_t n = 0;
                const auto want = cpu_labels(pv, o, n);
                for (std::int64_t sh : {std::int64_t(4), std::int64_t(16)})
                    for (std::int64_t lag : {std::int64_t(0), std::int64_t(20), std::int64_t(100000)})
                        for (bool on : {true, false}) {
                            if (!on && lag != 0) continue;
                            cclabel::detail::StreamTuning tu;
                            tu.early_downloads = on;
                            tu.lag_rows = lag;
                            const std::string what = c.name + " conn " + std::to_string(conn) + (bg ? " bg" : "") +
                                                     " strips " + std::to_string(sh) + " lag " + std::to_string(lag) +
                                                     (on ? "" : " early off");
                            cclabel::detail::TilesProfile p;
                            auto* o32 = static_cast<std::uint32_t*>(pin_out);
                            std::memset(o32, 0xEE, (px + 1) * 4);
                            TiledResult r;
                            try {
                                r = cuda::detail::label_tiled_streamed_profiled(pv, o32, o, c.width, sh, kOne, &p, tu);
                            } catch (const std::exception& e) {
                                FAIL() << what << ": " << e.what();
                            }
                            EXPECT_EQ(r.count, n) << what;
                            EXPECT_TRUE(std::equal(want.begin(), want.end(), o32)) << what;
                            EXPECT_EQ(o32[px], 0xEEEEEEEEu) << what << ": wrote past the output";
                            if (!on) off_early += p.early_tiles;
                            if (on && p.early_tiles > p.early_redone) ++held;
                            redone += p.early_redone;
                            auto* o64 = static_cast<std::uint64_t*>(pin_out);
                            std::memset(o64, 0xEE, (px + 1) * 8);
                            try {
                                r = cuda::detail::label_tiled_streamed_profiled(pv, o64, o, c.width, sh, kOne, nullptr,
                                                                                tu);
                            } catch (const std::exception& e) {
                                FAIL() << what << " (uint64): " << e.what();
                            }
                            EXPECT_EQ(r.count, n) << what << " (uint64)";
                            EXPECT_TRUE(std::equal(want.begin(), want.end(), o64)) << what << " (uint64)";
                            EXPECT_EQ(o64[px], 0xEEEEEEEEEEEEEEEEull) << what << " (uint64): wrote past the output";
                        }
            }
        cudaFreeHost(pin_img);
        cudaFreeHost(pin_out);
    }
    EXPECT_EQ(off_early, 0u);
    EXPECT_GT(held, 10u);
    EXPECT_GT(redone, 0u);
}

TEST(TilesCuda, EmptyImagesAndErrors) {
    REQUIRE_GPU();
    std::vector<std::uint8_t> px(100, 1);
    std::vector<std::uint32_t> out(100);
    EXPECT_EQ(cuda::label_tiled_streamed(make_view(px.data(), 0, 10, PixelFormat::Gray8), out.data(), {}, 4, 4).count,
              0u);
    const ImageView img = make_view(px.data(), 10, 10, PixelFormat::Gray8);
    EXPECT_THROW(cuda::label_tiled_streamed(img, out.data(), {}, 0, 4), Error);
    EXPECT_THROW(cuda::label_tiled_streamed(img, static_cast<std::uint32_t*>(nullptr), {}, 4, 4), Error);
    EXPECT_THROW(cuda::label_tiled_streamed(img, out.data(), {}, 4, 4, {-1}), Error);
    int n = 0;
    ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    try {
        cuda::label_tiled_streamed(img, out.data(), {}, 4, 4, {0, n});
        ADD_FAILURE() << "no error for device " << n;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("device"), std::string::npos) << e.what();
    }
    Options bad;
    bad.connectivity = 6;
    EXPECT_THROW(cuda::label_tiled_streamed(img, out.data(), bad, 4, 4), Error);
}

// CCLABEL_GPU_HUGE=1: an 806 Mpx RGB8 picture (33600 x 24000, a few colours in blocks, so that
// regions cross the 8192² tiles' seams) against the CPU labeller, on {0} and {0, 0, 0}.
TEST(TilesCuda, HugeSheetSizedPicture) {
    REQUIRE_GPU();
    const char* env = std::getenv("CCLABEL_GPU_HUGE");
    if (!env || std::string(env) != "1") GTEST_SKIP() << "set CCLABEL_GPU_HUGE=1 to run";
    const std::int64_t W = 33600, H = 24000;
    std::vector<std::uint8_t> rgb(std::size_t(W * H * 3));
    std::uint64_t s = 12345;
    for (std::int64_t y = 0; y < H; ++y)
        for (std::int64_t x = 0; x < W; ++x) {
            const std::int64_t bx = x / 37, by = y / 29;  // blocks of one colour of three, with noise pixels
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            std::uint8_t c = std::uint8_t((bx * 7 + by * 13) % 3);
            if ((s >> 60) == 0) c = std::uint8_t(3 + (s >> 40) % 3);
            std::uint8_t* p = rgb.data() + (y * W + x) * 3;
            p[0] = std::uint8_t(c * 40);
            p[1] = std::uint8_t(255 - c * 30);
            p[2] = std::uint8_t(c);
        }
    const ImageView v = make_view(rgb.data(), W, H, PixelFormat::RGB8);
    for (int conn : {8, 4}) {
        Options o;
        o.connectivity = conn;
        std::uint32_t n = 0;
        const auto want = cpu_labels(v, o, n);
        for (const auto* devices : {&kOne, &kThree}) {
            std::vector<std::uint32_t> got(want.size());
            const TiledResult r = cuda::label_tiled_streamed(v, got.data(), o, 8192, 8192, *devices);
            EXPECT_EQ(r.count, n);
            EXPECT_TRUE(got == want) << "conn " << conn << tiling({8192, 8192}, *devices);
        }
    }
}

}  // namespace
}  // namespace cclabel::test
