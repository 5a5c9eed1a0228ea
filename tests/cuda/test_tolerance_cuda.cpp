// Tolerance labelling on the GPU (for_tolerance: the segment pipeline with close runs when
// Switches::tolerance_segments is on and the picture takes it, else the pixel pipeline with
// close-neighbour joins) against the tolerance flood fill and the CPU tolerance labeller: the host
// API (Backend::Cuda), the device API and batches, every format, both connectivities, background
// on and off, pictures large enough for many tiles and blocks, the construction sheet at 50 and
// 100 dpi; the adjacency graph on the GPU against the CPU's. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/batch.hpp"
#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cclabel/cuda_tiles.hpp"
#include "cclabel/tiles.hpp"
#include "../bench/drawing.hpp"
#include "cuda/gpu_test.hpp"
#include "cuda/label_tuned.hpp"
#include "reference/tolerance_flood_fill.hpp"
#include "support/channel_image.hpp"

namespace cclabel::test {
namespace {

constexpr PixelFormat kFormats[] = {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8,
                                    PixelFormat::RGBA8, PixelFormat::Binary8};

/// Channel values that wander by small steps along rows and columns (strokes with fringes, in
/// effect), so that chains of close pixels cross tiles, warps and rows.
std::vector<std::uint64_t> wandering(std::int64_t w, std::int64_t h, int nch, std::uint64_t max, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint64_t> v(std::size_t(w * h * nch));
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x)
            for (int c = 0; c < nch; ++c) {
                const std::size_t i = std::size_t((y * w + x) * nch + c);
                std::int64_t base = x > 0 ? std::int64_t(v[i - std::size_t(nch)]) : y > 0 ? std::int64_t(v[i - std::size_t(w * nch)]) : 0;
                if (y > 0 && rng() % 2) base = std::int64_t(v[i - std::size_t(w * nch)]);
                const std::int64_t step = std::int64_t(rng() % 7) - 3;
                std::int64_t nv = base + step * std::int64_t(max > 255 ? 97 : 1);
                if (rng() % 50 == 0) nv = std::int64_t(rng() % (max + 1));  // a jump: a new region starts
                v[i] = std::uint64_t(std::clamp<std::int64_t>(nv, 0, std::int64_t(max)));
            }
    return v;
}

void expect_tolerance(const ChannelImage& img, int conn, std::uint32_t tol, bool bg, const std::string& what) {
    Options o;
    o.connectivity = conn;
    o.tolerance = tol;
    o.backend = Backend::Cuda;
    const int nch = channels(img.format);
    std::optional<std::vector<std::uint64_t>> b;
    if (bg) b = std::vector<std::uint64_t>(std::size_t(nch), 0);
    o.background = b;
    if (img.format == PixelFormat::Binary8) b = std::vector<std::uint64_t>{0};  // its zeros are always background
    std::uint32_t n_ref = 0;
    std::vector<std::uint64_t> ch = img.channels;
    if (img.format == PixelFormat::Binary8)  // the library reads any nonzero byte as 1
        for (auto& c : ch) c = c != 0;
    const auto ref = tolerance_flood_fill(ch, nch, img.width, img.height, conn,
                                          img.format == PixelFormat::Binary8 ? 0 : tol, b, &n_ref);
    std::vector<std::uint32_t> out(ref.size() + 1, 0xDEADBEEFu);
    const LabelResult r = label(img.view(), out.data(), o);
    ASSERT_EQ(r.count, n_ref) << what;
    ASSERT_EQ(out.back(), 0xDEADBEEFu) << what << ": wrote past the labels";
    out.pop_back();
    ASSERT_TRUE(out == ref) << what;

    // The device API on the same picture, and label() with statistics.
    const std::size_t bytes = std::size_t(img.stride * img.height);
    void *d_img = nullptr, *d_lab = nullptr, *d_ws = nullptr;
    ASSERT_EQ(cudaMalloc(&d_img, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_lab, ref.size() * 4 + 4), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_img, img.bytes.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ImageView dv = img.view();
    dv.data = d_img;
    std::size_t ws = 0;
    auto* labels = static_cast<std::uint32_t*>(d_lab);
    cuda::label_device(nullptr, ws, dv, labels, labels + ref.size(), o, nullptr);
    ASSERT_EQ(cudaMalloc(&d_ws, ws), cudaSuccess);
    cuda::label_device(d_ws, ws, dv, labels, labels + ref.size(), o, nullptr);
    std::vector<std::uint32_t> dev(ref.size() + 1);
    ASSERT_EQ(cudaMemcpy(dev.data(), d_lab, dev.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d_img);
    cudaFree(d_lab);
    cudaFree(d_ws);
    EXPECT_EQ(dev.back(), n_ref) << what << " (device API count)";
    dev.pop_back();
    EXPECT_TRUE(dev == ref) << what << " (device API)";
    std::vector<RegionStats> stats;
    std::vector<std::uint32_t> with(ref.size());
    EXPECT_EQ(label(img.view(), with.data(), o, stats).count, n_ref) << what << " (with statistics)";
    EXPECT_TRUE(with == ref) << what << " (with statistics)";
    EXPECT_EQ(stats.size(), std::size_t(n_ref) + 1) << what;
}

TEST(ToleranceCuda, MatchesTheFloodFill) {
    REQUIRE_GPU();
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {1, 50}, {50, 1}, {37, 23}, {300, 170}, {1029, 517}};
    std::uint32_t seed = 1;
    for (PixelFormat f : kFormats)
        for (auto [w, h] : sizes) {
            const int nch = channels(f);
            const std::uint64_t max = f == PixelFormat::Binary8 ? 1 : channel_max(f);
            const ChannelImage img(w, h, f, wandering(w, h, nch, max, seed), seed % 3);
            ++seed;
            for (int conn : {4, 8})
                for (std::uint32_t tol : {1u, 3u})
                    for (bool bg : {false, true})
                        expect_tolerance(img, conn, f == PixelFormat::Gray16 || f == PixelFormat::U32 ? tol * 97 : tol, bg,
                                         std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                             std::to_string(h) + " conn " + std::to_string(conn) + " tol " +
                                             std::to_string(tol) + (bg ? " bg" : ""));
        }
}

/// label_device_tuned's labels and count for @p view (host memory) with @p o and @p t.
std::vector<std::uint32_t> device_labels(const ImageView& view, const Options& o, const cuda::Tuning& t,
                                         std::uint32_t& count) {
    const std::size_t n = std::size_t(view.width * view.height);
    // row_bytes(): a packed view (stride 0, as make_view gives the construction sheet) has rows too.
    const std::size_t bytes = std::size_t(view.row_bytes() * view.height);
    void *d_img = nullptr, *d_lab = nullptr, *d_ws = nullptr;
    EXPECT_EQ(cudaMalloc(&d_img, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_lab, n * 4 + 4), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d_img, view.data, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(d_lab, 0xA5, n * 4 + 4), cudaSuccess);  // poisoned: an unwritten label shows
    ImageView dv = view;
    dv.data = d_img;
    auto* labels = static_cast<std::uint32_t*>(d_lab);
    std::size_t ws = 0;
    cuda::detail::label_device_tuned(nullptr, ws, dv, labels, labels + n, o, nullptr, t);
    EXPECT_EQ(cudaMalloc(&d_ws, ws), cudaSuccess);
    cuda::detail::label_device_tuned(d_ws, ws, dv, labels, labels + n, o, nullptr, t);
    std::vector<std::uint32_t> out(n + 1);
    EXPECT_EQ(cudaMemcpy(out.data(), d_lab, out.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d_img);
    cudaFree(d_lab);
    cudaFree(d_ws);
    count = out.back();
    out.pop_back();
    return out;
}

/// The segment pipeline's tunings for a tolerance (Switches::tolerance_segments), and the pixel
/// pipeline for comparison.
std::vector<std::pair<std::string, cuda::Tuning>> tolerance_tunings() {
    std::vector<std::pair<std::string, cuda::Tuning>> v;
    // segment_runs on (the defaults of a large picture, at any size) and the segment pipeline's
    // tolerance stages, off by default until they have run on a GPU (cuda/tuning.hpp).
    const auto base = [] {
        cuda::Tuning b;
        b.switches.tolerance_segments = true;
        return b;
    };
    cuda::Tuning t = base();
    v.push_back({"segments", t});
    for (auto [name, sw] : {std::pair{"seg_start_halves", &cuda::Switches::seg_start_halves},
                            std::pair{"seg_uniform_warps", &cuda::Switches::seg_uniform_warps},
                            std::pair{"seg_warp_carry", &cuda::Switches::seg_warp_carry},
                            std::pair{"seg_carry_labels", &cuda::Switches::seg_carry_labels},
                            std::pair{"seg_start_zeroes", &cuda::Switches::seg_start_zeroes},
                            std::pair{"seg_number_transpose", &cuda::Switches::seg_number_transpose},
                            std::pair{"tolerance_segments", &cuda::Switches::tolerance_segments}}) {
        t = base();
        t.switches.*sw = !(t.switches.*sw);
        v.push_back({std::string("segments, ") + name + (t.switches.*sw ? " on" : " off"), t});
    }
    t = base();
    t.shape.seg_w = 7;
    t.shape.seg_threads = 64;
    v.push_back({"segments of 7, 64 a block (the Carry kernel)", t});
    t = base();
    t.shape.seg_rows = 4;
    v.push_back({"segments, strips of 4", t});
    return v;
}

/// Device labels of @p img against the CPU tolerance labeller, for every tolerance tuning.
void expect_segments_match_cpu(const ImageView& img, int conn, std::uint32_t tol,
                               const std::optional<std::vector<std::uint64_t>>& bg, const std::string& what,
                               bool every_tuning = true) {
    Options o;
    o.connectivity = conn;
    o.tolerance = tol;
    o.background = bg;
    o.backend = Backend::Cpu;
    const std::size_t n = std::size_t(img.width * img.height);
    std::vector<std::uint32_t> want(n);
    const std::uint32_t n_cpu = std::uint32_t(label(img, want.data(), o).count);
    for (const auto& [name, t] : tolerance_tunings()) {
        std::uint32_t count = 0;
        const std::vector<std::uint32_t> got = device_labels(img, o, t, count);
        EXPECT_EQ(count, n_cpu) << what << " [" << name << "]";
        std::size_t bad = 0;
        while (bad < n && got[bad] == want[bad]) ++bad;
        EXPECT_EQ(bad, n) << what << " [" << name << "]: first difference at (" << bad % std::size_t(img.width)
                          << ", " << bad / std::size_t(img.width) << ")";
        if (!every_tuning) break;
    }
}

TEST(ToleranceCuda, SegmentPipelineMatchesTheCpu) {
    // The segment pipeline taken at every size (Tuning: segment_runs on), random wandering values
    // of every format, against the CPU tolerance labeller; each tuning of tolerance_tunings().
    REQUIRE_GPU();
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {33, 7}, {100, 65}, {1029, 517}, {4096, 37}};
    std::uint32_t seed = 300;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8, PixelFormat::RGBA8})
        for (auto [w, h] : sizes) {
            const int nch = channels(f);
            const ChannelImage img(w, h, f, wandering(w, h, nch, channel_max(f), seed), seed % 2 ? 0 : 3);
            ++seed;
            for (int conn : {4, 8})
                for (std::uint32_t tol : {1u, 3u})
                    for (bool bg : {false, true}) {
                        const std::uint32_t t = f == PixelFormat::Gray16 || f == PixelFormat::U32 ? tol * 97 : tol;
                        expect_segments_match_cpu(img.view(), conn, t,
                                                  bg ? std::optional<std::vector<std::uint64_t>>(
                                                           std::vector<std::uint64_t>(std::size_t(nch), 0))
                                                     : std::nullopt,
                                                  std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                                      std::to_string(h) + " conn " + std::to_string(conn) +
                                                      " tol " + std::to_string(t) + (bg ? " bg" : ""));
                    }
        }
}

