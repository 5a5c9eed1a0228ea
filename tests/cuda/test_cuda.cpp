// The CUDA backend against the CPU backend, label for label: random and adversarial pictures in
// every format, both connectivities, background on and off, each switch off in turn, two launch
// shapes; the device API on one stream without synchronising and on two streams; determinism; big
// pictures (A37/A38 with CCLABEL_GPU_HUGE=1); errors and out-of-memory. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "core/backends.hpp"
#include "cuda/label_tuned.hpp"
#include "support/adversarial.hpp"
#include "support/test_image.hpp"
#include "cuda/gpu_test.hpp"

bool gpu_bit_table(std::uint32_t* host);
long long gpu_fast_div_errors(const std::uint32_t* divisors, int n);

namespace cclabel::test {
namespace {

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

const cuda::LaunchShape kShapes[] = {{32, 32, 32, 1024, 4, 4}, {64, 4, 32, 128, 1, 1}, {32, 8, 32, 1024, 4, 1},
                                     {32, 16, 32, 512, 2, 8}};

// The segment pipeline (the default) at its launch shapes and with its switches off in turn.
std::vector<std::pair<std::string, cuda::Tuning>> segment_tunings() {
    std::vector<std::pair<std::string, cuda::Tuning>> v;
    cuda::Tuning t;
    v.push_back({"segments (default)", t});
    t.shape.seg_w = 7;
    t.shape.seg_threads = 64;
    v.push_back({"segments of 7, 64 a block", t});
    t.shape.seg_w = 1;
    t.shape.seg_threads = 512;
    t.shape.seg_rows = 3;
    v.push_back({"segments of 1, 512 a block, strips of 3", t});
    t = {};
    t.shape.seg_rows = 16;
    v.push_back({"segments, strips of 16", t});
    // Each switch the segment pipeline reads, away from its default in turn.
    for (auto [name, sw] : {std::pair{"skip_joins", &cuda::Switches::skip_joins},
                            std::pair{"path_halving", &cuda::Switches::path_halving},
                            std::pair{"cached_loads", &cuda::Switches::cached_loads},
                            std::pair{"seg_quad_number", &cuda::Switches::seg_quad_number},
                            std::pair{"seg_carry", &cuda::Switches::seg_carry},
                            std::pair{"seg_warp_carry", &cuda::Switches::seg_warp_carry},
                            std::pair{"seg_number_transpose", &cuda::Switches::seg_number_transpose},
                            std::pair{"seg_uniform_warps", &cuda::Switches::seg_uniform_warps},
                            std::pair{"seg_start_halves", &cuda::Switches::seg_start_halves},
                            std::pair{"seg_carry_labels", &cuda::Switches::seg_carry_labels},
                            std::pair{"seg_start_zeroes", &cuda::Switches::seg_start_zeroes}}) {
        t = {};
        t.switches.*sw = !(t.switches.*sw);
        v.push_back({std::string("segments, ") + name + (t.switches.*sw ? " on" : " off"), t});
    }
    t = {};
    t.switches.seg_quad_number = false;
    t.shape.seg_w = 6;
    v.push_back({"segments of 6, seg_quad_number off", t});
    // Carried runs across spans of a few segments (many span starts, walks of every length).
    t = {};
    t.shape.seg_w = 5;
    t.shape.seg_span = 3;
    v.push_back({"segments of 5, spans of 3", t});
    t = {};
    t.shape.seg_span = 1024;
    t.shape.seg_rows = 4;
    v.push_back({"segments, spans of 1024, strips of 4", t});
    // Number's pixels a thread: groups that straddle segments (3 and 7 with segments of 5 and 32).
    for (std::uint32_t px : {1u, 3u, 4u, 7u, 16u}) {
        t = {};
        t.shape.number_px = px;
        if (px == 3) t.shape.seg_w = 5;
        v.push_back({"segments, number " + std::to_string(px) + " px a thread" + (px == 3 ? ", segments of 5" : ""), t});
    }
    // Warp carry with segments narrower than 32 (spans of 32 segments of 5 pixels), 64 a block.
    t = {};
    t.shape.seg_w = 5;
    t.shape.seg_threads = 64;
    v.push_back({"segments of 5, 64 a block (warp carry)", t});
    return v;
}

Options options_for(const TestImage& img, int conn, std::optional<std::uint64_t> bg) {
    Options o;
    o.connectivity = conn;
    if (bg && img.format != PixelFormat::Binary8) o.background = background_channels(img.format, *bg);
    return o;
}

void expect_view_matches_cpu(const ImageView& view, const Options& o0, const cuda::Tuning& tuning, const std::string& what) {
    Options o = o0;
    o.backend = Backend::Cpu;
    const std::size_t n = std::size_t(view.pixels());
    std::vector<std::uint32_t> want(n + 1, 0xDEADBEEF), got(n + 1, 0xC0FFEE11);
    const LabelResult cpu = label(view, want.data(), o);
    std::uint32_t count = 0;
    try {
        count = cuda::detail::label_host(view, got.data(), o, tuning);
    } catch (const std::exception& e) {
        FAIL() << what << ": " << e.what();
    }
    ASSERT_EQ(count, cpu.count) << what;
    ASSERT_EQ(got[n], 0xC0FFEE11u) << what << ": wrote past the output";
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], want[i]) << what << " at (" << i % std::size_t(view.width) << ", "
                                   << i / std::size_t(view.width) << ")";
}

