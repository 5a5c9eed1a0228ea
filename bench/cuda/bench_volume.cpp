// Issue 27's GPU goal (at least 50 GVx/s on a 512³ uint8 volume): label_volume_device on volumes
// already on the GPU, device to device, at connectivity 6, 18 and 26. Volumes (as
// bench/volume_cpu.py's): random binary at densities 0.1, 0.3, 0.5 and 0.9 (uint8 0/1, background
// 0), smooth blobs (box-filtered noise thresholded at 0.5, uint8 0/1, background 0), 5 labels at
// random (uint8 1..5, no background) and a Voronoi-like label volume (uint32, about 2,000 cells:
// the nearest of one random seed a cell of a 13 × 13 × 12 grid, no background). Each row: the
// median of --reps calls timed with CUDA events after one unmeasured call, GVx/s, the median of
// each step (Local, Border, Flatten, scan + Number), and the labels checked equal to the CPU's
// label_volume once ("ok", else "DIFF" and exit code 1). The floor: a cudaMemset of the labels
// (their 4 bytes a voxel written once).
//
// --tile takes a list of tiles, X×Y×Z/P with P voxels a thread (VolumeShape::per_thread; 1 when
// left out), one row each: 32x8x8/4 (the default) against 32x4x4/1 (before per_thread) in one
// run. The kernels' switches (VolumeSwitches, cuda/volume_plan.hpp): --off turns the named ones
// off for every row; --each-off adds, after each row, one row with each switch off in turn. The
// "variant" column names the tile and what is off. --on turns named switches on for every row:
// `--on runs` labels with the run kernels (kernels/volume_runs.cuh, off by default until measured),
// whose Start and Connect times fill the local and border columns; with --each-off its rows are
// followed by one with runs off (the voxel kernels) on the same volume.
//
//   bench_volume [--size 512] [--reps 10] [--conn 6,18,26] [--only "binary 0.3,blobs"]
//                [--tile 32x8x8/4,32x4x4] [--off cover] [--on runs] [--each-off] [--no-check]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda_volume.hpp"
#include "cuda/bench_util.hpp"
#include "cuda/volume_tuned.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;

struct Volume {
    cclabel::PixelFormat format = cclabel::PixelFormat::Gray8;
    bool background = false;  // value 0 is the background
    std::vector<std::uint8_t> bytes;
};

/// Runs fn(z0, z1) over slices on every core.
void parallel_slices(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& fn) {
    const std::int64_t t = std::max<std::int64_t>(1, std::min<std::int64_t>(n, std::thread::hardware_concurrency()));
    std::vector<std::thread> threads;
    for (std::int64_t i = 0; i < t; ++i) threads.emplace_back(fn, n * i / t, n * (i + 1) / t);
    for (auto& th : threads) th.join();
}

Volume binary(std::int64_t n, double density) {
    Volume v{cclabel::PixelFormat::Gray8, true, {}};
    v.bytes.resize(std::size_t(n * n * n));
    const auto cut = std::uint32_t(density * 4294967296.0);
    parallel_slices(n, [&](std::int64_t z0, std::int64_t z1) {
        cclabel::bench::XorShift rng{0x9E3779B97F4A7C15ull ^ std::uint64_t(z0 + 1)};
        for (std::int64_t i = z0 * n * n; i < z1 * n * n; ++i) v.bytes[std::size_t(i)] = rng() < cut;
    });
    return v;
}

/// Noise box-filtered three times along each axis (radius 2: about a Gaussian of sigma 2.5),
/// thresholded at 0.5: blobs and tubes of a few voxels' width, half the volume foreground.
Volume blobs(std::int64_t n) {
    Volume v{cclabel::PixelFormat::Gray8, true, {}};
    std::vector<float> a(std::size_t(n * n * n)), b(a.size());
    cclabel::bench::XorShift rng{12345};
    for (auto& x : a) x = float(rng()) / 4294967296.0f;
    const std::int64_t r = 2;
    auto pass = [&](std::int64_t step, std::int64_t len, std::int64_t outer_step, std::int64_t inner_step) {
        // Each line along one axis: a running mean over 2r + 1 voxels, clamped at the ends.
        parallel_slices(n, [&](std::int64_t o0, std::int64_t o1) {
            for (std::int64_t o = o0; o < o1; ++o)
                for (std::int64_t i = 0; i < n; ++i) {
                    const std::int64_t base = o * outer_step + i * inner_step;
                    for (std::int64_t k = 0; k < len; ++k) {
                        float s = 0;
                        for (std::int64_t d = -r; d <= r; ++d)
                            s += a[std::size_t(base + std::clamp<std::int64_t>(k + d, 0, len - 1) * step)];
                        b[std::size_t(base + k * step)] = s / float(2 * r + 1);
                    }
                }
        });
        a.swap(b);
    };
    for (int rep = 0; rep < 3; ++rep) {
        pass(1, n, n * n, n);      // x: lines (z, y)
        pass(n, n, n * n, 1);      // y: lines (z, x)
        pass(n * n, n, n, 1);      // z: lines (y, x)
    }
    v.bytes.resize(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) v.bytes[i] = a[i] > 0.5f;
    return v;
}