TEST(ToleranceCuda, ConstructionSheetMatchesTheCpu) {
    // The benchmark's sheet (bench/drawing.hpp) at 50 dpi with every tuning, paper as background
    // and labelled, tolerances 16 and 64; at 100 dpi (12.6 Mpx, above kPixelPipelineBelow) through
    // label() with Backend::Cuda (the segment pipeline, tolerance_segments being the default) and
    // through the segment pipeline's tolerance stages.
    REQUIRE_GPU();
    const bench::Drawing d50 = bench::make_drawing(50);
    const ImageView v50 = make_view(d50.rgb.data(), d50.width, d50.height, PixelFormat::RGB8);
    const std::optional<std::vector<std::uint64_t>> paper = std::vector<std::uint64_t>{255, 255, 255};
    for (int conn : {8, 4})
        for (std::uint32_t tol : {64u, 16u})
            for (bool bg : {true, false})
                expect_segments_match_cpu(v50, conn, tol, bg ? paper : std::nullopt,
                                          "sheet 50 dpi conn " + std::to_string(conn) + " tol " + std::to_string(tol) +
                                              (bg ? " paper as background" : ""),
                                          conn == 8 && tol == 64);
    const bench::Drawing d100 = bench::make_drawing(100);
    const ImageView v100 = make_view(d100.rgb.data(), d100.width, d100.height, PixelFormat::RGB8);
    ASSERT_GE(std::uint64_t(v100.pixels()), cuda::kPixelPipelineBelow);
    for (bool bg : {true, false}) {
        Options o;
        o.tolerance = 64;
        o.background = bg ? paper : std::nullopt;
        o.backend = Backend::Cpu;
        std::vector<std::uint32_t> want(std::size_t(v100.pixels())), got(want.size());
        const std::uint64_t n_cpu = label(v100, want.data(), o).count;
        o.backend = Backend::Cuda;
        EXPECT_EQ(label(v100, got.data(), o).count, n_cpu) << (bg ? "paper as background" : "paper labelled");
        EXPECT_TRUE(got == want) << (bg ? "paper as background" : "paper labelled");
        expect_segments_match_cpu(v100, 8, 64, o.background, std::string("sheet 100 dpi") + (bg ? " paper as background" : ""),
                                  false);
    }
}