// The same through label() with Backend::Cuda (which may tile a picture the GPU cannot hold).
void expect_label_matches_cpu(const ImageView& view, const Options& o0, const std::string& what) {
    Options o = o0;
    o.backend = Backend::Cpu;
    const std::size_t n = std::size_t(view.pixels());
    std::vector<std::uint32_t> want(n + 1, 0xDEADBEEF), got(n + 1, 0xC0FFEE11);
    const LabelResult cpu = label(view, want.data(), o);
    o.backend = Backend::Cuda;
    LabelResult gpu;
    try {
        gpu = label(view, got.data(), o);
    } catch (const std::exception& e) {
        FAIL() << what << ": " << e.what();
    }
    EXPECT_EQ(gpu.backend, Backend::Cuda);
    ASSERT_EQ(gpu.count, cpu.count) << what;
    ASSERT_EQ(got[n], 0xC0FFEE11u) << what << ": wrote past the output";
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], want[i]) << what << " at (" << i % std::size_t(view.width) << ", "
                                   << i / std::size_t(view.width) << ")";
}

void expect_cuda_matches_cpu(const TestImage& img, const Options& o, const cuda::Tuning& tuning, const std::string& what) {
    expect_view_matches_cpu(img.view(), o, tuning, what);
}

TEST(Cuda, BitHelpersMatchHostValues) {
    REQUIRE_GPU();
    std::uint32_t v[21] = {};
    ASSERT_TRUE(gpu_bit_table(v));
    const std::uint32_t want[21] = {32, 0, 0, 31, 1, 1, 0, 32, 1, 0, 1, 32,
                                    0, 1, 0x7FFFFFFFu, 0xFFFFFFFFu, 1, 0x7FFFFFFFu, 0xFFFFFFFFu, 0, 31};
    for (int k = 0; k < 21; ++k) EXPECT_EQ(v[k], want[k]) << "entry " << k;
}

TEST(Cuda, BitHelpersFastDivisionIsExact) {
    REQUIRE_GPU();
    const std::uint32_t divisors[] = {1, 2, 3, 7, 8, 31, 32, 33, 1024, 1025, 33600, 0x7FFFFFFFu, 0x80000000u,
                                      0x80000001u, 0xFFFFFFFFu};
    EXPECT_EQ(gpu_fast_div_errors(divisors, int(std::size(divisors))), 0);
}

