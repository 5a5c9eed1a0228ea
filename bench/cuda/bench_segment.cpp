// Segmentation on the GPU, pictures already in GPU memory, CUDA-event medians:
//  - Otsu + threshold + label of a 20,000 × 20,000 gray slide-like picture (goal ≤ 10 ms), each
//    stage alone, and the copies to and from the host beside it;
//  - K-means, k = 8, 10 iterations, on a 400 Mpx RGB slide-like picture (goal ≤ 100 ms).
// Usage: bench_segment [side=20000] [runs=7]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cclabel/cuda_segment.hpp"
#include "cuda/bench_util.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;
using cclabel::bench::XorShift;

XorShift rnd{88172645463325252ull};

/// A slide-like gray picture: bright background, dark round cells with soft rims (nuclei darker),
/// and sensor noise.
std::vector<std::uint8_t> slide(int side) {
    const std::size_t n = std::size_t(side) * side;
    std::vector<std::uint8_t> g(n);
    for (std::size_t i = 0; i < n; ++i) g[i] = std::uint8_t(225 + rnd() % 16);
    const std::size_t cells = n / 2500;
    for (std::size_t c = 0; c < cells; ++c) {
        const int cx = int(rnd() % std::uint32_t(side)), cy = int(rnd() % std::uint32_t(side));
        const int r = 6 + int(rnd() % 20);
        for (int y = std::max(0, cy - r); y < std::min(side, cy + r + 1); ++y)
            for (int x = std::max(0, cx - r); x < std::min(side, cx + r + 1); ++x) {
                const int d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
                if (d2 > r * r) continue;
                const int level = d2 * 4 < r * r ? 70 : 130 + 60 * d2 / (r * r);  // nucleus, then cytoplasm to the rim
                std::uint8_t& p = g[std::size_t(y) * side + x];
                p = std::uint8_t(std::min<int>(p, level + int(rnd() % 13)));
            }
    }
    return g;
}

struct Timer {
    cudaEvent_t a, b;
    Timer() {
        ck(cudaEventCreate(&a), "cudaEventCreate");
        ck(cudaEventCreate(&b), "cudaEventCreate");
    }
    template <class Fn>
    double median_ms(int runs, Fn&& fn) {
        std::vector<double> t;
        fn();  // warm-up
        for (int i = 0; i < runs; ++i) {
            ck(cudaEventRecord(a, nullptr), "cudaEventRecord");
            fn();
            ck(cudaEventRecord(b, nullptr), "cudaEventRecord");
            ck(cudaEventSynchronize(b), "cudaEventSynchronize");
            float ms = 0;
            ck(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
            t.push_back(ms);
        }
        return median(t);
    }
};

}  // namespace