TEST(ToleranceCuda, TiledEqualsTheFloodFill) {
    // label_tiled with Backend::Cuda labels its tiles through the GPU's tolerance path and joins
    // their seams by closeness; the streamed tile pipeline refuses a tolerance by name.
    REQUIRE_GPU();
    const std::int64_t w = 301, h = 173;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::Gray16})
        for (int conn : {4, 8}) {
            const int nch = channels(f);
            const ChannelImage img(w, h, f, wandering(w, h, nch, channel_max(f), 90 + std::uint32_t(conn)), 1);
            const std::uint32_t tol = f == PixelFormat::Gray16 ? 2 * 97 : 2;
            std::uint32_t n_ref = 0;
            const auto ref = tolerance_flood_fill(img.channels, nch, w, h, conn, tol, std::nullopt, &n_ref);
            const Options o{.connectivity = conn, .backend = Backend::Cuda, .tolerance = tol};
            std::vector<std::uint32_t> out(ref.size());
            const TiledResult r = label_tiled(img.view(), out.data(), o, 64, 40);
            EXPECT_EQ(r.backend, Backend::Cuda);
            ASSERT_EQ(r.count, n_ref) << format_name(f) << " conn " << conn;
            EXPECT_TRUE(out == ref) << format_name(f) << " conn " << conn;
            try {
                cuda::label_tiled_streamed(img.view(), out.data(), o, 64, 40);
                ADD_FAILURE() << "label_tiled_streamed accepted a tolerance";
            } catch (const Error& e) {
                EXPECT_NE(std::string(e.what()).find("label_tiled_streamed: tolerance"), std::string::npos) << e.what();
            }
        }
}