Volume five_labels(std::int64_t n) {
    Volume v{cclabel::PixelFormat::Gray8, false, {}};
    v.bytes.resize(std::size_t(n * n * n));
    parallel_slices(n, [&](std::int64_t z0, std::int64_t z1) {
        cclabel::bench::XorShift rng{777 + std::uint64_t(z0)};
        for (std::int64_t i = z0 * n * n; i < z1 * n * n; ++i) v.bytes[std::size_t(i)] = std::uint8_t(1 + rng() % 5);
    });
    return v;
}

Volume voronoi(std::int64_t n) {
    Volume v{cclabel::PixelFormat::U32, false, {}};
    constexpr int gx = 13, gy = 13, gz = 12;
    struct Seed {
        float x, y, z;
    };
    std::vector<Seed> seeds(gx * gy * gz);
    cclabel::bench::XorShift rng{4242};
    auto u = [&] { return float(rng()) / 4294967296.0f; };
    for (int k = 0; k < gz; ++k)
        for (int j = 0; j < gy; ++j)
            for (int i = 0; i < gx; ++i)
                seeds[std::size_t((k * gy + j) * gx + i)] = {(i + u()) * float(n) / gx, (j + u()) * float(n) / gy,
                                                             (k + u()) * float(n) / gz};
    v.bytes.resize(std::size_t(n * n * n) * 4);
    auto* out = reinterpret_cast<std::uint32_t*>(v.bytes.data());
    parallel_slices(n, [&](std::int64_t z0, std::int64_t z1) {
        for (std::int64_t z = z0; z < z1; ++z)
            for (std::int64_t y = 0; y < n; ++y)
                for (std::int64_t x = 0; x < n; ++x) {
                    const int ci = int(float(x) * gx / float(n)), cj = int(float(y) * gy / float(n)),
                              ck_ = int(float(z) * gz / float(n));
                    float best = 1e30f;
                    std::uint32_t id = 0;
                    for (int k = std::max(0, ck_ - 1); k <= std::min(gz - 1, ck_ + 1); ++k)
                        for (int j = std::max(0, cj - 1); j <= std::min(gy - 1, cj + 1); ++j)
                            for (int i = std::max(0, ci - 1); i <= std::min(gx - 1, ci + 1); ++i) {
                                const std::size_t s = std::size_t((k * gy + j) * gx + i);
                                const float dx = seeds[s].x - float(x), dy = seeds[s].y - float(y), dz = seeds[s].z - float(z);
                                const float d = dx * dx + dy * dy + dz * dz;
                                if (d < best) best = d, id = std::uint32_t(s + 1);
                            }
                    out[std::size_t((z * n + y) * n + x)] = id;
                }
    });
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    std::int64_t n = 512;
    int reps = 10;
    std::vector<int> conns = {6, 18, 26};
    std::string only;
    bool check = true;
    cclabel::cuda::detail::VolumeShape shape{};
    std::vector<cclabel::cuda::detail::VolumeShape> tiles = {shape};
    bool by_connectivity = true;  // no --tile: each connectivity's rows take the public call's tiles
    bool each_off = false;
    std::string off_names, on_names;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--size" && i + 1 < argc) n = std::atoll(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
        else if (a == "--conn" && i + 1 < argc) conns = cclabel::bench::parse_list(argv[++i]);
        else if (a == "--only" && i + 1 < argc) only = argv[++i];
        else if (a == "--tile" && i + 1 < argc) {
            tiles.clear();
            by_connectivity = false;
            for (const char* p = argv[++i]; *p;) {
                cclabel::cuda::detail::VolumeShape t{};
                t.per_thread = 1;
                const int got = std::sscanf(p, "%ux%ux%u/%u", &t.tile_x, &t.tile_y, &t.tile_z, &t.per_thread);
                if (got < 3) return 2;
                tiles.push_back(t);
                while (*p && *p != ',') ++p;
                if (*p == ',') ++p;
            }
        } else if (a == "--off" && i + 1 < argc) {
            off_names = argv[++i];
            for (std::size_t b = 0, e; b <= off_names.size(); b = e + 1) {
                e = std::min(off_names.find(',', b), off_names.size());
                if (!cclabel::cuda::detail::volume_switch_off(shape.switches, off_names.substr(b, e - b).c_str())) {
                    std::fprintf(stderr, "bench_volume: no switch called '%s'\n", off_names.substr(b, e - b).c_str());
                    return 2;
                }
            }
        } else if (a == "--on" && i + 1 < argc) {
            on_names = argv[++i];
            for (std::size_t b = 0, e; b <= on_names.size(); b = e + 1) {
                e = std::min(on_names.find(',', b), on_names.size());
                if (!cclabel::cuda::detail::volume_switch_on(shape.switches, on_names.substr(b, e - b).c_str())) {
                    std::fprintf(stderr, "bench_volume: no switch called '%s'\n", on_names.substr(b, e - b).c_str());
                    return 2;
                }
            }
        } else if (a == "--each-off") each_off = true;
        else if (a == "--no-check") check = false;
        else {
            std::fprintf(stderr,
                         "usage: bench_volume [--size 512] [--reps 10] [--conn 6,18,26] [--only NAMES] "
                         "[--tile XxYxZ/P,...] [--off NAMES] [--on NAMES] [--each-off] [--no-check]\n");
            return 2;
        }
    }
    // The rows of each volume and connectivity: each tile with the switches as given, then (with
    // --each-off) with each one off.
    // The switches of each row: as given, then (with --each-off) each one off; the tiles are
    // --tile's, or (without it) the public call's for the row's connectivity (volume_shape_for).
    std::vector<std::pair<std::string, cclabel::cuda::detail::VolumeSwitches>> switch_sets;
    const std::string on_suffix = on_names.empty() ? "" : " +" + on_names;
    switch_sets.emplace_back(on_suffix + (off_names.empty() ? "" : " -" + off_names), shape.switches);
    for (const char* sw : cclabel::cuda::detail::kVolumeSwitchNames) {
        cclabel::cuda::detail::VolumeSwitches s = shape.switches;
        if (each_off && cclabel::cuda::detail::volume_switch_off(s, sw) &&
            std::memcmp(&s, &shape.switches, sizeof s) != 0)  // not off already
            switch_sets.emplace_back(on_suffix + " -" + (off_names.empty() ? "" : off_names + ",") + sw, s);
    }
    auto variants_for = [&](int conn) {
        std::vector<std::pair<std::string, cclabel::cuda::detail::VolumeShape>> out;
        const std::vector<cclabel::cuda::detail::VolumeShape> shapes =
            by_connectivity ? std::vector{cclabel::cuda::detail::volume_shape_for(std::uint64_t(n), conn)} : tiles;
        for (cclabel::cuda::detail::VolumeShape t : shapes) {
            char name[64];
            std::snprintf(name, sizeof name, "%ux%ux%u/%u", t.tile_x, t.tile_y, t.tile_z, t.per_thread);
            for (const auto& [suffix, sw] : switch_sets) {
                t.switches = sw;
                out.emplace_back(std::string(name) + suffix, t);
            }
        }
        return out;
    };
    cudaDeviceProp p{};
    ck(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    const std::uint64_t voxels = std::uint64_t(n) * std::uint64_t(n) * std::uint64_t(n);
    std::printf("bench_volume: %s, %lld^3 (%.1f Mvx), median of %d, labels device to device\n", p.name,
                static_cast<long long>(n), double(voxels) * 1e-6, reps);

    std::vector<std::function<Volume()>> makers = {
        [&] { return binary(n, 0.1); }, [&] { return binary(n, 0.3); }, [&] { return binary(n, 0.5); },
        [&] { return binary(n, 0.9); }, [&] { return blobs(n); },       [&] { return five_labels(n); },
        [&] { return voronoi(n); }};
    const char* names[] = {"binary 0.1", "binary 0.3", "binary 0.5", "binary 0.9", "blobs", "5 labels", "voronoi 2k"};

    cudaStream_t stream;
    ck(cudaStreamCreate(&stream), "cudaStreamCreate");
    cudaEvent_t e0, e1;
    ck(cudaEventCreate(&e0), "cudaEventCreate");
    ck(cudaEventCreate(&e1), "cudaEventCreate");
    std::uint32_t *d_labels = nullptr, *d_count = nullptr;
    ck(cudaMalloc(reinterpret_cast<void**>(&d_labels), voxels * 4), "cudaMalloc(labels)");
    ck(cudaMalloc(reinterpret_cast<void**>(&d_count), 4), "cudaMalloc(count)");
    // Steps: events around the call, and (given) the call's own events between its steps.
    constexpr int kSteps = 4;
    cudaEvent_t step[kSteps + 1];
    for (auto& e : step) ck(cudaEventCreate(&e), "cudaEventCreate");
    cclabel::cuda::detail::VolumeEvents events{step[0], step[1], step[2], step[3], step[4]};
    std::vector<double> step_ms(kSteps);
    auto time_ms = [&](const std::function<void()>& fn, bool steps) {
        fn();
        std::vector<double> t;
        std::vector<std::vector<double>> per(kSteps);
        for (int r = 0; r < reps; ++r) {
            ck(cudaEventRecord(e0, stream), "cudaEventRecord");
            fn();
            ck(cudaEventRecord(e1, stream), "cudaEventRecord");
            ck(cudaEventSynchronize(e1), "cudaEventSynchronize");
            float ms = 0;
            ck(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
            t.push_back(ms);
            for (int k = 0; steps && k < kSteps; ++k) {
                ck(cudaEventElapsedTime(&ms, step[k], step[k + 1]), "cudaEventElapsedTime");
                per[std::size_t(k)].push_back(ms);
            }
        }
        for (int k = 0; steps && k < kSteps; ++k) step_ms[std::size_t(k)] = median(per[std::size_t(k)]);
        return median(t);
    };
    const double floor_ms =
        time_ms([&] { ck(cudaMemsetAsync(d_labels, 0, voxels * 4, stream), "cudaMemsetAsync"); }, false);
    std::printf("floor: cudaMemset of the labels %.3f ms (%.1f GVx/s)\n", floor_ms, double(voxels) / floor_ms * 1e-6);
    std::printf("%-11s %4s %9s %8s %8s %8s %8s %8s %9s %-5s %s\n", "volume", "conn", "ms", "GVx/s", "local", "border",
                "flatten", "number", "regions", "check", "variant");

    int failures = 0;
    for (std::size_t m = 0; m < makers.size(); ++m) {
        if (!only.empty() && ("," + only + ",").find("," + std::string(names[m]) + ",") == std::string::npos) continue;
        const Volume v = makers[m]();
        void* d_in = nullptr;
        ck(cudaMalloc(&d_in, v.bytes.size()), "cudaMalloc(volume)");
        ck(cudaMemcpy(d_in, v.bytes.data(), v.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy(volume)");
        const cclabel::VolumeView host = cclabel::make_volume_view(v.bytes.data(), n, n, n, v.format);
        const cclabel::VolumeView dev = cclabel::make_volume_view(d_in, n, n, n, v.format);
        for (int conn : conns)
        for (const auto& [variant, vshape] : variants_for(conn)) {
            cclabel::Options o;
            o.connectivity = conn;
            if (v.background) o.background = std::vector<std::uint64_t>{0};
            std::size_t ws_bytes = 0;
            cclabel::cuda::detail::label_volume_device_shaped(nullptr, ws_bytes, dev, d_labels, d_count, o, stream, vshape);
            void* ws = nullptr;
            ck(cudaMalloc(&ws, ws_bytes), "cudaMalloc(workspace)");
            const double ms = time_ms(
                [&] {
                    cclabel::cuda::detail::label_volume_device_shaped(ws, ws_bytes, dev, d_labels, d_count, o, stream,
                                                                      vshape, &events);
                },
                true);
            std::uint32_t count = 0;
            ck(cudaMemcpy(&count, d_count, 4, cudaMemcpyDeviceToHost), "cudaMemcpy(count)");
            std::string verdict = "-";
            if (check) {
                std::vector<std::uint32_t> got(voxels), want(voxels);
                ck(cudaMemcpy(got.data(), d_labels, voxels * 4, cudaMemcpyDeviceToHost), "cudaMemcpy(labels)");
                cclabel::Options c = o;
                c.backend = cclabel::Backend::Cpu;
                const std::uint32_t want_n = cclabel::label_volume(host, want.data(), c).count;
                const bool same = want_n == count && got == want;
                verdict = same ? "ok" : "DIFF";
                failures += !same;
            }
            std::printf("%-11s %4d %9.3f %8.1f %8.3f %8.3f %8.3f %8.3f %9u %-5s %s\n", names[m], conn, ms,
                        double(voxels) / ms * 1e-6, step_ms[0], step_ms[1], step_ms[2], step_ms[3], count,
                        verdict.c_str(), variant.c_str());
            std::fflush(stdout);
            ck(cudaFree(ws), "cudaFree(workspace)");
        }
        ck(cudaFree(d_in), "cudaFree(volume)");
    }
    cudaFree(d_labels);
    cudaFree(d_count);
    return failures ? 1 : 0;
}
