// The GPU's host path (issue 21): cclabel::label on a picture in host memory with backend cuda, cpu
// and auto, against the copy floor measured in the same run (the picture up and the labels down,
// each from pinned memory, one after the other). Wall time per call, median of --reps after one
// unmeasured call; labels checked against the CPU backend at every row.
//
// Rows per picture (the construction sheet of bench/drawing.hpp, paper labelled and paper as
// background; and binary noise):
//   cpu            Backend::Cpu, all cores
//   cuda           Backend::Cuda on pageable memory: the default path (a ring of pinned blocks that
//                  the call's host threads fill and empty)
//   cuda legacy    the same with the stager as it was before issue 21 (one thread, two 32 MiB blocks)
//   cuda pinned    picture and labels in pinned memory (copied in place)
//   cuda fresh     pageable, with a new label buffer each call (what NumPy users get: the first
//                  touch of its pages is in the call)
//   cpu fresh      the same on the CPU
//   auto           Backend::Auto, and which backend it took
// --threads-sweep: the cuda row again with 1, 2, 4, 8 and all host threads for the stager.
//
//   bench_host [--dpi 50,200,800] [--reps N] [--noise 2048,8192] [--threads-sweep]
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cuda/bench_util.hpp"
#include "cuda/host_stager.hpp"
#include "drawing.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;
using cclabel::bench::parse_list;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double time_ms(int reps, const std::function<void()>& fn) {
    fn();
    std::vector<double> v;
    for (int k = 0; k < reps; ++k) {
        const auto t0 = Clock::now();
        fn();
        v.push_back(ms_since(t0));
    }
    return median(v);
}

struct PinnedDeleter {
    void operator()(void* p) const { cudaFreeHost(p); }
};
using Pinned = std::unique_ptr<void, PinnedDeleter>;
Pinned pinned(std::size_t bytes) {
    void* p = nullptr;
    ck(cudaMallocHost(&p, bytes), "cudaMallocHost");
    return Pinned(p);
}

const char* which(cclabel::Backend b) {
    return b == cclabel::Backend::Cuda ? "cuda" : b == cclabel::Backend::Cpu ? "cpu" : "auto";
}

int failures = 0;