TEST(ToleranceCuda, TypedBatchWithAZeroToleranceValueIsExact) {
    // The device keys' options drop a tolerance_value of 0 as the host's do (device_keys.cu).
    REQUIRE_GPU();
    const float px[8] = {1, 1, 2, 2, 0.5f, 0.5f, 0.5f, 3};
    Options o{.connectivity = 4, .backend = Backend::Cuda};
    o.tolerance_value = 0.0;
    std::vector<std::uint32_t> gpu(8), cpu(8);
    const BatchResult g = label_batch(BatchView{px, 2, 4, 1, 0, 0, PixelFormat::F32}, gpu.data(), o);
    o.backend = Backend::Cpu;
    const BatchResult c = label_batch(BatchView{px, 2, 4, 1, 0, 0, PixelFormat::F32}, cpu.data(), o);
    EXPECT_EQ(g.counts, c.counts);
    EXPECT_EQ(gpu, cpu);
    EXPECT_EQ(cpu, (std::vector<std::uint32_t>{1, 1, 2, 2, 1, 1, 1, 2}));
}

TEST(ToleranceCuda, BatchEqualsEachImage) {
    REQUIRE_GPU();
    const std::int64_t w = 61, h = 47, B = 6;
    std::vector<std::uint8_t> all;
    std::vector<std::vector<std::uint64_t>> chans;
    for (std::int64_t b = 0; b < B; ++b) {
        chans.push_back(wandering(w, h, 1, 255, std::uint32_t(50 + b)));
        for (std::uint64_t c : chans.back()) all.push_back(std::uint8_t(c));
    }
    for (int conn : {4, 8}) {
        Options o;
        o.connectivity = conn;
        o.tolerance = 2;
        o.backend = Backend::Cuda;
        std::vector<std::uint32_t> out(all.size());
        const BatchResult r = label_batch(BatchView{all.data(), B, w, h, 0, 0, PixelFormat::Gray8}, out.data(), o);
        for (std::int64_t b = 0; b < B; ++b) {
            std::uint32_t n = 0;
            const auto ref = tolerance_flood_fill(chans[std::size_t(b)], 1, w, h, conn, 2, std::nullopt, &n);
            EXPECT_EQ(r.counts[std::size_t(b)], n) << "image " << b;
            EXPECT_TRUE(std::equal(ref.begin(), ref.end(), out.begin() + b * w * h)) << "image " << b << " conn " << conn;
        }
    }
}

