// Google Benchmark suite of the CPU labeller.
//
// Inputs come from bench/drawing.hpp and are generated once per process, outside every timed loop;
// the label buffer is allocated before the loop too, so an iteration is one label() call. Each
// benchmark reports pixels (items) and bytes read + label bytes written per second, and the region
// count. null_copy reads every pixel and writes one uint32 per pixel: the memory-bandwidth floor a
// labeller cannot beat (YACCLAB's labeling_NULL).
//
// Arguments: threads 0 means all cores. Drawing: paper=1 labels the white paper as a region,
// paper=0 passes it as the background colour.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/tiles.hpp"
#include "drawing.hpp"

namespace {

using cclabel::PixelFormat;

struct Input {
    std::vector<std::uint8_t> pixels;
    std::int64_t width = 0, height = 0;
    PixelFormat format = PixelFormat::RGB8;
    cclabel::ImageView view() const { return cclabel::make_view(pixels.data(), width, height, format); }
};

constexpr std::int64_t kSide = 2048;

// Inputs are cached by name: Google Benchmark calls each function several times while it sizes the
// iteration count, and the 300 dpi sheet takes a while to draw.
const Input& input(const std::string& key) {
    static std::mutex m;
    static std::map<std::string, std::unique_ptr<Input>> cache;
    std::lock_guard lock(m);
    auto& slot = cache[key];
    if (slot) return *slot;
    auto in = std::make_unique<Input>();
    const std::string kind = key.substr(0, key.find(':'));
    const long long arg = std::stoll(key.substr(key.find(':') + 1));
    using namespace cclabel::bench;
    if (kind == "drawing") {
        Drawing d = make_drawing(int(arg));
        in->width = d.width, in->height = d.height;
        in->pixels = std::move(d.rgb);
    } else if (kind == "palette") {
        in->width = in->height = kSide;
        in->pixels = random_palette_image(kSide, kSide, int(arg), 7);
    } else if (kind == "binary") {
        in->width = in->height = kSide;
        in->pixels = random_binary(kSide, kSide, double(arg) / 100.0, 11);
        in->format = PixelFormat::Binary8;
    } else {  // distinct
        in->width = in->height = kSide;
        in->pixels = all_distinct_image(kSide, kSide);
    }
    slot = std::move(in);
    return *slot;
}

int resolve(int threads) { return threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency())); }

