// Batches on the GPU, masks already in GPU memory, CUDA-event medians: the batched labeller
// (cclabel::cuda::label_batch_device, one set of launches) against cclabel's own loop of one
// label_device call an image (cuda/batch_loop.hpp) on one stream, for 64 masks of 512 × 512 and
// 1,024 of 128 × 128 (goal, issue 7: the batch ≥ 5× faster than the loop on the 128 × 128 case).
// Both answers are checked against each other. Also the host call (label_batch, Backend::Cuda:
// copies in and out included) for scale.
// Usage: bench_batch [runs=21]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cclabel/batch.hpp"
#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cuda/batch_loop.hpp"
#include "cuda/bench_util.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;
using cclabel::bench::XorShift;

XorShift rnd{0x9E3779B97F4A7C15ull};

/// B segmentation-like masks: a few dozen filled discs each on an empty background.
std::vector<std::uint8_t> masks(std::int64_t B, int side) {
    std::vector<std::uint8_t> m(std::size_t(B) * side * side, 0);
    for (std::int64_t b = 0; b < B; ++b) {
        std::uint8_t* img = m.data() + std::size_t(b) * side * side;
        const int discs = 8 + side * side / 4096;
        for (int d = 0; d < discs; ++d) {
            const int cx = int(rnd() % unsigned(side)), cy = int(rnd() % unsigned(side)), r = 2 + int(rnd() % unsigned(side / 12 + 1));
            for (int y = std::max(0, cy - r); y < std::min(side, cy + r + 1); ++y)
                for (int x = std::max(0, cx - r); x < std::min(side, cx + r + 1); ++x)
                    if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r) img[std::size_t(y) * side + x] = 1;
        }
    }
    return m;
}

template <class F>
double time_ms(F&& f, int runs, cudaStream_t s) {
    cudaEvent_t a, b;
    ck(cudaEventCreate(&a), "cudaEventCreate");
    ck(cudaEventCreate(&b), "cudaEventCreate");
    f();  // warm-up
    ck(cudaStreamSynchronize(s), "warm-up");
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        ck(cudaEventRecord(a, s), "record");
        f();
        ck(cudaEventRecord(b, s), "record");
        ck(cudaEventSynchronize(b), "sync");
        float ms = 0;
        ck(cudaEventElapsedTime(&ms, a, b), "elapsed");
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return median(t);
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::atoi(argv[1]) : 21;
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("GPU: %s; medians of %d runs, masks already on the GPU\n\n", prop.name, runs);
    std::printf("| batch | Mpx | batched ms | loop ms | loop / batched | batched Gpx/s | host call ms (copies incl.) | equal |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
    cudaStream_t s;
    ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    for (auto [B, side] : {std::pair<std::int64_t, int>{64, 512}, {1024, 128}, {4096, 64}}) {
        const auto host = masks(B, side);
        const std::size_t n = host.size();
        void *d_px, *d_a, *d_b, *d_ca, *d_cb;
        ck(cudaMalloc(&d_px, n), "cudaMalloc");
        ck(cudaMalloc(&d_a, n * 4), "cudaMalloc");
        ck(cudaMalloc(&d_b, n * 4), "cudaMalloc");
        ck(cudaMalloc(&d_ca, std::size_t(B) * 4), "cudaMalloc");
        ck(cudaMalloc(&d_cb, std::size_t(B) * 4), "cudaMalloc");
        ck(cudaMemcpy(d_px, host.data(), n, cudaMemcpyHostToDevice), "upload");
        const cclabel::BatchView view{d_px, B, side, side, 0, 0, cclabel::PixelFormat::Binary8};
        std::vector<cclabel::ImageView> images;
        std::vector<std::uint64_t> offsets;
        for (std::int64_t b = 0; b < B; ++b) {
            images.push_back(view.image(b));
            offsets.push_back(std::uint64_t(b) * side * side);
        }
        cclabel::Options o;
        std::size_t ws_batch = 0;
        cclabel::cuda::label_batch_device(nullptr, ws_batch, view, nullptr, nullptr, o, s);
        const std::size_t ws_loop = cclabel::cuda::batch_loop_workspace_bytes(images, o, s);
        void* d_ws;
        ck(cudaMalloc(&d_ws, std::max(ws_batch, ws_loop)), "cudaMalloc");
        const double t_batch = time_ms(
            [&] {
                std::size_t bytes = ws_batch;
                cclabel::cuda::label_batch_device(d_ws, bytes, view, static_cast<std::uint32_t*>(d_a),
                                                  static_cast<std::uint32_t*>(d_ca), o, s);
            },
            runs, s);
        const double t_loop = time_ms(
            [&] {
                cclabel::cuda::label_batch_loop(d_ws, ws_loop, images, offsets.data(), static_cast<std::uint32_t*>(d_b),
                                                static_cast<std::uint32_t*>(d_cb), o, s);
            },
            runs, s);
        std::vector<std::uint32_t> la(n), lb(n), ca(static_cast<std::size_t>(B)), cb(static_cast<std::size_t>(B));
        ck(cudaMemcpy(la.data(), d_a, n * 4, cudaMemcpyDeviceToHost), "download");
        ck(cudaMemcpy(lb.data(), d_b, n * 4, cudaMemcpyDeviceToHost), "download");
        ck(cudaMemcpy(ca.data(), d_ca, std::size_t(B) * 4, cudaMemcpyDeviceToHost), "download");
        ck(cudaMemcpy(cb.data(), d_cb, std::size_t(B) * 4, cudaMemcpyDeviceToHost), "download");
        const bool equal = la == lb && ca == cb;
        // The host call, copies in and out included (wall clock).
        std::vector<std::uint32_t> out(n);
        cclabel::Options oc;
        oc.backend = cclabel::Backend::Cuda;
        const cclabel::BatchView hv{host.data(), B, side, side, 0, 0, cclabel::PixelFormat::Binary8};
        std::vector<double> th;
        for (int i = 0; i < std::max(3, runs / 3); ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            (void)cclabel::label_batch(hv, out.data(), oc);
            th.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        const bool host_equal = out == la;
        std::printf("| %lld × %d² | %.1f | %.3f | %.3f | %.1f× | %.1f | %.2f | %s |\n", static_cast<long long>(B), side,
                    double(n) / 1e6, t_batch, t_loop, t_loop / t_batch, double(n) / (t_batch * 1e6), median(th),
                    equal && host_equal ? "yes" : "NO");
        for (void* p : {d_px, d_a, d_b, d_ca, d_cb, d_ws}) cudaFree(p);
    }
    cudaStreamDestroy(s);
    return 0;
}