TEST(Cuda, RandomImagesEveryFormatShapeAndSwitch) {
    REQUIRE_GPU();
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {1, 300}, {300, 1}, {31, 7}, {33, 9}, {65, 64},
                                                           {257, 129}, {1000, 37}, {513, 517}};
    std::uint32_t seed = 1;
    std::vector<std::pair<std::string, cuda::Tuning>> tunings;
    for (const auto& [n, t] : segment_tunings()) tunings.push_back({n, t});
    for (const auto& s : kShapes) {
        cuda::Tuning t;
        t.switches.segment_runs = false;
        t.shape = s;
        tunings.push_back({"pixel pipeline, shape " + std::to_string(s.tile_w) + "x" + std::to_string(s.tile_h) +
                               " rows " + std::to_string(s.rows_per_thread), t});
    }
    {
        cuda::Tuning t;  // 1024-thread tiles: the whole shared parent array of tile_union_find
        t.switches.segment_runs = false;
        t.shape = {32, 32, 32, 1024, 4, 1};
        tunings.push_back({"pixel pipeline, shape 32x32", t});
    }
    for (int k = 0; k < 14; ++k) {
        cuda::Tuning t;
        t.switches.segment_runs = false;
        std::string n = "pixel pipeline, ";
        switch (k) {
            case 0: t.switches.up_before_left = false; n += "up_before_left off"; break;
            case 1: t.switches.warp_runs = false; n += "warp_runs off"; break;
            case 2: t.switches.skip_joins = false; n += "skip_joins off"; break;
            case 3: t.switches.path_halving = false; n += "path_halving off"; break;
            case 4: t.switches.background_in_start = false; n += "background_in_start off"; break;
            case 5: t.switches.fuse_start_connect = true; n += "fuse_start_connect on"; break;
            case 6: t.force_wide_numbering = true; n += "wide numbering"; break;
            case 7: t.switches.tile_union_find = false; n += "tile_union_find off"; break;
            case 8: t.switches.count_after_connect = true; n += "count_after_connect on"; break;
            case 9: t.switches.cached_loads = true; n += "cached_loads on"; break;
            case 10:
                t.switches.tile_union_find = false;
                t.switches.count_after_connect = false;
                t.switches.cached_loads = false;
                n += "the old kernels (tile_union_find, count_after_connect, cached_loads off)";
                break;
            case 11: t.switches.shared_keys = false; n += "shared_keys off"; break;
            case 12: t.switches.plain_flatten = false; n += "plain_flatten off"; break;
            case 13: t.switches.compress_walks = false; n += "compress_walks off"; break;
        }
        tunings.push_back({n, t});
    }
    for (const auto& [tname, tuning] : tunings)
        for (auto [w, h] : sizes)
            for (int conn : {4, 8})
                for (std::uint64_t pal : {2u, 5u, 0u}) {
                    const PixelFormat f = kFormats[seed % 6];
                    const auto vals = random_values(w, h, pal, (seed % 3) * 0.3, seed);
                    const auto img = make_image(w, h, f, vals, seed % 2 ? 3 : 0, seed % 4);
                    const std::optional<std::uint64_t> bg =
                        seed % 2 ? std::optional<std::uint64_t>{0} : std::optional<std::uint64_t>{};
                    expect_cuda_matches_cpu(img, options_for(img, conn, bg), tuning,
                                            tname + " " + std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                                std::to_string(h) + " pal " + std::to_string(pal) + " conn " +
                                                std::to_string(conn) + (bg ? " bg" : ""));
                    ++seed;
                }
}

