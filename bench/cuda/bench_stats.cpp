// GPU benchmark of the region statistics on the synthetic construction sheet (bench/drawing.hpp),
// picture and labels already on the GPU: median time per call (CUDA events) of
//   label    cclabel::cuda::label_device alone
//   stats    cclabel::cuda::regions_device alone, on the labels and count of a label call
//   2 calls  label_device then regions_device, each with its own workspace
//   fused    cclabel::cuda::label_regions_device (one call, one workspace)
// with the paper labelled and with the paper as background. The goal (issue 6): stats at 800 dpi
// at most as long as label. The rows are checked against the CPU statistics (bit for bit) unless
// --no-check.
//
//   bench_stats [--dpi 100,200,...] [--reps N] [--no-check]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cclabel/cuda_stats.hpp"
#include "cclabel/stats.hpp"
#include "drawing.hpp"
#include "cuda/bench_util.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;
using cclabel::bench::parse_list;

/// Median of @p reps timed calls of @p fn (after two untimed ones), CUDA events on the null stream.
template <typename Fn>
double time_ms(int reps, Fn&& fn) {
    cudaEvent_t a, b;
    ck(cudaEventCreate(&a), "cudaEventCreate");
    ck(cudaEventCreate(&b), "cudaEventCreate");
    std::vector<double> t;
    for (int k = 0; k < reps + 2; ++k) {
        ck(cudaEventRecord(a, nullptr), "cudaEventRecord");
        fn();
        ck(cudaEventRecord(b, nullptr), "cudaEventRecord");
        ck(cudaEventSynchronize(b), "cudaEventSynchronize");
        float ms = 0;
        ck(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
        if (k >= 2) t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return median(t);
}

void* dev_alloc(std::size_t bytes, const char* what) {
    void* p = nullptr;
    ck(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), what);
    return p;
}

bool same_rows(const std::vector<cclabel::RegionStats>& a, const std::vector<cclabel::RegionStats>& b) {
    return a.size() == b.size() && std::memcmp(static_cast<const void*>(a.data()), static_cast<const void*>(b.data()),
                                               a.size() * sizeof(cclabel::RegionStats)) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> dpis = {100, 200, 400, 800};
    int reps = 10;
    bool check = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dpi" && i + 1 < argc) dpis = parse_list(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--no-check") check = false;
        else {
            std::fprintf(stderr, "usage: bench_stats [--dpi 100,200,...] [--reps N] [--no-check]\n");
            return 2;
        }
    }
    if (!cclabel::cuda_available()) {
        std::fprintf(stderr, "bench_stats: no CUDA device\n");
        return 1;
    }
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("# %s, median of %d calls, ms; picture and labels on the GPU\n", prop.name, reps);
    std::printf("%-5s %-13s %-5s %11s %8s %8s %8s %8s %10s %9s %s\n", "dpi", "size", "paper", "regions", "label",
                "stats", "2 calls", "fused", "stats/lab", "saved", "check");
    bool all_ok = true;
    for (int dpi : dpis) {
        const cclabel::bench::Drawing d = cclabel::bench::make_drawing(dpi);
        const std::size_t pixels = std::size_t(d.width * d.height);
        void* img = dev_alloc(d.rgb.size(), "cudaMalloc(picture)");
        ck(cudaMemcpy(img, d.rgb.data(), d.rgb.size(), cudaMemcpyHostToDevice), "cudaMemcpy(picture)");
        auto* labels = static_cast<std::uint32_t*>(dev_alloc(pixels * 4, "cudaMalloc(labels)"));
        auto* count = static_cast<std::uint32_t*>(dev_alloc(4, "cudaMalloc(count)"));
        const cclabel::ImageView view{img, d.width, d.height, d.width * 3, cclabel::PixelFormat::RGB8};
        for (bool paper_bg : {false, true}) {
            cclabel::Options o;
            if (paper_bg) o.background = std::vector<std::uint64_t>{255, 255, 255};
            std::size_t lb = 0, sb = 0, fb = 0;
            cclabel::cuda::label_device(nullptr, lb, view, labels, count, o);
            void* lws = dev_alloc(lb, "cudaMalloc(label workspace)");
            cclabel::cuda::label_device(lws, lb, view, labels, count, o);
            std::uint32_t n = 0;
            ck(cudaMemcpy(&n, count, 4, cudaMemcpyDeviceToHost), "cudaMemcpy(count)");
            const std::uint64_t cap = std::uint64_t(n) + 1;
            auto* rows = static_cast<cclabel::RegionStats*>(dev_alloc(cap * sizeof(cclabel::RegionStats), "rows"));
            cclabel::cuda::regions_device(nullptr, sb, view, labels, count, cap, rows, o);
            void* sws = dev_alloc(sb, "cudaMalloc(stats workspace)");
            cclabel::cuda::label_regions_device(nullptr, fb, view, labels, count, cap, rows, o);
            void* fws = dev_alloc(fb, "cudaMalloc(fused workspace)");

            const double t_label = time_ms(reps, [&] { cclabel::cuda::label_device(lws, lb, view, labels, count, o); });
            const double t_stats =
                time_ms(reps, [&] { cclabel::cuda::regions_device(sws, sb, view, labels, count, cap, rows, o); });
            const double t_two = time_ms(reps, [&] {
                cclabel::cuda::label_device(lws, lb, view, labels, count, o);
                cclabel::cuda::regions_device(sws, sb, view, labels, count, cap, rows, o);
            });
            const double t_fused = time_ms(
                reps, [&] { cclabel::cuda::label_regions_device(fws, fb, view, labels, count, cap, rows, o); });

            std::string verdict = "-";
            if (check) {
                std::vector<cclabel::RegionStats> got(cap);
                ck(cudaMemcpy(static_cast<void*>(got.data()), rows, cap * sizeof(cclabel::RegionStats),
                              cudaMemcpyDeviceToHost),
                   "cudaMemcpy(rows)");
                std::vector<std::uint32_t> cpu_labels(pixels);
                cclabel::Options c = o;
                c.backend = cclabel::Backend::Cpu;
                std::vector<cclabel::RegionStats> want;
                const auto host = cclabel::make_view(d.rgb.data(), d.width, d.height, cclabel::PixelFormat::RGB8);
                const auto r = cclabel::label(host, cpu_labels.data(), c, want);
                const bool ok = r.count == n && same_rows(got, want);
                all_ok = all_ok && ok;
                verdict = ok ? "rows equal CPU" : "ROWS DIFFER FROM CPU";
            }
            std::printf("%-5d %-13s %-5s %11u %8.3f %8.3f %8.3f %8.3f %9.2fx %9.3f %s\n", dpi,
                        (std::to_string(d.width) + "x" + std::to_string(d.height)).c_str(), paper_bg ? "bg" : "label",
                        n, t_label, t_stats, t_two, t_fused, t_stats / t_label, t_two - t_fused, verdict.c_str());
            std::fflush(stdout);
            cudaFree(lws);
            cudaFree(sws);
            cudaFree(fws);
            cudaFree(rows);
        }
        cudaFree(img);
        cudaFree(labels);
        cudaFree(count);
    }
    return all_ok ? 0 : 1;
}
