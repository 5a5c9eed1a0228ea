// GPU benchmark of the CUDA labeller on the synthetic construction sheet (bench/drawing.hpp), with
// the picture already on the GPU: median time per call (CUDA events), as a multiple of the
// bandwidth floor (read the picture once + write the labels once at 4.2 TB/s), throughput, time of
// each stage, extra device memory; every switch off in turn and several launch shapes; and the host
// API with copies included. Labels are checked against the CPU backend at every size.
//
// With --mask, each dpi also times the sheet's ink mask (Binary8: 1 where a pixel is not white),
// with the defaults and with seg_start_halves flipped (Binary8's Start is the one kernel built
// without the 64-register cap), checked against the CPU backend.
//
//   bench_cuda [--dpi 50,100,...] [--reps N] [--variants DPI] [--no-check] [--no-host] [--few] [--mask]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cuda/bench_util.hpp"
#include "cuda/label_tuned.hpp"
#include "drawing.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;
using cclabel::bench::parse_list;

constexpr double kBandwidth = 4.2e12;  // bytes/s: the H200's device-to-device copy rate measured here

struct Timing {
    double total_ms = 0, clear_ms = 0, start_ms = 0, connect_ms = 0, count_ms = 0, scan_ms = 0, number_ms = 0;
    std::uint32_t count = 0;
    std::size_t workspace = 0;
};

struct Gpu {
    void* img = nullptr;
    std::uint32_t* labels = nullptr;
    std::uint32_t* count = nullptr;
    cclabel::ImageView view;
};

Timing time_device(const Gpu& g, const cclabel::Options& o, const cclabel::cuda::Tuning& t, int reps) {
    Timing r;
    std::size_t bytes = 0;
    cclabel::cuda::detail::label_device_tuned(nullptr, bytes, g.view, g.labels, g.count, o, nullptr, t);
    void* ws = nullptr;
    ck(cudaMalloc(&ws, bytes), "cudaMalloc(workspace)");
    r.workspace = bytes;
    // ev: call start, clear, Start, Connect, Count, scan, Number.
    cudaEvent_t ev[7];
    for (auto& e : ev) ck(cudaEventCreate(&e), "cudaEventCreate");
    cclabel::cuda::detail::StageEvents se{ev[1], ev[2], ev[3], ev[5], ev[6], ev[4]};
    std::vector<double> tot, cl, st, co, cn, sc, nu;
    for (int k = 0; k < reps + 2; ++k) {
        ck(cudaEventRecord(ev[0], nullptr), "cudaEventRecord");
        cclabel::cuda::detail::label_device_tuned(ws, bytes, g.view, g.labels, g.count, o, nullptr, t, &se);
        ck(cudaEventSynchronize(ev[6]), "cudaEventSynchronize");
        if (k < 2) continue;  // warm-up
        float ms[6];
        for (int s = 0; s < 6; ++s) ck(cudaEventElapsedTime(&ms[s], ev[s], ev[s + 1]), "cudaEventElapsedTime");
        float all = 0;
        ck(cudaEventElapsedTime(&all, ev[0], ev[6]), "cudaEventElapsedTime");
        tot.push_back(all);
        cl.push_back(ms[0]);
        st.push_back(ms[1]);
        co.push_back(ms[2]);
        cn.push_back(ms[3]);
        sc.push_back(ms[4]);
        nu.push_back(ms[5]);
    }
    ck(cudaMemcpy(&r.count, g.count, 4, cudaMemcpyDeviceToHost), "cudaMemcpy(count)");
    r.total_ms = median(tot);
    r.clear_ms = median(cl);
    r.start_ms = median(st);
    r.connect_ms = median(co);
    r.count_ms = median(cn);
    r.scan_ms = median(sc);
    r.number_ms = median(nu);
    for (auto& e : ev) cudaEventDestroy(e);
    cudaFree(ws);
    return r;
}

