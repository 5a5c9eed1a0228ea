// Segmentation on the GPU equals the CPU exactly: Otsu, threshold and K-means on random pictures of
// every accepted format from 0×0 to a few megapixels, several seeds and k; the device API chained on
// one stream (Otsu → threshold → label) without a host round trip; errors. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cclabel/cuda_segment.hpp"
#include "cpp/segment_reference.hpp"
#include "cuda/gpu_test.hpp"

namespace cclabel::test {
namespace {

using segref::Pic;

const std::pair<int, int> kSizes[] = {{0, 0}, {0, 5}, {1, 1}, {33, 17}, {1000, 700}, {2500, 1700}};

SegmentOptions on(Backend b) {
    SegmentOptions o;
    o.backend = b;
    return o;
}

TEST(SegmentCuda, OtsuAndThresholdEqualTheCpu) {
    REQUIRE_GPU();
    int seed = 0;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8, PixelFormat::RGBA8})
        for (auto [w, h] : kSizes)
            for (int levels : {4, 256}) {
                const Pic p = segref::random_pic(w, h, f, std::uint32_t(++seed), 3, 1, levels);
                const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h);
                std::uint32_t t = 100;
                if (f != PixelFormat::U32) {
                    t = otsu_threshold(p.view(), on(Backend::Cuda));
                    ASSERT_EQ(t, otsu_threshold(p.view(), on(Backend::Cpu))) << what;
                }
                const std::size_t n = std::size_t(w) * std::size_t(h);
                std::vector<std::uint8_t> a(n + 1, 7), b(n + 1, 9);
                threshold(p.view(), t, a.data(), on(Backend::Cuda));
                threshold(p.view(), t, b.data(), on(Backend::Cpu));
                ASSERT_EQ(a[n], 7) << what << ": wrote past the mask";
                a[n] = 9;
                ASSERT_EQ(a, b) << what;
            }
}

TEST(SegmentCuda, KMeansEqualsTheCpu) {
    REQUIRE_GPU();
    int seed = 0;
    for (PixelFormat f : {PixelFormat::RGB8, PixelFormat::RGBA8, PixelFormat::Gray8})
        for (auto [w, h] : kSizes)
            for (int k : {1, 3, 8, 16, 17, 40}) {  // k ≤ 16: the fast assign kernel; above: the general one
                ++seed;
                const Pic p = segref::random_pic(w, h, f, std::uint32_t(seed), 1, 2, seed % 2 ? 5 : 256);
                KMeansOptions o;
                o.k = k;
                o.max_iterations = 8;
                o.seed = std::uint64_t(seed) * 1000003;
                const std::size_t n = std::size_t(w) * std::size_t(h);
                std::vector<std::uint32_t> a(n + 1, 0x77777777u), b(n + 1, 0x77777777u);
                o.backend = Backend::Cuda;
                const KMeansResult g = kmeans(p.view(), a.data(), o);
                o.backend = Backend::Cpu;
                const KMeansResult c = kmeans(p.view(), b.data(), o);
                const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h) + " k " + std::to_string(k);
                ASSERT_EQ(a, b) << what;
                EXPECT_EQ(g.centres, c.centres) << what;
                EXPECT_EQ(g.iterations, c.iterations) << what;
                EXPECT_EQ(g.converged, c.converged) << what;
                EXPECT_EQ(g.backend, Backend::Cuda);
            }
}

TEST(SegmentCuda, KMeansConvergesEarlyOnTheGpu) {
    REQUIRE_GPU();
    // Two flat halves: converged after one update; the remaining kernels return at once.
    std::vector<std::uint8_t> img(3 * 640 * 480, 20);
    for (std::size_t i = 0; i < img.size() / 2; ++i) img[i] = 220;
    KMeansOptions o;
    o.k = 2, o.max_iterations = 30, o.backend = Backend::Cuda;
    std::vector<std::uint32_t> a(640 * 480), b(640 * 480);
    const KMeansResult g = kmeans(make_view(img.data(), 640, 480, PixelFormat::RGB8), a.data(), o);
    o.backend = Backend::Cpu;
    const KMeansResult c = kmeans(make_view(img.data(), 640, 480, PixelFormat::RGB8), b.data(), o);
    EXPECT_TRUE(g.converged);
    EXPECT_LT(g.iterations, 30u);
    EXPECT_EQ(g.iterations, c.iterations);
    EXPECT_EQ(a, b);
}

