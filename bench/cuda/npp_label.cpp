// npp_label: times NVIDIA NPP's union-find labeller (nppiLabelMarkersUF_32u_C1R_Ctx) on one picture
// for bench/peers.py, and records what its labels do from run to run.
//
//   npp_label IMAGE.npy [IMAGE.npy ...] --runs N [--warmup W] [--connectivity 4|8] [--labels PREFIX] [--keep K]
//
// IMAGE is a 2-D .npy of uint32 (the packed colour image) or of bool/uint8/uint16 (widened to uint32
// on the host, untimed). NPP labels runs of equal value, so the packed colours are its markers, as
// its documentation describes. The picture and the label image are on the GPU before anything is
// timed; the scratch buffer is allocated once from the size query. Each of the N timed runs is one
// call between two CUDA events on one stream (and the host's wall clock around call + synchronise).
// After each run the labels are copied back (untimed) and compared with run 0's, pixel by pixel:
// NPP's labeller is reported to give different labels from run to run. PREFIX.I.R.npy gets the labels
// of image I's run R for R < K (default 1), so that the driver can check them against the CPU's.
// Several images (a batch) share one process, so the CUDA context is made once.
//
// One JSON line per image on stdout; on an NPP or CUDA error, a JSON line with "error" and exit
// status 3 (the size query's int overflows on the largest pictures, for one).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nppi_filtering_functions.h>

#include "npy_lite.hpp"

namespace {

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr,
                 "npp_label: %s\n"
                 "usage: npp_label IMAGE.npy [IMAGE.npy ...] --runs N [--warmup W] [--connectivity 4|8] [--labels PREFIX]\n"
                 "                 [--keep K]\n",
                 why.c_str());
    std::exit(2);
}

[[noreturn]] void fail(const std::string& what) {
    std::printf("{\"error\": \"%s\"}\n", what.c_str());
    std::fflush(stdout);
    std::exit(3);
}

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}