TEST(Cuda, AdversarialBothShapes) {
    REQUIRE_GPU();
    std::uint64_t seed = 0;
    std::vector<cuda::Tuning> ts;
    for (const auto& shape : kShapes) {
        cuda::Tuning t;
        t.switches.segment_runs = false;
        t.shape = shape;
        ts.push_back(t);
    }
    ts.push_back(cuda::Tuning{});  // the segment pipeline
    cuda::Tuning narrow;
    narrow.shape.seg_w = 5;
    ts.push_back(narrow);
    for (const cuda::Tuning& t : ts) {
        const auto& shape = t.shape;
        for (const Case& c : adversarial_cases(true, shape.tile_w, shape.tile_h)) {
            for (int conn : {4, 8}) {
                const PixelFormat f = c.binary && seed % 2 ? PixelFormat::Binary8 : kFormats[1 + seed % 5];
                const auto img = make_image(c.width, c.height, f, c.v, seed % 3, seed % 4);
                for (auto bg : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0}})
                    expect_cuda_matches_cpu(img, options_for(img, conn, bg), t,
                                            c.name + " " + std::string(format_name(f)) + " conn " + std::to_string(conn) +
                                                (bg ? " bg" : "") + " tile " + std::to_string(shape.tile_w) +
                                                (t.switches.segment_runs ? " segments of " + std::to_string(shape.seg_w) : ""));
                ++seed;
            }
        }
    }
}

TEST(Cuda, EmptyAndTiny) {
    REQUIRE_GPU();
    Options o;
    o.backend = Backend::Cuda;
    std::uint32_t dummy = 7;
    EXPECT_EQ(label(make_view(nullptr, 0, 0, PixelFormat::Gray8), &dummy, o).count, 0u);
    EXPECT_EQ(label(make_view(nullptr, 0, 5, PixelFormat::RGB8), &dummy, o).count, 0u);
    const std::uint8_t px[3] = {1, 2, 3};
    std::uint32_t l = 0xFFFFFFFF;
    EXPECT_EQ(label(make_view(px, 1, 1, PixelFormat::RGB8), &l, o).count, 1u);
    EXPECT_EQ(l, 1u);
}