void run_picture(const std::string& name, const cclabel::ImageView& view, const std::vector<std::uint8_t>* bg, int reps,
                 bool threads_sweep) {
    const std::size_t n = std::size_t(view.width) * std::size_t(view.height);
    const std::size_t in_bytes = std::size_t(view.row_bytes()) * std::size_t(view.height);
    const std::size_t out_bytes = n * 4;
    cclabel::Options o;
    if (bg) o.background = std::vector<std::uint64_t>(bg->begin(), bg->end());

    // The floor: the same bytes through the copy engine from and to pinned memory.
    Pinned pin_in = pinned(in_bytes), pin_out = pinned(out_bytes);
    std::memcpy(pin_in.get(), view.data, in_bytes);
    void* d_in = nullptr;
    void* d_out = nullptr;
    ck(cudaMalloc(&d_in, in_bytes), "cudaMalloc");
    ck(cudaMalloc(&d_out, out_bytes), "cudaMalloc");
    const double up = time_ms(reps, [&] { ck(cudaMemcpy(d_in, pin_in.get(), in_bytes, cudaMemcpyHostToDevice), "up"); });
    const double down =
        time_ms(reps, [&] { ck(cudaMemcpy(pin_out.get(), d_out, out_bytes, cudaMemcpyDeviceToHost), "down"); });
    cudaFree(d_in);
    cudaFree(d_out);
    const double floor = up + down;
    std::printf("\n%s: %.1f Mpx, %.0f MB in + %.0f MB out; pinned copies %.2f ms up (%.1f GB/s) + %.2f ms down "
                "(%.1f GB/s) = floor %.2f ms\n",
                name.c_str(), double(n) / 1e6, double(in_bytes) / 1e6, double(out_bytes) / 1e6, up,
                double(in_bytes) / up / 1e6, down, double(out_bytes) / down / 1e6, floor);

    std::vector<std::uint32_t> want(n), got(n);
    cclabel::Options oc = o;
    oc.backend = cclabel::Backend::Cpu;
    const std::uint32_t n_want = cclabel::label(view, want.data(), oc).count;
    auto check = [&](const std::uint32_t* labels, std::uint32_t count) {
        const bool ok = count == n_want && std::memcmp(labels, want.data(), out_bytes) == 0;
        if (!ok) ++failures;
        return ok ? "ok" : "WRONG";
    };
    auto row = [&](const char* what, double ms, const char* ok, const char* extra = "") {
        std::printf("  %-22s %10.2f ms  %6.2fx floor  %s %s\n", what, ms, ms / floor, ok, extra);
    };

    std::uint32_t count = 0;
    const double cpu = time_ms(reps, [&] { count = cclabel::label(view, got.data(), oc).count; });
    row("cpu", cpu, check(got.data(), count));

    cclabel::Options og = o;
    og.backend = cclabel::Backend::Cuda;
    const double cuda = time_ms(reps, [&] { count = cclabel::label(view, got.data(), og).count; });
    row("cuda", cuda, check(got.data(), count));

    auto& tuning = cclabel::cuda::host::stager_tuning();
    const cclabel::cuda::host::StagerTuning saved = tuning;
    tuning = cclabel::cuda::host::legacy_stager_tuning();
    std::fill(got.begin(), got.end(), 0u);
    const double legacy = time_ms(std::min(reps, 3), [&] { count = cclabel::label(view, got.data(), og).count; });
    tuning = saved;
    row("cuda legacy", legacy, check(got.data(), count));

    if (threads_sweep) {
        for (int t : {1, 2, 4, 8, 0}) {
            tuning.threads = t;
            std::fill(got.begin(), got.end(), 0u);
            const double ms = time_ms(reps, [&] { count = cclabel::label(view, got.data(), og).count; });
            const std::string what = "cuda, stager " + (t ? std::to_string(t) : std::string("all")) + " thr";
            row(what.c_str(), ms, check(got.data(), count));
        }
        tuning = saved;
    }

    {
        const cclabel::ImageView pv =
            cclabel::make_view(pin_in.get(), view.width, view.height, view.format);
        auto* po = static_cast<std::uint32_t*>(pin_out.get());
        std::memset(po, 0, out_bytes);
        const double ms = time_ms(reps, [&] { count = cclabel::label(pv, po, og).count; });
        row("cuda pinned", ms, check(po, count));
    }
    {
        std::unique_ptr<std::uint32_t[]> fresh;
        const double ms = time_ms(reps, [&] {
            fresh.reset(new std::uint32_t[n]);  // uninitialised: its pages are first touched in the call
            count = cclabel::label(view, fresh.get(), og).count;
        });
        row("cuda fresh", ms, check(fresh.get(), count));
        const double msc = time_ms(reps, [&] {
            fresh.reset(new std::uint32_t[n]);
            count = cclabel::label(view, fresh.get(), oc).count;
        });
        row("cpu fresh", msc, check(fresh.get(), count));
    }
    cclabel::Options oa = o;
    oa.backend = cclabel::Backend::Auto;
    cclabel::Backend took = cclabel::Backend::Auto;
    const double a = time_ms(reps, [&] {
        const auto r = cclabel::label(view, got.data(), oa);
        count = r.count;
        took = r.backend;
    });
    const double best = std::min(cpu, cuda);
    char extra[96];
    std::snprintf(extra, sizeof extra, "took %s; %.2fx the faster of cpu and cuda", which(took), a / best);
    row("auto", a, check(got.data(), count), extra);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> dpis = {50, 200, 800}, noise = {512, 2048, 8192};
    int reps = 5;
    bool sweep = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dpi" && i + 1 < argc) dpis = parse_list(argv[++i]);
        else if (a == "--noise" && i + 1 < argc) noise = parse_list(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--threads-sweep") sweep = true;
        else {
            std::fprintf(stderr, "usage: bench_host [--dpi 50,200,800] [--noise 512,2048] [--reps N] [--threads-sweep]\n");
            return 2;
        }
    }
    cudaDeviceProp p{};
    ck(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    std::printf("bench_host: %s, %d host threads usable\n", p.name, int(std::thread::hardware_concurrency()));
    const std::vector<std::uint8_t> white = {255, 255, 255};
    for (int dpi : dpis) {
        if (dpi <= 0) continue;
        const cclabel::bench::Drawing d = cclabel::bench::make_drawing(dpi);
        const cclabel::ImageView v = cclabel::make_view(d.rgb.data(), d.width, d.height, cclabel::PixelFormat::RGB8);
        run_picture("sheet " + std::to_string(dpi) + " dpi, paper labelled", v, nullptr, reps, sweep && dpi == dpis.back());
        run_picture("sheet " + std::to_string(dpi) + " dpi, paper as background", v, &white, reps, false);
    }
    for (int side : noise) {
        if (side <= 0) continue;
        const std::vector<std::uint8_t> px = cclabel::bench::random_binary(side, side, 0.5, 7);
        const cclabel::ImageView v = cclabel::make_view(px.data(), side, side, cclabel::PixelFormat::Binary8);
        run_picture("binary noise " + std::to_string(side) + "^2", v, nullptr, reps, false);
    }
    std::printf("\n%s\n", failures ? "LABELS DIFFER" : "all labels equal the CPU backend's");
    return failures ? 1 : 0;
}