void run_label(benchmark::State& state, const Input& in, cclabel::Options opt) {
    const cclabel::ImageView view = in.view();
    std::vector<std::uint32_t> out(view.pixels());
    std::uint32_t regions = 0;
    for (auto _ : state) {
        regions = cclabel::label(view, out.data(), opt).count;
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    const auto px = std::int64_t(view.pixels());
    state.SetItemsProcessed(state.iterations() * px);
    state.SetBytesProcessed(state.iterations() * px * (cclabel::bytes_per_pixel(in.format) + 4));
    state.counters["regions"] = regions;
    state.counters["Mpx"] = double(px) / 1e6;
    state.counters["threads"] = opt.threads;
}

cclabel::Options options(int threads, int connectivity = 8) {
    cclabel::Options o;
    o.backend = cclabel::Backend::Cpu;
    o.threads = resolve(threads);
    o.connectivity = connectivity;
    return o;
}

// Args: dpi, threads, paper (1: the paper is a region; 0: the paper is the background).
void BM_drawing(benchmark::State& state) {
    const Input& in = input("drawing:" + std::to_string(state.range(0)));
    cclabel::Options o = options(int(state.range(1)));
    if (state.range(2) == 0) o.background = std::vector<std::uint64_t>{255, 255, 255};
    run_label(state, in, o);
}

// Args: colours, threads.
void BM_palette(benchmark::State& state) {
    run_label(state, input("palette:" + std::to_string(state.range(0))), options(int(state.range(1))));
}

// Args: density in percent, threads, connectivity.
void BM_binary(benchmark::State& state) {
    run_label(state, input("binary:" + std::to_string(state.range(0))),
              options(int(state.range(1)), int(state.range(2))));
}

// Args: threads.
void BM_all_distinct(benchmark::State& state) {
    run_label(state, input("distinct:0"), options(int(state.range(0))));
}

// Reads each pixel and writes one uint32 derived from it, row bands over threads like the labeller.
// Args: dpi (0: the 2048 x 2048 palette image instead), threads.
void BM_null_copy(benchmark::State& state) {
    const Input& in = state.range(0) > 0 ? input("drawing:" + std::to_string(state.range(0))) : input("palette:256");
    const int nt = resolve(int(state.range(1)));
    const auto w = std::size_t(in.width);
    const auto h = std::size_t(in.height);
    std::vector<std::uint32_t> out(w * h);
    auto band = [&](std::size_t y0, std::size_t y1) {
        for (std::size_t y = y0; y < y1; ++y) {
            const std::uint8_t* p = in.pixels.data() + y * w * 3;
            std::uint32_t* o = out.data() + y * w;
            for (std::size_t x = 0; x < w; ++x) o[x] = p[3 * x] | std::uint32_t(p[3 * x + 1]) << 8 | std::uint32_t(p[3 * x + 2]) << 16;
        }
    };
    for (auto _ : state) {
        if (nt == 1) {
            band(0, h);
        } else {
            std::vector<std::jthread> pool;
            for (int t = 1; t < nt; ++t) pool.emplace_back(band, h * std::size_t(t) / std::size_t(nt), h * std::size_t(t + 1) / std::size_t(nt));
            band(0, h / std::size_t(nt));
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    const auto px = std::int64_t(w * h);
    state.SetItemsProcessed(state.iterations() * px);
    state.SetBytesProcessed(state.iterations() * px * (3 + 4));
    state.counters["Mpx"] = double(px) / 1e6;
    state.counters["threads"] = nt;
}

// resolve_tiles (the tile API's step 3, which every tiled and streamed path runs on the host) on
// an 800 dpi sheet's shape: 33,600 x 24,000 in tiles of 8192^2 (5 x 3), 950,000 regions whose first
// pixels are spread at random, 2,000 joins across each pair of neighbouring tiles in the list.
void BM_resolve_tiles(benchmark::State& state) {
    const std::int64_t W = 33600, H = 24000, T = 8192;
    std::vector<std::vector<std::uint64_t>> first;
    cclabel::bench::detail_drawing::Rng rng(1);  // the same inputs on every machine
    auto next = [&]() { return rng.next(); };
    for (std::int64_t y0 = 0; y0 < H; y0 += T)
        for (std::int64_t x0 = 0; x0 < W; x0 += T) {
            const std::int64_t w = std::min(T, W - x0), h = std::min(T, H - y0);
            std::vector<std::uint64_t> f(std::size_t(950000 * w * h / (W * H)));
            for (auto& v : f) v = next() % std::uint64_t(w * h);
            std::sort(f.begin(), f.end());
            f.erase(std::unique(f.begin(), f.end()), f.end());
            for (auto& v : f) v = (std::uint64_t(y0) + v / std::uint64_t(w)) * std::uint64_t(W) + std::uint64_t(x0) + v % std::uint64_t(w);
            first.push_back(std::move(f));
        }
    std::vector<cclabel::Seam> seams;
    for (std::size_t a = 0; a + 1 < first.size(); ++a) {
        cclabel::Seam s;
        s.tile_a = a;
        s.tile_b = a + 1;
        for (int k = 0; k < 2000; ++k) {
            s.pairs.push_back(std::uint32_t(1 + next() % first[a].size()));
            s.pairs.push_back(std::uint32_t(1 + next() % first[a + 1].size()));
        }
        seams.push_back(std::move(s));
    }
    std::uint64_t labels = 0;
    for (const auto& f : first) labels += f.size();
    for (auto _ : state) benchmark::DoNotOptimize(cclabel::resolve_tiles(first, seams).count);
    state.counters["labels"] = double(labels);
    state.SetItemsProcessed(state.iterations() * std::int64_t(labels));
}

// threads 0 = all cores (resolved at run time, so the same binary serves the H200 host too).
BENCHMARK(BM_drawing)
    ->ArgNames({"dpi", "threads", "paper"})
    ->ArgsProduct({{50, 100, 200, 300}, {1, 0}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_palette)
    ->ArgNames({"colours", "threads"})
    ->ArgsProduct({{4, 256, 65536}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_binary)
    ->ArgNames({"density_pct", "threads", "conn"})
    ->ArgsProduct({{10, 30, 50, 70, 90}, {1, 0}, {8}})
    ->Args({50, 1, 4})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_all_distinct)->ArgNames({"threads"})->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_null_copy)
    ->ArgNames({"dpi", "threads"})
    ->ArgsProduct({{0, 100, 300}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_resolve_tiles)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
