// The batched device API (cclabel::cuda::label_batch_device) against the CPU labeller image by
// image: stacks of random and one-colour images (every seam a join the image-top rule must refuse),
// heights that do and do not fill the tiles, switches and launch shapes, chunked stacks
// (Tuning::batch_stack_pixels), layouts that fall back to one call an image, and two batches back
// to back on one stream with no synchronisation between them. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <tuple>
#include <string>

#include "cclabel/batch.hpp"
#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cuda/label_tuned.hpp"
#include "support/test_image.hpp"
#include "cuda/dev_mem.hpp"
#include "cuda/gpu_test.hpp"

namespace cclabel::test {
namespace {

/// Copies @p host_batch (B images laid out as @p view says, on the host) to the device, labels it
/// with label_batch_device, and compares labels and counts with the CPU labeller on each image.
void expect_device_batch_matches_cpu(const std::vector<std::uint8_t>& host, BatchView view, const Options& o,
                                     const cuda::Tuning& tuning, const std::string& what) {
    const std::int64_t B = view.count, P = view.width * view.height;
    DevMem d_px(host.size()), d_lab(std::size_t(B * P) * 4 + 4), d_cnt(std::size_t(B) * 4 + 4);
    ASSERT_EQ(cudaMemcpy(d_px.p, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(d_lab.p, 0xAB, std::size_t(B * P) * 4 + 4), cudaSuccess);
    ASSERT_EQ(cudaMemset(d_cnt.p, 0xCD, std::size_t(B) * 4 + 4), cudaSuccess);
    BatchView dv = view;
    dv.data = d_px.p;
    std::size_t ws_bytes = 0;
    cuda::detail::label_batch_device_tuned(nullptr, ws_bytes, dv, nullptr, nullptr, o, nullptr, tuning);
    DevMem d_ws(ws_bytes);
    cuda::detail::label_batch_device_tuned(d_ws.p, ws_bytes, dv, static_cast<std::uint32_t*>(d_lab.p),
                                           static_cast<std::uint32_t*>(d_cnt.p), o, nullptr, tuning);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
    std::vector<std::uint32_t> got(std::size_t(B * P) + 1), counts(std::size_t(B) + 1);
    ASSERT_EQ(cudaMemcpy(got.data(), d_lab.p, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(counts.data(), d_cnt.p, counts.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(got.back(), 0xABABABABu) << what << ": wrote past the labels";
    ASSERT_EQ(counts.back(), 0xCDCDCDCDu) << what << ": wrote past the counts";
    Options cpu = o;
    cpu.backend = Backend::Cpu;
    BatchView hv = view;
    hv.data = host.data();
    std::vector<std::uint32_t> want(static_cast<std::size_t>(P));
    for (std::int64_t b = 0; b < B; ++b) {
        const LabelResult r = label(hv.image(b), want.data(), cpu);
        ASSERT_EQ(counts[std::size_t(b)], r.count) << what << " image " << b;
        for (std::int64_t i = 0; i < P; ++i)
            ASSERT_EQ(got[std::size_t(b * P + i)], want[std::size_t(i)])
                << what << " image " << b << " at (" << i % view.width << ", " << i / view.width << ")";
    }
}

/// B images of w × h, random values from a small palette (so regions reach the seams), packed.
std::vector<std::uint8_t> random_stack(std::int64_t B, std::int64_t w, std::int64_t h, PixelFormat f,
                                       std::uint64_t palette, std::uint32_t seed) {
    const TestImage img = make_image(w, h * B, f, random_values(w, h * B, palette, 0.25, seed));
    return img.storage;
}

Options options(PixelFormat f, int conn, bool bg) {
    Options o;
    o.connectivity = conn;
    if (bg && f != PixelFormat::Binary8) o.background = background_channels(f, 0);
    return o;
}

TEST(CudaBatchDevice, RandomStacksEveryFormat) {
    REQUIRE_GPU();
    std::uint32_t seed = 1;
    const PixelFormat formats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                   PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};
    const std::array<std::array<std::int64_t, 3>, 7> shapes = {
        {{128, 128, 64}, {512, 512, 5}, {33, 9, 40}, {1, 1, 300}, {1, 77, 9}, {250, 1, 17}, {100, 37, 12}}};
    for (PixelFormat f : formats)
        for (const auto& [w, h, B] : shapes)
            for (int conn : {4, 8}) {
                const bool bg = seed % 2 == 0;
                const auto host = random_stack(B, w, h, f, seed % 3 ? 2 : 3, seed);
                expect_device_batch_matches_cpu(host, BatchView{nullptr, B, w, h, 0, 0, f}, options(f, conn, bg), {},
                                                std::string(format_name(f)) + " " + std::to_string(B) + " x " +
                                                    std::to_string(w) + "x" + std::to_string(h) + " conn " +
                                                    std::to_string(conn) + (bg ? " bg" : ""));
                ++seed;
            }
}

TEST(CudaBatchDevice, OneColourImagesStayApart) {
    REQUIRE_GPU();
    for (std::int64_t h : {1, 2, 31, 32, 33, 64}) {
        const std::int64_t w = 70, B = 20;
        std::vector<std::uint8_t> host(std::size_t(w * h * B), 9);
        for (int conn : {4, 8})
            expect_device_batch_matches_cpu(host, BatchView{nullptr, B, w, h, 0, 0, PixelFormat::Gray8},
                                            options(PixelFormat::Gray8, conn, false), {},
                                            "one colour 70x" + std::to_string(h) + " conn " + std::to_string(conn));
        // A diagonal stripe pattern: every image's last row touches the next image's first row
        // only diagonally, which 8-connectivity must not join either.
        for (std::int64_t i = 0; i < w * h * B; ++i) host[std::size_t(i)] = std::uint8_t(((i % w) + (i / w)) % 2);
        expect_device_batch_matches_cpu(host, BatchView{nullptr, B, w, h, 0, 0, PixelFormat::Binary8},
                                        options(PixelFormat::Binary8, 8, false), {}, "diagonals 70x" + std::to_string(h));
    }
}

TEST(CudaBatchDevice, SwitchesShapesAndChunks) {
    REQUIRE_GPU();
    std::vector<std::pair<std::string, cuda::Tuning>> tunings;
    cuda::Tuning t;
    tunings.push_back({"default (segments)", t});
    t.shape.seg_w = 7;
    t.shape.seg_threads = 64;
    tunings.push_back({"segments of 7", t});
    cuda::Tuning pixels;  // the pixel pipeline and its switches
    pixels.switches.segment_runs = false;
    t = pixels;
    tunings.push_back({"pixel pipeline", t});
    t.shape.rows_per_thread = 1;
    tunings.push_back({"one row a thread", t});
    t = pixels;
    t.shape.tile_h = 8;
    tunings.push_back({"32x8 tiles", t});
    t = pixels;
    t.switches.fuse_start_connect = true;
    tunings.push_back({"fused", t});
    t = pixels;
    t.switches.tile_union_find = false;
    tunings.push_back({"no tile union-find", t});
    t = pixels;
    t.switches.count_after_connect = true;
    tunings.push_back({"Count kernel", t});
    t = pixels;
    t.switches.background_in_start = false;
    tunings.push_back({"background_in_start off", t});
    for (std::uint64_t cap : {1u, 5000u, 20000u})
        for (bool seg : {true, false}) {
            t = {};
            t.switches.segment_runs = seg;
            t.batch_stack_pixels = cap;  // 1: one image a launch; else several chunks of several images
            tunings.push_back({"stacks of at most " + std::to_string(cap) + " pixels" + (seg ? "" : ", pixel pipeline"), t});
        }
    std::uint32_t seed = 50;
    for (const auto& [name, tuning] : tunings)
        for (int conn : {4, 8}) {
            const std::int64_t w = 45, h = 29, B = 23;
            const auto host = random_stack(B, w, h, PixelFormat::RGB8, 2, seed);
            expect_device_batch_matches_cpu(host, BatchView{nullptr, B, w, h, 0, 0, PixelFormat::RGB8},
                                            options(PixelFormat::RGB8, conn, seed % 2 == 0), tuning,
                                            name + " conn " + std::to_string(conn));
            ++seed;
        }
}

TEST(CudaBatchDevice, LayoutsThatCannotStack) {
    REQUIRE_GPU();
    // Padded rows (stride > width) stack as one strided picture; a gap between images does not,
    // and takes one call an image.
    const std::int64_t w = 40, h = 13, B = 9, stride = 48, gap = 3 * stride;
    std::vector<std::uint8_t> host(std::size_t(B * (h * stride + gap)));
    std::mt19937 rng(4);
    for (auto& p : host) p = std::uint8_t(rng() % 2);
    expect_device_batch_matches_cpu(host, BatchView{nullptr, B, w, h, stride, h * stride, PixelFormat::Gray8},
                                    options(PixelFormat::Gray8, 8, false), {}, "padded rows");
    expect_device_batch_matches_cpu(host, BatchView{nullptr, B, w, h, stride, h * stride + gap, PixelFormat::Gray8},
                                    options(PixelFormat::Gray8, 8, false), {}, "gaps between images");
}

TEST(CudaBatchDevice, BackToBackOnOneStreamAndEmptyBatches) {
    REQUIRE_GPU();
    const std::int64_t w = 128, h = 128, B = 256;
    const auto a = random_stack(B, w, h, PixelFormat::Binary8, 2, 91), b = random_stack(B, w, h, PixelFormat::Binary8, 2, 92);
    DevMem d_a(a.size()), d_b(b.size()), d_la(a.size() * 4), d_lb(b.size() * 4), d_ca(B * 4), d_cb(B * 4);
    ASSERT_EQ(cudaMemcpy(d_a.p, a.data(), a.size(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_b.p, b.data(), b.size(), cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    BatchView va{d_a.p, B, w, h, 0, 0, PixelFormat::Binary8}, vb = va;
    vb.data = d_b.p;
    std::size_t ws = 0;
    cuda::label_batch_device(nullptr, ws, va, nullptr, nullptr, {}, s);
    DevMem d_ws(ws);
    // One workspace, two batches, no synchronisation between them.
    cuda::label_batch_device(d_ws.p, ws, va, static_cast<std::uint32_t*>(d_la.p), static_cast<std::uint32_t*>(d_ca.p), {}, s);
    cuda::label_batch_device(d_ws.p, ws, vb, static_cast<std::uint32_t*>(d_lb.p), static_cast<std::uint32_t*>(d_cb.p), {}, s);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    cudaStreamDestroy(s);
    for (auto [host, lab, cnt] : {std::tuple{&a, &d_la, &d_ca}, std::tuple{&b, &d_lb, &d_cb}}) {
        std::vector<std::uint32_t> got(host->size()), counts(B), want(host->size());
        ASSERT_EQ(cudaMemcpy(got.data(), lab->p, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(counts.data(), cnt->p, counts.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        Options o;
        o.backend = Backend::Cpu;
        const BatchResult r = label_batch(BatchView{host->data(), B, w, h, 0, 0, PixelFormat::Binary8}, want.data(), o);
        ASSERT_EQ(counts, r.counts);
        ASSERT_EQ(got, want);
    }
    // Empty batches and empty images: counts of 0, nothing else written.
    std::size_t ws0 = 0;
    cuda::label_batch_device(nullptr, ws0, BatchView{nullptr, 0, 5, 5, 0, 0, PixelFormat::Gray8}, nullptr, nullptr);
    DevMem d_ws0(ws0), d_c0(16);
    cuda::label_batch_device(d_ws0.p, ws0, BatchView{nullptr, 0, 5, 5, 0, 0, PixelFormat::Gray8}, nullptr,
                             static_cast<std::uint32_t*>(d_c0.p));
    std::size_t ws1 = 0;
    const BatchView empty_images{d_a.p, 4, 0, 7, 0, 0, PixelFormat::Gray8};
    cuda::label_batch_device(nullptr, ws1, empty_images, nullptr, nullptr);
    DevMem d_ws1(ws1);
    ASSERT_EQ(cudaMemset(d_c0.p, 0xFF, 16), cudaSuccess);
    cuda::label_batch_device(d_ws1.p, ws1, empty_images, static_cast<std::uint32_t*>(d_la.p),
                             static_cast<std::uint32_t*>(d_c0.p));
    std::vector<std::uint32_t> c0(4);
    ASSERT_EQ(cudaMemcpy(c0.data(), d_c0.p, 16, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(c0, std::vector<std::uint32_t>(4, 0u));
}

TEST(CudaBatchDevice, Errors) {
    REQUIRE_GPU();
    std::size_t ws = 0;
    std::uint8_t px = 0;
    auto expect_error = [](auto&& fn, const std::string& part) {
        try {
            fn();
            ADD_FAILURE() << "no error; expected one containing '" << part << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    expect_error([&] { cuda::label_batch_device(nullptr, ws, BatchView{&px, -1, 1, 1, 0, 0, PixelFormat::Gray8}, nullptr, nullptr); },
                 "negative");
    cuda::label_batch_device(nullptr, ws, BatchView{&px, 1, 1, 1, 0, 0, PixelFormat::Gray8}, nullptr, nullptr);
    DevMem d_ws(ws), d_l(4), d_c(4);
    expect_error([&] {
        std::size_t small = ws - 1;
        cuda::label_batch_device(d_ws.p, small, BatchView{d_l.p, 1, 1, 1, 0, 0, PixelFormat::Gray8},
                                 static_cast<std::uint32_t*>(d_l.p), static_cast<std::uint32_t*>(d_c.p));
    }, "needed");
    expect_error([&] {
        cuda::label_batch_device(d_ws.p, ws, BatchView{d_l.p, 1, 1, 1, 0, 0, PixelFormat::Gray8},
                                 static_cast<std::uint32_t*>(d_l.p), nullptr);
    }, "counts pointer is null");
}

}  // namespace
}  // namespace cclabel::test