void check(NppStatus s, const char* what) {
    if (s < 0) fail(std::string(what) + " returned NppStatus " + std::to_string(int(s)));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The stream context NPP's _Ctx functions ask the caller to fill in (nppGetStreamContext is not in
// every toolkit): the device's limits and the stream.
NppStreamContext stream_context(cudaStream_t stream) {
    NppStreamContext ctx{};
    int dev = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    auto attr = [&](cudaDeviceAttr a) {
        int v = 0;
        check(cudaDeviceGetAttribute(&v, a, dev), "cudaDeviceGetAttribute");
        return v;
    };
    ctx.hStream = stream;
    ctx.nCudaDeviceId = dev;
    ctx.nMultiProcessorCount = attr(cudaDevAttrMultiProcessorCount);
    ctx.nMaxThreadsPerMultiProcessor = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
    ctx.nMaxThreadsPerBlock = attr(cudaDevAttrMaxThreadsPerBlock);
    ctx.nSharedMemPerBlock = std::size_t(attr(cudaDevAttrMaxSharedMemoryPerBlock));
    ctx.nCudaDevAttrComputeCapabilityMajor = attr(cudaDevAttrComputeCapabilityMajor);
    ctx.nCudaDevAttrComputeCapabilityMinor = attr(cudaDevAttrComputeCapabilityMinor);
    unsigned flags = 0;
    check(cudaStreamGetFlags(stream, &flags), "cudaStreamGetFlags");
    ctx.nStreamFlags = flags;
    return ctx;
}

std::vector<std::uint32_t> widen(const cclabel::bench::npy::Array& a, std::size_t pixels) {
    std::vector<std::uint32_t> v(pixels);
    const std::uint8_t* b = a.bytes.data();
    if (a.descr == "<u4" || a.descr == "<i4") {
        for (std::size_t i = 0; i < pixels; ++i)
            v[i] = std::uint32_t(b[4 * i]) | std::uint32_t(b[4 * i + 1]) << 8 | std::uint32_t(b[4 * i + 2]) << 16 |
                   std::uint32_t(b[4 * i + 3]) << 24;
    } else if (a.descr == "<u2") {
        for (std::size_t i = 0; i < pixels; ++i) v[i] = std::uint32_t(b[2 * i]) | std::uint32_t(b[2 * i + 1]) << 8;
    } else if (a.descr == "|u1" || a.descr == "<u1" || a.descr == "|b1") {
        for (std::size_t i = 0; i < pixels; ++i) v[i] = b[i];
    } else {
        usage("IMAGE: expected a 2-D uint32, int32, uint16, uint8 or bool array, got dtype " + a.descr);
    }
    return v;
}

struct Settings {
    int runs = 5, warmup = 1, connectivity = 8, keep = 1;
    std::string prefix;
};

// Labels one picture settings.runs times and prints its JSON line.
void label_one(const std::string& path, int index, const Settings& set, cudaStream_t stream, const NppStreamContext& ctx) {
    cclabel::bench::npy::Array arr;
    try {
        arr = cclabel::bench::npy::read(path);
    } catch (const std::exception& e) {
        usage(e.what());
    }
    if (arr.shape.size() != 2) usage(path + ": expected a 2-D array");
    const std::int64_t height = arr.shape[0], width = arr.shape[1];
    if (width <= 0 || height <= 0 || width > INT32_MAX || height > INT32_MAX) usage(path + ": empty or too large");
    const std::size_t pixels = std::size_t(width) * std::size_t(height);
    std::vector<std::uint32_t> host = widen(arr, pixels);
    arr.bytes.clear();
    arr.bytes.shrink_to_fit();

    const NppiSize roi{int(width), int(height)};
    int buffer_bytes = 0;
    // The size query returns an int: beyond about 2^31 bytes it fails or wraps, which is reported.
    check(nppiLabelMarkersUFGetBufferSize_32u_C1R(roi, &buffer_bytes), "nppiLabelMarkersUFGetBufferSize_32u_C1R");
    if (buffer_bytes <= 0) fail("nppiLabelMarkersUFGetBufferSize_32u_C1R gave " + std::to_string(buffer_bytes) + " bytes");

    // NPP's documentation: the destination must come from cudaMalloc (not cudaMallocPitch) with a
    // step of exactly width * 4 bytes; the source uses the same layout.
    const std::size_t row_bytes = std::size_t(width) * 4;
    if (row_bytes > std::size_t(INT32_MAX)) fail("row of " + std::to_string(row_bytes) + " bytes exceeds NPP's int step");
    const int step = int(row_bytes);
    std::uint32_t *src = nullptr, *dst = nullptr;
    std::uint8_t* scratch = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&src), pixels * 4), "cudaMalloc (picture)");
    check(cudaMalloc(reinterpret_cast<void**>(&dst), pixels * 4), "cudaMalloc (labels)");
    check(cudaMalloc(reinterpret_cast<void**>(&scratch), std::size_t(buffer_bytes)), "cudaMalloc (scratch)");
    check(cudaMemcpy(src, host.data(), pixels * 4, cudaMemcpyHostToDevice), "cudaMemcpy (picture)");
    const NppiNorm norm = set.connectivity == 8 ? nppiNormInf : nppiNormL1;
    auto call = [&] {
        check(nppiLabelMarkersUF_32u_C1R_Ctx(src, step, dst, step, roi, norm, scratch, ctx), "nppiLabelMarkersUF_32u_C1R_Ctx");
    };
    for (int w = 0; w < set.warmup; ++w) call();
    check(cudaStreamSynchronize(stream), "warm-up");

    cudaEvent_t e0{}, e1{};
    check(cudaEventCreate(&e0), "cudaEventCreate");
    check(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<double> gpu_ms, wall_ms;
    std::vector<long long> differs;
    std::vector<std::uint32_t> first, cur(pixels);
    std::uint32_t max_label = 0;
    for (int r = 0; r < set.runs; ++r) {
        // Every run writes the same label buffer: clear it so no run can pass by leaving the last one's labels.
        check(cudaMemsetAsync(dst, 0xFF, pixels * 4, stream), "cudaMemset");
        check(cudaStreamSynchronize(stream), "clear");
        const auto t0 = std::chrono::steady_clock::now();
        check(cudaEventRecord(e0, stream), "cudaEventRecord");
        call();
        check(cudaEventRecord(e1, stream), "cudaEventRecord");
        check(cudaEventSynchronize(e1), "cudaEventSynchronize");
        wall_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        float ms = 0;
        check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        gpu_ms.push_back(ms);

        check(cudaMemcpy(cur.data(), dst, pixels * 4, cudaMemcpyDeviceToHost), "cudaMemcpy (labels)");
        if (r == 0) {
            first = cur;
            max_label = *std::max_element(first.begin(), first.end());
            differs.push_back(0);
        } else {
            long long d = 0;
            for (std::size_t i = 0; i < pixels; ++i) d += cur[i] != first[i];
            differs.push_back(d);
        }
        if (!set.prefix.empty() && r < set.keep) {
            try {
                cclabel::bench::npy::write(set.prefix + "." + std::to_string(index) + "." + std::to_string(r) + ".npy",
                                           "<u4", {height, width}, cur.data(), pixels * 4);
            } catch (const std::exception& e) {
                fail(e.what());
            }
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(scratch);
    cudaFree(dst);
    cudaFree(src);

    std::printf("{\"image\": \"%s\", \"width\": %lld, \"height\": %lld, \"connectivity\": %d, \"buffer_bytes\": %d, "
                "\"runs\": %d, \"median_ms\": %.4f, \"median_wall_ms\": %.4f, \"max_label\": %u, \"ms\": [",
                path.c_str(), static_cast<long long>(width), static_cast<long long>(height), set.connectivity, buffer_bytes,
                set.runs, median(gpu_ms), median(wall_ms), max_label);
    for (int r = 0; r < set.runs; ++r) std::printf("%s%.4f", r ? ", " : "", gpu_ms[std::size_t(r)]);
    std::printf("], \"pixels_differing_from_run0\": [");
    for (int r = 0; r < set.runs; ++r) std::printf("%s%lld", r ? ", " : "", differs[std::size_t(r)]);
    std::printf("]}\n");
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    Settings set;
    std::vector<std::string> paths;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage("missing value after " + a);
            return argv[++i];
        };
        if (a == "--runs") set.runs = std::max(1, std::stoi(value()));
        else if (a == "--warmup") set.warmup = std::max(0, std::stoi(value()));
        else if (a == "--connectivity") set.connectivity = std::stoi(value());
        else if (a == "--labels") set.prefix = value();
        else if (a == "--keep") set.keep = std::max(0, std::stoi(value()));
        else if (!a.empty() && a[0] == '-') usage("unknown option " + a);
        else paths.push_back(a);
    }
    if (paths.empty()) usage("missing IMAGE");
    if (set.connectivity != 4 && set.connectivity != 8) usage("--connectivity must be 4 or 8");

    cudaStream_t stream{};
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    const NppStreamContext ctx = stream_context(stream);
    for (std::size_t i = 0; i < paths.size(); ++i) label_one(paths[i], int(i), set, stream, ctx);
    cudaStreamDestroy(stream);
    return 0;
}
