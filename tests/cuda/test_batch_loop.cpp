// Batches and tiles on the GPU against the CPU: label_batch with Backend::Cuda (today cclabel's
// own loop, cuda/batch_loop.hpp) for uniform and ragged batches, B = 0, 1, many; the device loop
// itself on device pointers; label_tiled with Backend::Cuda. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <random>

#include "cclabel/batch.hpp"
#include "cclabel/cclabel.hpp"
#include "cclabel/tiles.hpp"
#include "cuda/batch_loop.hpp"
#include "support/test_image.hpp"
#include "cuda/gpu_test.hpp"

namespace cclabel::test {
namespace {

Options on(Backend b, PixelFormat f, int conn, bool bg) {
    Options o;
    o.backend = b;
    o.connectivity = conn;
    if (bg && f != PixelFormat::Binary8) o.background = background_channels(f, 0);
    return o;
}

TEST(CudaBatch, UniformBatchEqualsCpu) {
    REQUIRE_GPU();
    std::uint32_t seed = 1;
    for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::U32})
        for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{128, 128}, {33, 9}, {1, 1}})
            for (std::int64_t B : {0, 1, 7, 64}) {
                const int bpp = bytes_per_pixel(f);
                std::vector<std::uint8_t> buf(std::size_t(std::max<std::int64_t>(B * w * h * bpp, 1)));
                for (std::int64_t b = 0; b < B; ++b) {
                    const TestImage img = make_image(w, h, f, random_values(w, h, 3, 0.3, seed++));
                    std::copy(img.storage.begin(), img.storage.end(), buf.begin() + b * w * h * bpp);
                }
                const BatchView view{buf.data(), B, w, h, 0, 0, f};
                for (int conn : {4, 8}) {
                    std::vector<std::uint32_t> cpu(std::size_t(B * w * h) + 1, 1), gpu(cpu.size(), 2);
                    const BatchResult rc = label_batch(view, cpu.data(), on(Backend::Cpu, f, conn, true));
                    const BatchResult rg = label_batch(view, gpu.data(), on(Backend::Cuda, f, conn, true));
                    EXPECT_EQ(rg.backend, Backend::Cuda);
                    ASSERT_EQ(rg.counts, rc.counts) << format_name(f) << " B " << B;
                    ASSERT_EQ(gpu.back(), 2u) << "wrote past the output";
                    gpu.back() = cpu.back();
                    ASSERT_EQ(gpu, cpu) << format_name(f) << " " << w << "x" << h << " B " << B << " conn " << conn;
                }
            }
}

TEST(CudaBatch, RaggedBatchEqualsCpu) {
    REQUIRE_GPU();
    std::mt19937 rng(3);
    for (std::size_t B : {0, 1, 5, 100}) {
        RaggedBatchView view;
        view.format = PixelFormat::Gray8;
        std::vector<std::uint8_t> buf;
        for (std::size_t b = 0; b < B; ++b) {
            const std::int64_t w = b % 9 == 4 ? 0 : 1 + std::int64_t(rng() % 200), h = 1 + std::int64_t(rng() % 150);
            const TestImage img = make_image(w, h, view.format, random_values(w, h, 4, 0.2, std::uint32_t(rng())), 3);
            buf.resize(buf.size() + 5);
            view.offsets.push_back(std::int64_t(buf.size()));
            view.widths.push_back(w);
            view.heights.push_back(h);
            view.strides.push_back(img.stride);
            buf.insert(buf.end(), img.storage.begin(), img.storage.end());
        }
        view.data = buf.empty() ? nullptr : buf.data();
        const std::uint64_t total = ragged_label_offsets(view).back();
        for (int conn : {4, 8}) {
            std::vector<std::uint32_t> cpu(total + 1, 1), gpu(total + 1, 2);
            const BatchResult rc = label_batch(view, cpu.data(), on(Backend::Cpu, view.format, conn, false));
            const BatchResult rg = label_batch(view, gpu.data(), on(Backend::Cuda, view.format, conn, false));
            ASSERT_EQ(rg.counts, rc.counts) << "B " << B;
            ASSERT_EQ(gpu.back(), 2u) << "wrote past the output";
            gpu.back() = cpu.back();
            ASSERT_EQ(gpu, cpu) << "B " << B << " conn " << conn;
        }
    }
}

// The loop on device pointers, as a benchmark calls it: 1,024 images of 128 x 128 on one stream.
TEST(CudaBatch, DeviceLoopOnDevicePointers) {
    REQUIRE_GPU();
    const std::int64_t w = 128, h = 128, B = 1024;
    std::vector<std::uint8_t> host(std::size_t(B * w * h));
    std::mt19937 rng(9);
    for (auto& p : host) p = std::uint8_t(rng() % 5 < 2);
    void *d_px = nullptr, *d_lab = nullptr, *d_cnt = nullptr, *d_ws = nullptr;
    ASSERT_EQ(cudaMalloc(&d_px, host.size()), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_lab, host.size() * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_cnt, std::size_t(B) * 4), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_px, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
    std::vector<ImageView> images;
    std::vector<std::uint64_t> offsets;
    for (std::int64_t b = 0; b < B; ++b) {
        images.push_back(make_view(static_cast<std::uint8_t*>(d_px) + b * w * h, w, h, PixelFormat::Binary8));
        offsets.push_back(std::uint64_t(b * w * h));
    }
    Options o;
    const std::size_t ws = cuda::batch_loop_workspace_bytes(images, o);
    ASSERT_EQ(cudaMalloc(&d_ws, ws), cudaSuccess);
    cuda::label_batch_loop(d_ws, ws, images, offsets.data(), static_cast<std::uint32_t*>(d_lab),
                           static_cast<std::uint32_t*>(d_cnt), o, nullptr);
    std::vector<std::uint32_t> got(host.size()), counts(static_cast<std::size_t>(B));
    ASSERT_EQ(cudaMemcpy(got.data(), d_lab, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(counts.data(), d_cnt, counts.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d_px);
    cudaFree(d_lab);
    cudaFree(d_cnt);
    cudaFree(d_ws);
    std::vector<std::uint32_t> want(host.size());
    o.backend = Backend::Cpu;
    const BatchResult r = label_batch(BatchView{host.data(), B, w, h, 0, 0, PixelFormat::Binary8}, want.data(), o);
    ASSERT_EQ(counts, r.counts);
    ASSERT_EQ(got, want);
}

TEST(CudaBatch, TiledOnTheGpuEqualsCpu) {
    REQUIRE_GPU();
    const std::int64_t w = 1500, h = 1100;
    const TestImage img = make_image(w, h, PixelFormat::RGB8, random_values(w, h, 3, 0.1, 5));
    for (int conn : {4, 8}) {
        std::vector<std::uint32_t> want(std::size_t(w * h)), got(want.size());
        const std::uint32_t n = label(img.view(), want.data(), on(Backend::Cpu, img.format, conn, true)).count;
        const TiledResult r = label_tiled(img.view(), got.data(), on(Backend::Cuda, img.format, conn, true), 512, 384);
        EXPECT_EQ(r.backend, Backend::Cuda);
        ASSERT_EQ(r.count, n);
        ASSERT_EQ(got, want) << "conn " << conn;
    }
}

}  // namespace
}  // namespace cclabel::test