// Device API: a workspace per stream, images already on the GPU.
struct DevImage {
    void* data = nullptr;
    std::uint32_t* labels = nullptr;
    std::uint32_t* count = nullptr;
    ImageView view;
    std::size_t n = 0;
    explicit DevImage(const TestImage& img) {
        n = std::size_t(img.width * img.height);
        EXPECT_EQ(cudaMalloc(&data, img.storage.size()), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(data, img.storage.data(), img.storage.size(), cudaMemcpyHostToDevice), cudaSuccess);
        EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&labels), n * 4 + 4), cudaSuccess);
        EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&count), 4), cudaSuccess);
        view = img.view();
        view.data = static_cast<std::uint8_t*>(data) + img.offset;
        poison();
    }
    void poison() { EXPECT_EQ(cudaMemset(labels, 0xA7, n * 4 + 4), cudaSuccess); }
    std::vector<std::uint32_t> read(std::uint32_t& c) const {
        std::vector<std::uint32_t> v(n + 1);
        EXPECT_EQ(cudaMemcpy(v.data(), labels, n * 4 + 4, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(cudaMemcpy(&c, count, 4, cudaMemcpyDeviceToHost), cudaSuccess);
        return v;
    }
    ~DevImage() {
        cudaFree(data);
        cudaFree(labels);
        cudaFree(count);
    }
};

std::vector<std::uint32_t> cpu_labels(const TestImage& img, const Options& o0, std::uint32_t& n) {
    Options o = o0;
    o.backend = Backend::Cpu;
    std::vector<std::uint32_t> v(std::size_t(img.width * img.height));
    n = label(img.view(), v.data(), o).count;
    return v;
}

void expect_device_result(const DevImage& d, const TestImage& img, const Options& o, const std::string& what) {
    std::uint32_t n_cpu = 0, n_gpu = 0;
    const auto want = cpu_labels(img, o, n_cpu);
    const auto got = d.read(n_gpu);
    ASSERT_EQ(n_gpu, n_cpu) << what;
    ASSERT_EQ(got[d.n], 0xA7A7A7A7u) << what << ": wrote past the labels";
    ASSERT_EQ(0, std::memcmp(got.data(), want.data(), d.n * 4)) << what;
}

TEST(Cuda, BackToBackOnOneStreamWithoutSync) {
    REQUIRE_GPU();
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    std::vector<TestImage> imgs;
    imgs.push_back(make_image(700, 300, PixelFormat::RGB8, random_values(700, 300, 4, 0.1, 1), 1, 1));
    imgs.push_back(make_image(301, 777, PixelFormat::Gray8, percolation(301, 777, 0.5927, 2).v));
    imgs.push_back(make_image(1024, 513, PixelFormat::RGBA8, uniform(1024, 513, 3).v, 0, 3));
    imgs.push_back(make_image(555, 444, PixelFormat::Gray16, random_values(555, 444, 0, 0, 4)));
    std::vector<std::unique_ptr<DevImage>> dev;
    for (auto& im : imgs) dev.push_back(std::make_unique<DevImage>(im));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::size_t bytes = 0, b = 0;
    Options o;
    for (auto& d : dev) {
        cuda::label_device(nullptr, b, d->view, d->labels, d->count, o, s);
        bytes = std::max(bytes, b);
    }
    void* ws = nullptr;
    ASSERT_EQ(cudaMalloc(&ws, bytes), cudaSuccess);
    for (int round = 0; round < 3; ++round)
        for (auto& d : dev) cuda::label_device(ws, bytes, d->view, d->labels, d->count, o, s);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    for (std::size_t k = 0; k < imgs.size(); ++k) expect_device_result(*dev[k], imgs[k], o, "image " + std::to_string(k));
    cudaFree(ws);
    cudaStreamDestroy(s);
}

TEST(Cuda, TwoStreamsTwoWorkspaces) {
    REQUIRE_GPU();
    cudaStream_t s[2];
    for (auto& x : s) ASSERT_EQ(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking), cudaSuccess);
    const TestImage a = make_image(2000, 1500, PixelFormat::RGB8, granular(2000, 1500, 3, 3, 9).v);
    const TestImage b = make_image(1777, 1333, PixelFormat::Gray8, percolation(1777, 1333, 0.5927, 5).v);
    DevImage da(a), db(b);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    Options o;
    o.connectivity = 4;
    std::size_t ba = 0, bb = 0;
    cuda::label_device(nullptr, ba, da.view, da.labels, da.count, o, s[0]);
    cuda::label_device(nullptr, bb, db.view, db.labels, db.count, o, s[1]);
    void *wa = nullptr, *wb = nullptr;
    ASSERT_EQ(cudaMalloc(&wa, ba), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&wb, bb), cudaSuccess);
    for (int round = 0; round < 5; ++round) {
        cuda::label_device(wa, ba, da.view, da.labels, da.count, o, s[0]);
        cuda::label_device(wb, bb, db.view, db.labels, db.count, o, s[1]);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    expect_device_result(da, a, o, "stream 0");
    expect_device_result(db, b, o, "stream 1");
    cudaFree(wa);
    cudaFree(wb);
    for (auto& x : s) cudaStreamDestroy(x);
}