int main(int argc, char** argv) {
    using namespace cclabel;
    const int side = argc > 1 ? std::atoi(argv[1]) : 20000;
    const int runs = argc > 2 ? std::atoi(argv[2]) : 7;
    const std::size_t n = std::size_t(side) * side;
    std::printf("bench_segment: %d x %d (%.0f Mpx), median of %d runs\n", side, side, double(n) / 1e6, runs);

    const std::vector<std::uint8_t> gray = slide(side);
    void *d_gray, *d_mask, *d_labels, *d_t, *d_count, *d_ows, *d_lws;
    ck(cudaMalloc(&d_gray, n), "cudaMalloc");
    ck(cudaMalloc(&d_mask, n), "cudaMalloc");
    ck(cudaMalloc(&d_labels, 4 * n), "cudaMalloc");
    ck(cudaMalloc(&d_t, 4), "cudaMalloc");
    ck(cudaMalloc(&d_count, 4), "cudaMalloc");
    const ImageView gv = make_view(d_gray, side, side, PixelFormat::Gray8);
    const ImageView mv = make_view(d_mask, side, side, PixelFormat::Binary8);
    std::size_t obytes = 0, lbytes = 0;
    auto* t = static_cast<std::uint32_t*>(d_t);
    auto* labels = static_cast<std::uint32_t*>(d_labels);
    auto* count = static_cast<std::uint32_t*>(d_count);
    cuda::otsu_threshold_device(nullptr, obytes, gv, t);
    cuda::label_device(nullptr, lbytes, mv, labels, count);
    ck(cudaMalloc(&d_ows, obytes), "cudaMalloc");
    ck(cudaMalloc(&d_lws, lbytes), "cudaMalloc");
    Timer timer;

    std::uint8_t* pinned = nullptr;
    std::uint32_t* pinned_labels = nullptr;
    ck(cudaMallocHost(reinterpret_cast<void**>(&pinned), n), "cudaMallocHost");
    ck(cudaMallocHost(reinterpret_cast<void**>(&pinned_labels), 4 * n), "cudaMallocHost");
    std::copy(gray.begin(), gray.end(), pinned);
    const double h2d = timer.median_ms(runs, [&] { ck(cudaMemcpyAsync(d_gray, pinned, n, cudaMemcpyHostToDevice), "h2d"); });
    const double otsu = timer.median_ms(runs, [&] { cuda::otsu_threshold_device(d_ows, obytes, gv, t); });
    const double thr = timer.median_ms(runs, [&] { cuda::threshold_device(gv, t, static_cast<std::uint8_t*>(d_mask)); });
    const double lab = timer.median_ms(runs, [&] { cuda::label_device(d_lws, lbytes, mv, labels, count); });
    const double all = timer.median_ms(runs, [&] {
        cuda::otsu_threshold_device(d_ows, obytes, gv, t);
        cuda::threshold_device(gv, t, static_cast<std::uint8_t*>(d_mask));
        cuda::label_device(d_lws, lbytes, mv, labels, count);
    });
    const double d2h = timer.median_ms(runs, [&] { ck(cudaMemcpyAsync(pinned_labels, labels, 4 * n, cudaMemcpyDeviceToHost), "d2h"); });
    std::uint32_t th = 0, regions = 0;
    ck(cudaMemcpy(&th, d_t, 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    ck(cudaMemcpy(&regions, d_count, 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::printf("gray slide: otsu t=%u, %u regions of value > t\n", th, regions);
    std::printf("  otsu %.3f ms, threshold %.3f ms, label %.3f ms\n", otsu, thr, lab);
    std::printf("  otsu+threshold+label %.3f ms (goal <= 10 ms)%s\n", all, all <= 10 ? "" : "  MISSED");
    std::printf("  copies: image to GPU %.3f ms (pinned), labels to host %.3f ms (pinned)\n", h2d, d2h);
    cudaFreeHost(pinned_labels);
    cudaFree(d_mask);
    cudaFree(d_lws);
    cudaFree(d_ows);

    // RGB: the gray slide tinted as H&E (purple nuclei, pink cytoplasm, white background).
    std::vector<std::uint8_t> rgb(3 * n);
    for (std::size_t i = 0; i < n; ++i) {
        const int g = gray[i];
        rgb[3 * i] = std::uint8_t(std::min(255, g + 20));
        rgb[3 * i + 1] = std::uint8_t(g * 3 / 4 + int(rnd() % 9));
        rgb[3 * i + 2] = std::uint8_t(std::min(255, g + 40 - g / 8));
    }
    void *d_rgb, *d_kws, *d_centres;
    ck(cudaMalloc(&d_rgb, 3 * n), "cudaMalloc");
    ck(cudaMemcpy(d_rgb, rgb.data(), 3 * n, cudaMemcpyHostToDevice), "cudaMemcpy");
    ck(cudaMalloc(&d_centres, 8 * 3 * 4), "cudaMalloc");
    const ImageView rv = make_view(d_rgb, side, side, PixelFormat::RGB8);
    KMeansOptions ko;
    ko.k = 8;
    ko.max_iterations = 10;
    ko.seed = 1;
    std::size_t kbytes = 0;
    cuda::KMeansDeviceInfo* d_info = nullptr;
    ck(cudaMalloc(reinterpret_cast<void**>(&d_info), sizeof *d_info), "cudaMalloc");
    cuda::kmeans_device(nullptr, kbytes, rv, labels, static_cast<std::uint32_t*>(d_centres), d_info, ko);
    ck(cudaMalloc(&d_kws, kbytes), "cudaMalloc");
    const double km = timer.median_ms(runs, [&] {
        cuda::kmeans_device(d_kws, kbytes, rv, labels, static_cast<std::uint32_t*>(d_centres), d_info, ko);
    });
    cuda::KMeansDeviceInfo info{};
    ck(cudaMemcpy(&info, d_info, sizeof info, cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::printf("rgb slide: k-means k=8, up to 10 iterations: %.3f ms (goal <= 100 ms)%s; %u iterations, converged %u\n", km,
                km <= 100 ? "" : "  MISSED", info.iterations, info.converged);
    return 0;
}
