// Issue 28's goals on the construction sheet (bench/drawing.hpp), paper as background: tolerance
// labelling against exact labelling, and the region adjacency graph against labelling, on each
// backend, the same run. Rows, median of --reps wall-clock calls after one unmeasured call:
//   exact / tolerance T  label() on the host picture, backend cpu, cuda and auto
//   device exact / tol   label_device on the picture already on the GPU (CUDA events)
//   adjacency            adjacency() of the exact labels: cpu, cuda (host labels copied up) and
//                        labels already on the GPU
// Labels of every GPU call are compared with the CPU's; the edges too. Exit code 1 when any differ.
//
// A call whose first run takes over a second is timed once more, not --reps times.
//
//   bench_graph [--dpi 100,800] [--tolerance 64] [--reps 5]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cuda/bench_util.hpp"
#include "drawing.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;

/// Median of @p reps calls after an unmeasured one; of one call when the first took over a second
/// (the CPU's one-thread graph of an 800 dpi sheet).
template <typename Fn>
double wall_ms(int reps, Fn&& fn) {
    const auto a0 = std::chrono::steady_clock::now();
    fn();
    if (std::chrono::steady_clock::now() - a0 > std::chrono::seconds(1)) reps = 1;
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const auto a = std::chrono::steady_clock::now();
        fn();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    return median(t);
}

int failures = 0;