// A40: 20 runs byte-identical, at two shapes, on contended pictures.
TEST(Cuda, DeterministicOverTwentyRuns) {
    REQUIRE_GPU();
    std::vector<TestImage> imgs;
    imgs.push_back(make_image(1500, 1000, PixelFormat::Gray8, uniform(1500, 1000, 1).v));
    imgs.push_back(make_image(1001, 999, PixelFormat::RGB8, percolation(1001, 999, 0.5927, 11).v));
    imgs.push_back(make_image(1023, 1025, PixelFormat::Gray8, checkerboard(1023, 1025).v));
    imgs.push_back(make_image(1025, 400, PixelFormat::Gray8, comb(1025, 400, 0).v));
    std::vector<cuda::Tuning> ts(1);  // the segment pipeline, then the pixel pipeline's shapes
    for (const auto& shape : kShapes) {
        cuda::Tuning t;
        t.switches.segment_runs = false;
        t.shape = shape;
        ts.push_back(t);
    }
    for (const cuda::Tuning& t : ts)
        for (const auto& img : imgs) {
            DevImage d(img);
            Options o;
            o.connectivity = 4;
            std::size_t bytes = 0;
            cuda::detail::label_device_tuned(nullptr, bytes, d.view, d.labels, d.count, o, nullptr, t);
            void* ws = nullptr;
            ASSERT_EQ(cudaMalloc(&ws, bytes), cudaSuccess);
            std::vector<std::uint32_t> first;
            for (int run = 0; run < 20; ++run) {
                d.poison();
                cuda::detail::label_device_tuned(ws, bytes, d.view, d.labels, d.count, o, nullptr, t);
                std::uint32_t c = 0;
                auto got = d.read(c);
                if (run == 0) {
                    first = got;
                    expect_device_result(d, img, o, "determinism");
                } else {
                    ASSERT_EQ(got, first) << "run " << run << " differs";
                }
            }
            cudaFree(ws);
        }
}

TEST(Cuda, DeviceApiErrors) {
    REQUIRE_GPU();
    const TestImage img = make_image(100, 100, PixelFormat::Gray8, random_values(100, 100, 3, 0, 1));
    DevImage d(img);
    std::size_t bytes = 0;
    cuda::label_device(nullptr, bytes, d.view, d.labels, d.count);
    EXPECT_GT(bytes, 0u);
    void* ws = nullptr;
    ASSERT_EQ(cudaMalloc(&ws, bytes), cudaSuccess);
    std::size_t small = bytes - 1;
    EXPECT_THROW(cuda::label_device(ws, small, d.view, d.labels, d.count), Error);
    EXPECT_THROW(cuda::label_device(ws, bytes, d.view, d.labels, nullptr), Error);
    EXPECT_THROW(cuda::label_device(ws, bytes, d.view, nullptr, d.count), Error);
    cuda::Tuning bad;
    bad.shape.tile_w = 48;
    EXPECT_THROW(cuda::detail::label_device_tuned(nullptr, bytes, d.view, d.labels, d.count, {}, nullptr, bad),
                 Error);
    cudaFree(ws);
}

TEST(Cuda, OutOfMemoryIsAnErrorAndTheDeviceStaysUsable) {
    REQUIRE_GPU();
    // Buffers that earlier host calls left in the device cache (cuda/device_cache.hpp) would serve
    // this call: the memory must really be short.
    cclabel::detail::free_device_cache();
    std::size_t free_b = 0, total_b = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    void* ballast = nullptr;
    const std::size_t keep = std::size_t(64) << 20;
    ASSERT_EQ(cudaMalloc(&ballast, free_b - keep), cudaSuccess);
    const TestImage img = make_image(8000, 4000, PixelFormat::Gray8, uniform(8000, 4000, 1).v);  // 32 Mpx: 160 MB
    Options o;
    o.backend = Backend::Cuda;
    std::vector<std::uint32_t> out(std::size_t(8000 * 4000));
    // The host call without tiles runs out of memory, and says so.
    try {
        cuda::detail::label_host(img.view(), out.data(), o);
        ADD_FAILURE() << "expected an out-of-memory Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("cudaMalloc"), std::string::npos) << e.what();
    }
    // label() sees the picture does not fit and labels it in tiles that do.
    std::fill(out.begin(), out.end(), 7u);
    EXPECT_EQ(label(img.view(), out.data(), o).count, 1u);
    EXPECT_EQ(std::count(out.begin(), out.end(), 1u), std::ptrdiff_t(out.size()));
    const TestImage rnd = make_image(3000, 2500, PixelFormat::RGB8, random_values(3000, 2500, 3, 0.2, 77));
    expect_label_matches_cpu(rnd.view(), o, "3000x2500 RGB8 with 64 MB free");
    cudaFree(ballast);
    EXPECT_EQ(label(img.view(), out.data(), o).count, 1u);
    EXPECT_EQ(out.back(), 1u);
}