TEST(AdjacencyCuda, EqualsTheCpuOnHostAndDeviceLabels) {
    REQUIRE_GPU();
    std::mt19937 rng(3);
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 1}, {1, 40}, {97, 61}, {2000, 1500}}) {
        // Labels of a picture with blobs (long boundaries) and noise (short ones).
        std::vector<std::uint8_t> px(std::size_t(w * h));
        for (std::int64_t i = 0; i < w * h; ++i)
            px[std::size_t(i)] = (i / 7 + (i / w) / 5) % 3 == 0 ? std::uint8_t(rng() % 4) : std::uint8_t((i / 13) % 5);
        for (int conn : {4, 8}) {
            Options lo;
            lo.connectivity = conn;
            lo.background = std::vector<std::uint64_t>{0};
            const Labels l = label(make_view(px.data(), w, h, PixelFormat::Gray8), lo);
            void* d = nullptr;
            ASSERT_EQ(cudaMalloc(&d, l.data.size() * 4 + 4), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(d, l.data.data(), l.data.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
            for (bool bg : {false, true}) {
                const auto cpu = adjacency(l.data.data(), w, h, conn, bg, 0, Backend::Cpu);
                const auto gpu = adjacency(l.data.data(), w, h, conn, bg, 0, Backend::Cuda);
                const auto dev = adjacency(static_cast<const std::uint32_t*>(d), w, h, conn, bg, 0, Backend::Auto);
                const std::string what = std::to_string(w) + "x" + std::to_string(h) + " conn " + std::to_string(conn);
                ASSERT_EQ(gpu.size(), cpu.size()) << what;
                ASSERT_EQ(dev.size(), cpu.size()) << what;
                for (std::size_t i = 0; i < cpu.size(); ++i) {
                    EXPECT_TRUE(gpu[i].a == cpu[i].a && gpu[i].b == cpu[i].b && gpu[i].contacts == cpu[i].contacts)
                        << what << " edge " << i;
                    EXPECT_TRUE(dev[i].a == cpu[i].a && dev[i].b == cpu[i].b && dev[i].contacts == cpu[i].contacts)
                        << what << " edge " << i << " (device labels)";
                }
            }
            cudaFree(d);
        }
    }
}

TEST(AdjacencyCuda, LabelsOfNoiseOverflowTablesAndTheFirstBuffer) {
    // Every pixel its own random label: each tile holds more pairs than its table (they go out on
    // their own) and the items outnumber the kernel's first buffer (a 64th of the pixels), so it
    // runs again into one of the size it counted. Rows padded: the padding must not be read.
    REQUIRE_GPU();
    std::mt19937 rng(11);
    const std::int64_t w = 1500, h = 1100, stride = 1536;
    std::vector<std::uint32_t> l(std::size_t(stride * h), 0xFFFFFFF0u);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) l[std::size_t(y * stride + x)] = rng() % 3000000u;
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, l.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, l.data(), l.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    for (int conn : {4, 8})
        for (bool bg : {false, true}) {
            const auto cpu = adjacency(l.data(), w, h, conn, bg, stride, Backend::Cpu);
            const auto gpu = adjacency(l.data(), w, h, conn, bg, stride, Backend::Cuda);
            const auto dev = adjacency(static_cast<const std::uint32_t*>(d), w, h, conn, bg, stride, Backend::Auto);
            const std::string what = "conn " + std::to_string(conn) + (bg ? " with background" : "");
            ASSERT_GT(cpu.size(), std::size_t(w * h / 64)) << what;
            ASSERT_EQ(gpu.size(), cpu.size()) << what;
            ASSERT_EQ(dev.size(), cpu.size()) << what;
            for (std::size_t i = 0; i < cpu.size(); ++i) {
                ASSERT_TRUE(gpu[i].a == cpu[i].a && gpu[i].b == cpu[i].b && gpu[i].contacts == cpu[i].contacts)
                    << what << " edge " << i;
                ASSERT_TRUE(dev[i].a == cpu[i].a && dev[i].b == cpu[i].b && dev[i].contacts == cpu[i].contacts)
                    << what << " edge " << i << " (device labels)";
            }
        }
    cudaFree(d);
}

}  // namespace
}  // namespace cclabel::test