TEST(SegmentCuda, ThresholdDeviceAnyLayoutEqualsTheCpu) {
    REQUIRE_GPU();
    // Packed and aligned (16-byte loads and stores), padded rows, an odd base and an odd mask
    // address; every threshold edge of 8 bits.
    const int w = 1037, h = 61;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8})
        for (int layout = 0; layout < 3; ++layout) {
            const int pad = layout == 0 ? 0 : 5, offset = layout == 2 ? 3 : 0;
            const Pic p = segref::random_pic(w, h, f, std::uint32_t(40 + layout), pad, offset, 256);
            const std::size_t n = std::size_t(w) * h, bytes = p.bytes.size();
            void *d_img = nullptr, *d_mask = nullptr;
            ASSERT_EQ(cudaMalloc(&d_img, bytes), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&d_mask, n + 16), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(d_img, p.bytes.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
            const ImageView dv{static_cast<std::uint8_t*>(d_img) + offset, w, h, p.stride, f};
            auto* mask = static_cast<std::uint8_t*>(d_mask) + (layout == 2 ? 1 : 0);
            {  // Otsu: the 4-pixel-word histogram when packed and aligned, the general one otherwise
                std::size_t ws_bytes = 0;
                void *d_ws = nullptr, *d_t = nullptr;
                ASSERT_EQ(cudaMalloc(&d_t, 4), cudaSuccess);
                cuda::otsu_threshold_device(nullptr, ws_bytes, dv, static_cast<std::uint32_t*>(d_t));
                ASSERT_EQ(cudaMalloc(&d_ws, ws_bytes), cudaSuccess);
                cuda::otsu_threshold_device(d_ws, ws_bytes, dv, static_cast<std::uint32_t*>(d_t));
                std::uint32_t t = 0;
                ASSERT_EQ(cudaMemcpy(&t, d_t, 4, cudaMemcpyDeviceToHost), cudaSuccess);
                EXPECT_EQ(t, segref::otsu(p)) << format_name(f) << " layout " << layout;
                cudaFree(d_ws);
                cudaFree(d_t);
            }
            for (std::uint32_t t : {0u, 1u, 128u, 254u, 255u, 300u}) {
                cuda::threshold_device(dv, t, mask);
                std::vector<std::uint8_t> got(n), want(n);
                ASSERT_EQ(cudaMemcpy(got.data(), mask, n, cudaMemcpyDeviceToHost), cudaSuccess);
                threshold(p.view(), t, want.data(), on(Backend::Cpu));
                ASSERT_EQ(got, want) << format_name(f) << " layout " << layout << " t " << t;
            }
            cudaFree(d_img);
            cudaFree(d_mask);
        }
}

TEST(SegmentCuda, DeviceApiChainsOtsuThresholdAndLabel) {
    REQUIRE_GPU();
    const int w = 1500, h = 1100;
    const Pic p = segref::random_pic(w, h, PixelFormat::Gray8, 77, 0, 0, 6);
    const std::size_t n = std::size_t(w) * h;
    void *d_img, *d_mask, *d_labels, *d_t, *d_count, *d_ws = nullptr, *d_lws = nullptr;
    ASSERT_EQ(cudaMalloc(&d_img, n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_mask, n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_labels, 4 * n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_t, 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_count, 4), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_img, p.bytes.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    const ImageView dv = make_view(d_img, w, h, PixelFormat::Gray8);
    const ImageView mv = make_view(d_mask, w, h, PixelFormat::Binary8);
    std::size_t bytes = 0, lbytes = 0;
    cuda::otsu_threshold_device(nullptr, bytes, dv, static_cast<std::uint32_t*>(d_t), s);
    std::size_t small = bytes - 1;
    EXPECT_THROW(cuda::otsu_threshold_device(d_img, small, dv, static_cast<std::uint32_t*>(d_t), s), Error);
    cuda::label_device(nullptr, lbytes, mv, static_cast<std::uint32_t*>(d_labels), static_cast<std::uint32_t*>(d_count), {}, s);
    ASSERT_EQ(cudaMalloc(&d_ws, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_lws, lbytes), cudaSuccess);
    for (int rep = 0; rep < 2; ++rep) {  // the workspace is reusable
        cuda::otsu_threshold_device(d_ws, bytes, dv, static_cast<std::uint32_t*>(d_t), s);
        cuda::threshold_device(dv, static_cast<const std::uint32_t*>(d_t), static_cast<std::uint8_t*>(d_mask), s);
        cuda::label_device(d_lws, lbytes, mv, static_cast<std::uint32_t*>(d_labels), static_cast<std::uint32_t*>(d_count), {}, s);
    }
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    std::uint32_t t = 0, count = 0;
    std::vector<std::uint32_t> labels(n);
    ASSERT_EQ(cudaMemcpy(&t, d_t, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(&count, d_count, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(labels.data(), d_labels, 4 * n, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(t, segref::otsu(p));
    std::vector<std::uint8_t> mask(n);
    threshold(p.view(), t, mask.data(), on(Backend::Cpu));
    Options lo;
    lo.backend = Backend::Cpu;
    const Labels want = label(make_view(mask.data(), w, h, PixelFormat::Binary8), lo);
    EXPECT_EQ(count, want.count);
    EXPECT_EQ(labels, want.data);
    for (void* q : {d_img, d_mask, d_labels, d_t, d_count, d_ws, d_lws}) cudaFree(q);
    cudaStreamDestroy(s);
}

TEST(SegmentCuda, DeviceApiErrors) {
    REQUIRE_GPU();
    std::size_t bytes = 0;
    std::uint32_t dummy = 0;
    KMeansOptions o;
    o.k = 300;
    EXPECT_THROW(cuda::kmeans_device(nullptr, bytes, make_view(&dummy, 1, 1, PixelFormat::RGB8), &dummy, &dummy, nullptr, o), Error);
    o.k = 2;
    EXPECT_THROW(cuda::kmeans_device(nullptr, bytes, make_view(&dummy, 1, 1, PixelFormat::U32), &dummy, &dummy, nullptr, o), Error);
    EXPECT_THROW(cuda::otsu_threshold_device(nullptr, bytes, make_view(&dummy, 1, 1, PixelFormat::Binary8), &dummy), Error);
    EXPECT_THROW(cuda::threshold_device(make_view(&dummy, 1, 1, PixelFormat::Gray8), 3u, nullptr), Error);
}

}  // namespace
}  // namespace cclabel::test