TEST(Cuda, PicturesLargerThanTheFreeMemoryGoInTiles) {
    REQUIRE_GPU();
    // CCLABEL_TEST_GPU_FREE_BYTES makes label() believe the GPU has 4 MB free: tiles of 256².
    ASSERT_EQ(setenv("CCLABEL_TEST_GPU_FREE_BYTES", "4000000", 1), 0);
    std::uint32_t seed = 5;
    for (PixelFormat f : {PixelFormat::RGB8, PixelFormat::Binary8, PixelFormat::Gray16})
        for (int conn : {4, 8}) {
            const TestImage img = make_image(1500, 1100, f, random_values(1500, 1100, 2, 0.3, seed++));
            Options o;
            o.connectivity = conn;
            o.background = f == PixelFormat::Binary8 ? std::nullopt : std::optional{background_channels(f, 0)};
            expect_label_matches_cpu(img.view(), o,
                                     "tiled for want of memory " + std::string(format_name(f)) + " conn " + std::to_string(conn));
        }
    unsetenv("CCLABEL_TEST_GPU_FREE_BYTES");
}

// A37 (more than 2^31 pixels: the wide path) and A38 (806 Mpx RGB8, 2.4 GB). Minutes of CPU time,
// so only where CCLABEL_GPU_HUGE=1 (scripts/gpu_check.sh sets it on the GPU machine).
// Blocks of 6 colours (bpp bytes a pixel, channel 0 varies) and one region in the last column that
// holds the last pixel and reaches the first row. Built straight into bytes: no per-pixel copies.
std::vector<std::uint8_t> blocks_with_last_region(std::int64_t w, std::int64_t h, int bpp, std::int64_t block) {
    std::vector<std::uint8_t> b(std::size_t(w * h * bpp), 0);
    for (std::int64_t y = 0; y < h; ++y) {
        std::uint8_t* row = b.data() + std::size_t(y * w * bpp);
        for (std::int64_t x = 0; x < w; ++x) {
            std::uint64_t k = std::uint64_t((y / block) * 1000003 + (x / block)) * 0x9E3779B97F4A7C15ull;
            k ^= k >> 29;
            row[x * bpp] = std::uint8_t(1 + k % 6);
        }
        row[(w - 1) * bpp] = 7;
    }
    return b;
}

TEST(Cuda, HugePictures) {
    REQUIRE_GPU();
    const char* huge = std::getenv("CCLABEL_GPU_HUGE");
    if (!huge || std::string(huge) != "1") GTEST_SKIP() << "set CCLABEL_GPU_HUGE=1 for A37/A38";
    {
        const std::int64_t w = 33600, h = 24000;  // A38: 806 Mpx, 2.42 GB of RGB8
        const auto bytes = blocks_with_last_region(w, h, 3, 37);
        Options o;
        expect_view_matches_cpu(make_view(bytes.data(), w, h, PixelFormat::RGB8), o, cuda::Tuning{},
                                "A38 RGB8 33600x24000");
    }
    {
        const std::int64_t w = 50000, h = 50000;  // A37 (issue 7): 2.5 Gpx, past 2^31: the wide path
        const auto bytes = blocks_with_last_region(w, h, 1, 53);
        Options o;
        o.connectivity = 4;
        expect_view_matches_cpu(make_view(bytes.data(), w, h, PixelFormat::Gray8), o, cuda::Tuning{},
                                "A37 Gray8 50000x50000");
    }
}

}  // namespace
}  // namespace cclabel::test