void row(const char* what, double cpu, double cuda, double autob) {
    std::printf("  %-28s cpu %9.2f ms  cuda %9.2f ms  auto %9.2f ms\n", what, cpu, cuda, autob);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> dpis = {100, 800};
    std::uint32_t tol = 64;
    int reps = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dpi" && i + 1 < argc) dpis = cclabel::bench::parse_list(argv[++i]);
        else if (a == "--tolerance" && i + 1 < argc) tol = std::uint32_t(std::atoi(argv[++i]));
        else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_graph [--dpi 100,800] [--tolerance 64] [--reps 5]\n");
            return 2;
        }
    }
    cudaDeviceProp p{};
    ck(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    std::printf("bench_graph: %s, tolerance %u, median of %d\n", p.name, tol, reps);
    for (int dpi : dpis) {
        const cclabel::bench::Drawing d = cclabel::bench::make_drawing(dpi);
        const cclabel::ImageView v = cclabel::make_view(d.rgb.data(), d.width, d.height, cclabel::PixelFormat::RGB8);
        const std::size_t n = std::size_t(v.pixels());
        std::printf("sheet %d dpi (%.1f Mpx), paper as background\n", dpi, double(n) * 1e-6);
        std::vector<std::uint32_t> want(n), got(n), exact(n);
        auto opts = [&](cclabel::Backend b, std::uint32_t t) {
            cclabel::Options o;
            o.backend = b;
            o.tolerance = t;
            o.background = std::vector<std::uint64_t>{255, 255, 255};
            return o;
        };
        std::uint32_t n_exact = 0, n_tol = 0;
        for (std::uint32_t t : {0u, tol}) {
            double ms[3];
            int k = 0;
            for (cclabel::Backend b : {cclabel::Backend::Cpu, cclabel::Backend::Cuda, cclabel::Backend::Auto}) {
                std::uint32_t count = 0;
                std::vector<std::uint32_t>& out = b == cclabel::Backend::Cpu ? want : got;
                ms[k++] = wall_ms(reps, [&] { count = cclabel::label(v, out.data(), opts(b, t)).count; });
                if (b == cclabel::Backend::Cpu) (t ? n_tol : n_exact) = count;
                else if (out != want) {
                    std::printf("  LABELS DIFFER (%s, tolerance %u)\n", b == cclabel::Backend::Cuda ? "cuda" : "auto", t);
                    ++failures;
                }
            }
            if (t == 0) exact = want;
            row(t ? ("tolerance " + std::to_string(t) + " (host)").c_str() : "exact (host)", ms[0], ms[1], ms[2]);
        }
        std::printf("  regions: exact %u, tolerance %u %u\n", n_exact, tol, n_tol);

        // The picture already on the GPU: label_device, exact and with the tolerance.
        void *d_img = nullptr, *d_lab = nullptr, *d_ws = nullptr;
        ck(cudaMalloc(&d_img, n * 3), "cudaMalloc");
        ck(cudaMalloc(&d_lab, n * 4 + 4), "cudaMalloc");
        ck(cudaMemcpy(d_img, d.rgb.data(), n * 3, cudaMemcpyHostToDevice), "cudaMemcpy");
        cclabel::ImageView dv = v;
        dv.data = d_img;
        auto* labels = static_cast<std::uint32_t*>(d_lab);
        std::size_t ws = 0, ws_t = 0;
        cclabel::cuda::label_device(nullptr, ws, dv, labels, labels + n, opts(cclabel::Backend::Cuda, 0), nullptr);
        cclabel::cuda::label_device(nullptr, ws_t, dv, labels, labels + n, opts(cclabel::Backend::Cuda, tol), nullptr);
        ck(cudaMalloc(&d_ws, std::max(ws, ws_t)), "cudaMalloc");
        cudaEvent_t e0, e1;
        ck(cudaEventCreate(&e0), "cudaEventCreate");
        ck(cudaEventCreate(&e1), "cudaEventCreate");
        double dev_ms[2];
        for (int k = 0; k < 2; ++k) {
            const cclabel::Options o = opts(cclabel::Backend::Cuda, k ? tol : 0);
            std::size_t bytes = std::max(ws, ws_t);
            std::vector<double> t;
            for (int i = 0; i <= reps; ++i) {
                ck(cudaEventRecord(e0), "cudaEventRecord");
                cclabel::cuda::label_device(d_ws, bytes, dv, labels, labels + n, o, nullptr);
                ck(cudaEventRecord(e1), "cudaEventRecord");
                ck(cudaEventSynchronize(e1), "cudaEventSynchronize");
                float f = 0;
                ck(cudaEventElapsedTime(&f, e0, e1), "cudaEventElapsedTime");
                if (i > 0) t.push_back(f);
            }
            dev_ms[k] = median(t);
        }
        std::printf("  device: exact %.2f ms, tolerance %u %.2f ms (%.2fx)\n", dev_ms[0], tol, dev_ms[1],
                    dev_ms[1] / dev_ms[0]);

        // The adjacency graph of the exact labels: host labels on each backend, device labels.
        ck(cudaMemcpy(d_lab, exact.data(), n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
        std::vector<cclabel::AdjacencyEdge> e_cpu, e_gpu, e_dev;
        const auto W = d.width, H = d.height;
        const double a_cpu = wall_ms(reps, [&] { e_cpu = cclabel::adjacency(exact.data(), W, H, 8, false, 0, cclabel::Backend::Cpu); });
        const double a_gpu = wall_ms(reps, [&] { e_gpu = cclabel::adjacency(exact.data(), W, H, 8, false, 0, cclabel::Backend::Cuda); });
        const double a_auto = wall_ms(reps, [&] { e_gpu = cclabel::adjacency(exact.data(), W, H, 8, false, 0, cclabel::Backend::Auto); });
        const double a_dev = wall_ms(reps, [&] { e_dev = cclabel::adjacency(labels, W, H, 8, false, 0, cclabel::Backend::Auto); });
        auto same = [&](const std::vector<cclabel::AdjacencyEdge>& x) {
            if (x.size() != e_cpu.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (x[i].a != e_cpu[i].a || x[i].b != e_cpu[i].b || x[i].contacts != e_cpu[i].contacts) return false;
            return true;
        };
        if (!same(e_gpu) || !same(e_dev)) {
            std::printf("  EDGES DIFFER\n");
            ++failures;
        }
        row("adjacency (host labels)", a_cpu, a_gpu, a_auto);
        std::printf("  adjacency of labels on the GPU: %.2f ms; %zu edges\n", a_dev, e_cpu.size());
        cudaFree(d_img);
        cudaFree(d_lab);
        cudaFree(d_ws);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    std::printf("\n%s\n", failures ? "RESULTS DIFFER" : "all GPU labels and edges equal the CPU's");
    return failures ? 1 : 0;
}