/// The GPU's labels of @p g against the CPU backend's of the same picture in host memory (@p host).
bool check_labels(const Gpu& g, const cclabel::ImageView& host, const cclabel::Options& o0, std::uint32_t gpu_count) {
    const std::size_t n = std::size_t(host.width * host.height);
    std::vector<std::uint32_t> got(n), want(n);
    ck(cudaMemcpy(got.data(), g.labels, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy(labels)");
    cclabel::Options o = o0;
    o.backend = cclabel::Backend::Cpu;
    const auto cpu = cclabel::label(host, want.data(), o);
    return cpu.count == gpu_count && std::memcmp(got.data(), want.data(), n * 4) == 0;
}

cclabel::ImageView host_view(const cclabel::bench::Drawing& d) {
    return cclabel::make_view(d.rgb.data(), d.width, d.height, cclabel::PixelFormat::RGB8);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> dpis = {50, 100, 200, 300, 400, 600, 800};
    int reps = 10, variants_dpi = 800;
    bool check = true, host = true, few = false, mask = false;
    cclabel::cuda::Tuning base;  // the main table's tuning: the defaults, or with --flip NAME switches flipped
    std::string flipped;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dpi" && i + 1 < argc) dpis = parse_list(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (a == "--variants" && i + 1 < argc) variants_dpi = std::atoi(argv[++i]);
        else if (a == "--no-check") check = false;
        else if (a == "--no-host") host = false;
        else if (a == "--flip" && i + 1 < argc) {
            // The segment pipeline's switches by name, so that a profile (ncu) can take a variant.
            const std::string n = argv[++i];
            auto& s = base.switches;
            bool* b = n == "seg_number_transpose" ? &s.seg_number_transpose
                      : n == "seg_uniform_warps"    ? &s.seg_uniform_warps
                      : n == "seg_start_halves"     ? &s.seg_start_halves
                      : n == "seg_carry_labels"     ? &s.seg_carry_labels
                      : n == "seg_start_zeroes"     ? &s.seg_start_zeroes
                      : n == "seg_warp_carry"       ? &s.seg_warp_carry
                      : n == "seg_quad_number"      ? &s.seg_quad_number
                      : n == "seg_carry"            ? &s.seg_carry
                      : n == "skip_joins"           ? &s.skip_joins
                      : n == "path_halving"         ? &s.path_halving
                      : n == "cached_loads"         ? &s.cached_loads
                                                    : nullptr;
            if (!b) {
                std::fprintf(stderr, "bench_cuda: --flip: unknown switch '%s'\n", n.c_str());
                return 2;
            }
            *b = !*b;
            flipped += " " + n + (*b ? " on" : " off");
        } else if (a == "--mask") mask = true;
        else if (a == "--few") few = true;  // variants: the segment pipeline's and the pixel pipeline's defaults only
        else {
            std::fprintf(stderr, "usage: bench_cuda [--dpi 50,100] [--reps N] [--variants DPI|0] [--no-check] [--no-host] [--few] [--mask] [--flip SWITCH]...\n");
            return 2;
        }
    }
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    std::printf("# GPU: %s, %d SMs, %.0f GB; reps %d (median)\n", prop.name, prop.multiProcessorCount,
                double(prop.totalGlobalMem) / 1e9, reps);
    if (!flipped.empty()) std::printf("# main table: the defaults with%s\n", flipped.c_str());
    std::printf("%-5s %-9s %-8s %9s %8s %7s %9s | %7s %7s %7s %7s %7s %7s | %9s %6s %9s %s\n", "dpi", "size",
                "paper", "N", "ms", "xfloor", "Gpx/s", "clear", "start", "connect", "count", "scan", "number",
                "extra MB", "KB/Mpx", "host ms", "check");
    auto run_variants = [&](const cclabel::bench::Drawing& d, const Gpu& g) {
        std::printf("\n# variants at %d dpi (%lldx%lld), paper labelled / paper as background, ms\n", variants_dpi,
                    (long long)d.width, (long long)d.height);
        struct V {
            const char* name;
            cclabel::cuda::Tuning t;
        };
        std::vector<V> vs;
        vs.push_back({"defaults (segments of 32, 128 a block, a segment a thread, spans of 32, number 8 px)", {}});
        // The segment pipeline's shapes and switches.
        auto seg = [&](const char* n, std::uint32_t w, std::uint32_t threads, std::uint32_t rows, auto f) {
            cclabel::cuda::Tuning t;
            t.shape.seg_w = w;
            t.shape.seg_threads = threads;
            t.shape.seg_rows = rows;
            f(t.switches);
            vs.push_back({n, t});
        };
        auto none = [](auto&) {};
        const std::uint32_t R = cclabel::cuda::LaunchShape{}.seg_rows, T = cclabel::cuda::LaunchShape{}.seg_threads;
        seg("segments, strips of 1 (a thread a segment)", 32, T, 1, none);
        seg("segments, strips of 4", 32, T, 4, none);
        seg("segments, 256 a block", 32, 256, R, none);
        seg("segments, 512 a block", 32, 512, R, none);
        seg("segments, skip_joins off", 32, T, R, [](auto& s) { s.skip_joins = false; });
        seg("segments, path_halving off", 32, T, R, [](auto& s) { s.path_halving = false; });
        seg("segments, cached_loads on", 32, T, R, [](auto& s) { s.cached_loads = true; });
        seg("segments, seg_quad_number off", 32, T, R, [](auto& s) { s.seg_quad_number = false; });
        seg("segments, seg_carry off", 32, T, R, [](auto& s) { s.seg_carry = false; });
        seg("segments, seg_warp_carry off (the Carry kernel)", 32, T, R, [](auto& s) { s.seg_warp_carry = false; });
        seg("segments, seg_uniform_warps off", 32, T, R, [](auto& s) { s.seg_uniform_warps = false; });
        seg(cclabel::cuda::Switches{}.seg_start_halves ? "segments, seg_start_halves off" : "segments, seg_start_halves on",
            32, T, R, [](auto& s) { s.seg_start_halves = !s.seg_start_halves; });
        seg(cclabel::cuda::Switches{}.seg_carry_labels ? "segments, seg_carry_labels off" : "segments, seg_carry_labels on",
            32, T, R, [](auto& s) { s.seg_carry_labels = !s.seg_carry_labels; });
        seg(cclabel::cuda::Switches{}.seg_start_zeroes ? "segments, seg_start_zeroes off" : "segments, seg_start_zeroes on",
            32, T, R, [](auto& s) { s.seg_start_zeroes = !s.seg_start_zeroes; });
        seg(cclabel::cuda::Switches{}.seg_number_transpose ? "segments, seg_number_transpose off" : "segments, seg_number_transpose on",
            32, T, R, [](auto& s) { s.seg_number_transpose = !s.seg_number_transpose; });
        for (std::uint32_t px : {4u, 16u}) {
            cclabel::cuda::Tuning t;
            t.shape.number_px = px;
            vs.push_back({px == 4 ? "segments, number 4 px a thread" : "segments, number 16 px a thread", t});
        }
        for (std::uint32_t span : {8u, 128u}) {
            cclabel::cuda::Tuning t;
            t.shape.seg_span = span;
            vs.push_back({span == 8 ? "segments, spans of 8" : "segments, spans of 128", t});
        }
        // The pixel pipeline (segment_runs off: the default before the segments) and its switches;
        // --few keeps only its defaults.
        {
            cclabel::cuda::Tuning t;
            t.switches.segment_runs = false;
            vs.push_back({"segment_runs off (pixel pipeline: 32x32, 4 rows a thread)", t});
        }
        auto sw = [&](const char* n, auto f) {
            if (few) return;
            cclabel::cuda::Tuning t;
            t.switches.segment_runs = false;
            f(t.switches);
            vs.push_back({n, t});
        };
        sw("up_before_left off", [](auto& s) { s.up_before_left = false; });
        sw("warp_runs off", [](auto& s) { s.warp_runs = false; });
        sw("skip_joins off", [](auto& s) { s.skip_joins = false; });
        sw("path_halving off", [](auto& s) { s.path_halving = false; });
        sw("background_in_start off", [](auto& s) { s.background_in_start = false; });
        sw("fuse_start_connect on", [](auto& s) { s.fuse_start_connect = true; });
        sw("warp_runs+skip_joins off", [](auto& s) { s.warp_runs = false; s.skip_joins = false; });
        sw("tile_union_find off", [](auto& s) { s.tile_union_find = false; });
        sw("count_after_connect on", [](auto& s) { s.count_after_connect = true; });
        sw("cached_loads off", [](auto& s) { s.cached_loads = false; });
        sw("tile_uf off, cached_loads off, count on", [](auto& s) {
            s.tile_union_find = false;
            s.cached_loads = false;
            s.count_after_connect = true;
        });
        sw("all three off (before)", [](auto& s) {
            s.tile_union_find = false;
            s.count_after_connect = false;
            s.cached_loads = false;
        });
        sw("fused, tile_uf on", [](auto& s) { s.fuse_start_connect = true; });
        sw("shared_keys off", [](auto& s) { s.shared_keys = false; });
        sw("plain_flatten off", [](auto& s) { s.plain_flatten = false; });
        sw("compress_walks off", [](auto& s) { s.compress_walks = false; });
        sw("shared_keys, plain_flatten, compress_walks off (before)", [](auto& s) {
            s.shared_keys = s.plain_flatten = s.compress_walks = false;
        });
        using LS = cclabel::cuda::LaunchShape;
        for (auto sh : {LS{32, 8, 32, 1024, 4, 1}, LS{32, 32, 32, 1024, 4, 1}, LS{32, 8, 32, 1024, 4, 4},
                        LS{32, 16, 32, 1024, 4, 4}, LS{32, 16, 32, 1024, 4, 8}, LS{32, 32, 32, 1024, 4, 2},
                        LS{32, 32, 32, 1024, 4, 8}, LS{64, 8, 32, 1024, 4, 1}, LS{32, 32, 32, 2048, 4, 4}}) {
            if (few) break;
            cclabel::cuda::Tuning t;
            t.switches.segment_runs = false;
            t.shape = sh;
            static std::vector<std::string> names;
            names.push_back("shape " + std::to_string(sh.tile_w) + "x" + std::to_string(sh.tile_h) + " rows " +
                            std::to_string(sh.rows_per_thread) + ", number " + std::to_string(sh.number_tile) + " by " +
                            std::to_string(sh.number_ppt));
            vs.push_back({names.back().c_str(), t});
        }
        cclabel::cuda::Tuning wide;
        wide.switches.segment_runs = false;
        wide.force_wide_numbering = true;
        if (!few) vs.push_back({"pixel pipeline, wide numbering (root bitmask)", wide});
        for (const auto& v : vs) {
            double ms[2];
            bool ok = true;
            for (int bg = 0; bg < 2; ++bg) {
                cclabel::Options o;
                if (bg) o.background = std::vector<std::uint64_t>{255, 255, 255};
                const Timing r = time_device(g, o, v.t, std::max(3, reps / 2));
                ms[bg] = r.total_ms;
                if (check && bg == 1) ok = check_labels(g, host_view(d), o, r.count);
            }
            std::printf("%-34s %8.3f %8.3f  %s\n", v.name, ms[0], ms[1], check ? (ok ? "ok" : "MISMATCH") : "-");
            std::fflush(stdout);
        }
    };
    for (int dpi : dpis) {
        const auto t0 = std::chrono::steady_clock::now();
        const cclabel::bench::Drawing d = cclabel::bench::make_drawing(dpi);
        const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const std::size_t n = std::size_t(d.width * d.height);
        Gpu g;
        ck(cudaMalloc(&g.img, d.rgb.size()), "cudaMalloc(picture)");
        ck(cudaMalloc(reinterpret_cast<void**>(&g.labels), n * 4), "cudaMalloc(labels)");
        ck(cudaMalloc(reinterpret_cast<void**>(&g.count), 4), "cudaMalloc(count)");
        ck(cudaMemcpy(g.img, d.rgb.data(), d.rgb.size(), cudaMemcpyHostToDevice), "cudaMemcpy(picture)");
        g.view = cclabel::make_view(g.img, d.width, d.height, cclabel::PixelFormat::RGB8);
        const double floor_ms = double(n) * 7.0 / kBandwidth * 1e3;
        for (int bg = 0; bg < 2; ++bg) {
            cclabel::Options o;
            if (bg) o.background = std::vector<std::uint64_t>{255, 255, 255};
            const Timing r = time_device(g, o, base, reps);
            bool ok = true;
            if (check) ok = check_labels(g, host_view(d), o, r.count);
            // Host API: picture in pageable host memory, labels back to host memory, all included.
            std::vector<std::uint32_t> out(host ? n : 0);
            std::vector<double> host_ms;
            cclabel::Options oh = o;
            oh.backend = cclabel::Backend::Cuda;
            for (int k = 0; k < (host ? 3 : 0); ++k) {
                const auto h0 = std::chrono::steady_clock::now();
                cclabel::label(host_view(d), out.data(), oh);
                host_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count());
            }
            char size[32];
            std::snprintf(size, sizeof size, "%lldx%lld", (long long)d.width, (long long)d.height);
            std::printf("%-5d %-9s %-8s %9u %8.3f %7.2f %9.2f | %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f | %9.1f %6.1f %9.1f %s\n",
                        dpi, size, bg ? "bg" : "labelled", r.count, r.total_ms, r.total_ms / floor_ms,
                        double(n) / (r.total_ms * 1e-3) / 1e9, r.clear_ms, r.start_ms, r.connect_ms, r.count_ms,
                        r.scan_ms, r.number_ms, double(r.workspace) / 1e6,
                        double(r.workspace) / 1e3 / (double(n) / 1e6), median(host_ms),
                        check ? (ok ? "ok" : "MISMATCH") : "-");
            std::fflush(stdout);
        }
        std::printf("#   (generated in %.1f s; floor %.3f ms)\n", gen_s, floor_ms);
        if (mask) {
            std::vector<std::uint8_t> m(n);
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint8_t* p = d.rgb.data() + 3 * i;
                m[i] = std::uint8_t(!(p[0] == 255 && p[1] == 255 && p[2] == 255));
            }
            Gpu gm = g;
            ck(cudaMalloc(&gm.img, n), "cudaMalloc(mask)");
            ck(cudaMemcpy(gm.img, m.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy(mask)");
            gm.view = cclabel::make_view(gm.img, d.width, d.height, cclabel::PixelFormat::Binary8);
            const double mfloor = double(n) * 5.0 / kBandwidth * 1e3;
            for (int flip = 0; flip < 2; ++flip) {
                cclabel::cuda::Tuning t = base;
                if (flip) t.switches.seg_start_halves = !t.switches.seg_start_halves;
                const Timing r = time_device(gm, cclabel::Options{}, t, reps);
                const bool ok = !check || check_labels(gm, cclabel::make_view(m.data(), d.width, d.height,
                                                                              cclabel::PixelFormat::Binary8),
                                                       cclabel::Options{}, r.count);
                std::printf("%-5d ink mask, seg_start_halves %-3s %9u %8.3f %7.2f %9.2f | start %7.3f connect %7.3f "
                            "number %7.3f | %s\n",
                            dpi, (t.switches.seg_start_halves ? "on" : "off"), r.count, r.total_ms, r.total_ms / mfloor,
                            double(n) / (r.total_ms * 1e-3) / 1e9, r.start_ms, r.connect_ms, r.number_ms,
                            check ? (ok ? "ok" : "MISMATCH") : "-");
                std::fflush(stdout);
            }
            cudaFree(gm.img);
        }
        if (dpi == variants_dpi) run_variants(d, g);
        cudaFree(g.img);
        cudaFree(g.labels);
        cudaFree(g.count);
    }
    return 0;
}
