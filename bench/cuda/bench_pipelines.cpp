// The segment pipeline against the pixel pipeline (Switches::segment_runs off) on any pictures
// given as .npy files, for issue 26's decision to delete one of them: each picture is uploaded once
// and labelled on the GPU by each pipeline (median of --reps calls, CUDA events, picture and labels
// in device memory), and the two label images must be equal. A (B, H, W) file is a batch
// (label_batch_device). A file name ending in ":bg" takes white (255 in every channel) as
// background; a bool mask's zeros are always background.
//
//   bench_pipelines [--reps N] sheet100.npy sheet100.npy:bg noise2048.npy batch.npy ...
//
// Prints one row a picture: Mpx, N, segment ms, pixel ms, pixel / segment. Exit code 1 when two
// label images differ.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/bench_util.hpp"
#include "cuda/label_tuned.hpp"
#include "npy_lite.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;

struct Picture {
    std::string name;
    bool batch = false;
    cclabel::BatchView view;  // data on the device
    cclabel::Options options;
};

// Times one pipeline on @p p; the labels of the last call stay in @p d_labels.
double time_pipeline(const Picture& p, bool segments, int reps, std::uint32_t* d_labels, std::uint32_t* d_counts,
                     std::uint32_t& count) {
    cclabel::cuda::Tuning t;
    t.switches.segment_runs = segments;
    const cclabel::ImageView one{p.view.data, p.view.width, p.view.height, 0, p.view.format};
    auto call = [&](void* ws, std::size_t& bytes) {
        if (p.batch)
            cclabel::cuda::detail::label_batch_device_tuned(ws, bytes, p.view, d_labels, d_counts, p.options, nullptr,
                                                            t);
        else
            cclabel::cuda::detail::label_device_tuned(ws, bytes, one, d_labels, d_counts, p.options, nullptr, t);
    };
    std::size_t bytes = 0;
    call(nullptr, bytes);
    void* ws = nullptr;
    ck(cudaMalloc(&ws, bytes ? bytes : 1), "cudaMalloc workspace");
    cudaEvent_t a, b;
    ck(cudaEventCreate(&a), "cudaEventCreate");
    ck(cudaEventCreate(&b), "cudaEventCreate");
    call(ws, bytes);  // warm-up
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        ck(cudaEventRecord(a), "cudaEventRecord");
        call(ws, bytes);
        ck(cudaEventRecord(b), "cudaEventRecord");
        ck(cudaEventSynchronize(b), "cudaEventSynchronize");
        float f = 0;
        ck(cudaEventElapsedTime(&f, a, b), "cudaEventElapsedTime");
        ms.push_back(f);
    }
    ck(cudaMemcpy(&count, d_counts, 4, cudaMemcpyDeviceToHost), "cudaMemcpy count");
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    ck(cudaFree(ws), "cudaFree");
    return median(ms);
}

}  // namespace

int main(int argc, char** argv) {
    int reps = 7;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "usage: bench_pipelines [--reps N] FILE.npy[:bg] ...\n");
            return 2;
        } else files.push_back(a);
    }
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("# GPU: %s; reps %d (median, CUDA events, device memory in and out)\n", prop.name, reps);
    std::printf("%-40s %8s %9s %10s %10s %8s %s\n", "picture", "Mpx", "N", "segment ms", "pixel ms", "pix/seg", "labels");
    int status = 0;
    for (const std::string& arg : files) {
        const bool bg = arg.size() > 3 && arg.compare(arg.size() - 3, 3, ":bg") == 0;
        const std::string path = bg ? arg.substr(0, arg.size() - 3) : arg;
        const auto arr = cclabel::bench::npy::read(path);
        Picture p;
        p.name = path.substr(path.find_last_of('/') + 1) + (bg ? " (bg)" : "");
        const bool rgb = arr.shape.size() == 3 && arr.shape[2] == 3 && arr.descr == "|u1";
        const bool stack = arr.shape.size() == 3 && !rgb;
        p.batch = stack;
        const std::int64_t B = stack ? arr.shape[0] : 1, H = arr.shape[stack ? 1 : 0], W = arr.shape[stack ? 2 : 1];
        cclabel::PixelFormat f;
        if (rgb) f = cclabel::PixelFormat::RGB8;
        else if (arr.descr == "|b1") f = cclabel::PixelFormat::Binary8;
        else if (arr.descr == "|u1" || arr.descr == "<u1") f = cclabel::PixelFormat::Gray8;
        else if (arr.descr == "<u2") f = cclabel::PixelFormat::Gray16;
        else if (arr.descr == "<u4" || arr.descr == "<i4") f = cclabel::PixelFormat::U32;
        else {
            std::fprintf(stderr, "%s: unsupported dtype %s\n", path.c_str(), arr.descr.c_str());
            return 2;
        }
        if (bg) {
            if (rgb) p.options.background = std::vector<std::uint64_t>{255, 255, 255};
            else if (f != cclabel::PixelFormat::Binary8) p.options.background = std::vector<std::uint64_t>{255};
        }
        void* d_pic = nullptr;
        ck(cudaMalloc(&d_pic, arr.bytes.size()), "cudaMalloc picture");
        ck(cudaMemcpy(d_pic, arr.bytes.data(), arr.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy picture");
        p.view = cclabel::BatchView{d_pic, B, W, H, 0, 0, f};
        const std::size_t n = std::size_t(B) * std::size_t(H) * std::size_t(W);
        std::uint32_t *d_seg = nullptr, *d_pix = nullptr, *d_counts = nullptr;
        ck(cudaMalloc(reinterpret_cast<void**>(&d_seg), n * 4), "cudaMalloc labels");
        ck(cudaMalloc(reinterpret_cast<void**>(&d_pix), n * 4), "cudaMalloc labels");
        ck(cudaMalloc(reinterpret_cast<void**>(&d_counts), std::size_t(B) * 4), "cudaMalloc counts");
        std::uint32_t n_seg = 0, n_pix = 0;
        const double seg = time_pipeline(p, true, reps, d_seg, d_counts, n_seg);
        const double pix = time_pipeline(p, false, reps, d_pix, d_counts, n_pix);
        std::vector<std::uint32_t> a(n), b(n);
        ck(cudaMemcpy(a.data(), d_seg, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy labels");
        ck(cudaMemcpy(b.data(), d_pix, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy labels");
        const bool same = a == b && n_seg == n_pix;
        if (!same) status = 1;
        std::printf("%-40s %8.1f %9u %10.3f %10.3f %8.2f %s\n", p.name.c_str(), double(n) / 1e6, n_seg, seg, pix,
                    pix / seg, same ? "equal" : "DIFFER");
        std::fflush(stdout);
        cudaFree(d_pic);
        cudaFree(d_seg);
        cudaFree(d_pix);
        cudaFree(d_counts);
    }
    return status;
}
