// bench_graph_cpu: the region adjacency graph on the CPU backend (issue 28's goal: the graph of a
// sheet's labels in at most the labelling time), without a GPU. Rows, median of --reps wall-clock
// calls after one unmeasured call:
//   sheet D dpi    the construction sheet (bench/drawing.hpp) labelled on the CPU with the paper as
//                  background, then adjacency(..., Backend::Cpu, threads) of those labels; the
//                  labelling's own time on the same threads beside it
//   noise K        N x N labels drawn uniformly from 1..K (seeded): a pair at almost every pixel,
//                  few distinct edges (K = 16) or nearly all distinct (K = 2^24), the worst cases
// "cpu" is the median process CPU time of the same calls (all threads): on a shared machine it
// moves less with the load than the wall clock. Each row also prints the edges' count and an FNV-1a checksum of (a, b, contacts), so that two
// builds can be checked to give the same graph.
//
//   bench_graph_cpu [--dpi 200,400] [--threads 1,2] [--reps 5] [--noise 2048] [--conn 8] [--background]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include "cclabel/adjacency.hpp"
#include "cclabel/cclabel.hpp"
#include "drawing.hpp"

namespace {

std::vector<int> parse_list(const char* s) {
    std::vector<int> v;
    for (const char* p = s; *p;) {
        char* end = nullptr;
        v.push_back(int(std::strtol(p, &end, 10)));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) break;
    }
    return v;
}

double cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

struct Times {
    double wall = 0, cpu = 0;
};

/// Medians of @p reps calls after an unmeasured one.
template <typename Fn>
Times median_ms(int reps, Fn&& fn) {
    fn();
    std::vector<double> wall, cpu;
    for (int i = 0; i < reps; ++i) {
        const double c = cpu_ms();
        const auto a = std::chrono::steady_clock::now();
        fn();
        wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
        cpu.push_back(cpu_ms() - c);
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

std::uint64_t checksum(const std::vector<cclabel::AdjacencyEdge>& edges) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&](std::uint64_t v) {
        for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xFF)) * 0x100000001b3ull;
    };
    for (const auto& e : edges) {
        mix(e.a);
        mix(e.b);
        mix(e.contacts);
    }
    return h;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> dpis = {200, 400}, threads = {1, 2};
    int reps = 5, noise = 2048, conn = 8;
    bool bg = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--dpi" && i + 1 < argc) dpis = parse_list(argv[++i]);
        else if (a == "--threads" && i + 1 < argc) threads = parse_list(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--noise" && i + 1 < argc) noise = std::atoi(argv[++i]);
        else if (a == "--conn" && i + 1 < argc) conn = std::atoi(argv[++i]);
        else if (a == "--background") bg = true;
        else {
            std::fprintf(stderr,
                         "usage: bench_graph_cpu [--dpi 200,400] [--threads 1,2] [--reps 5] [--noise 2048] [--conn 8] "
                         "[--background]\n");
            return 2;
        }
    }
    std::printf("bench_graph_cpu: connectivity %d%s, median of %d\n", conn, bg ? ", background pairs included" : "",
                reps);
    auto graph_rows = [&](const char* what, const std::vector<std::uint32_t>& labels, std::int64_t w, std::int64_t h,
                          auto&& label_ms) {
        for (int t : threads) {
            std::vector<cclabel::AdjacencyEdge> edges;
            const Times g = median_ms(reps, [&] {
                edges = cclabel::adjacency(labels.data(), w, h, conn, bg, 0, cclabel::Backend::Cpu, t);
            });
            std::printf("  %-14s %d thread%s  graph %8.2f ms (cpu %8.2f)", what, t, t == 1 ? " " : "s", g.wall, g.cpu);
            const Times l = label_ms(t);
            if (l.wall > 0) std::printf("  label %7.2f ms (cpu %7.2f)", l.wall, l.cpu);
            std::printf("  edges %zu  checksum %016llx\n", edges.size(), (unsigned long long)checksum(edges));
        }
    };
    for (int dpi : dpis) {
        const cclabel::bench::Drawing d = cclabel::bench::make_drawing(dpi);
        const cclabel::ImageView v = cclabel::make_view(d.rgb.data(), d.width, d.height, cclabel::PixelFormat::RGB8);
        std::vector<std::uint32_t> labels(std::size_t(v.pixels()));
        auto opts = [&](int t) {
            cclabel::Options o;
            o.backend = cclabel::Backend::Cpu;
            o.connectivity = conn;
            o.threads = t;
            o.background = std::vector<std::uint64_t>{255, 255, 255};
            return o;
        };
        const std::uint32_t regions = cclabel::label(v, labels.data(), opts(1)).count;
        std::printf("sheet %d dpi (%lld x %lld, %.1f Mpx), paper as background, %u regions\n", dpi,
                    (long long)d.width, (long long)d.height, double(v.pixels()) * 1e-6, regions);
        std::vector<std::uint32_t> scratch(labels.size());
        graph_rows(("sheet " + std::to_string(dpi)).c_str(), labels, d.width, d.height, [&](int t) {
            return median_ms(reps, [&] { (void)cclabel::label(v, scratch.data(), opts(t)); });
        });
    }
    if (noise > 0) {
        for (std::uint32_t k : {16u, 1u << 24}) {
            std::vector<std::uint32_t> labels(std::size_t(noise) * std::size_t(noise));
            std::mt19937 rng(28);
            for (auto& l : labels) l = 1 + rng() % k;
            std::printf("noise %d x %d, labels 1..%u\n", noise, noise, k);
            graph_rows(("noise " + std::to_string(k)).c_str(), labels, noise, noise, [](int) { return Times{}; });
        }
    }
    return 0;
}
