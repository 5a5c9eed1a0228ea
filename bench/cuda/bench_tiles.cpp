// The streamed GPU tile pipeline (cuda::label_tiled_streamed) host to host, against the copies
// alone on the same machine:
//   1. the 1,300-dpi-class sheet: bench/drawing.hpp's plan at 800 dpi, 33600 x 24000 RGB8 (806 Mpx),
//      in pinned host memory, labelled in tiles of 8192² into a pinned uint32 label image; the
//      floor is the same tiles' H2D copies followed by the labels' D2H copies (2-D copies, two
//      streams, as the pipeline does them), so ratio = streamed / floor (goal: ≤ 1.2);
//   2. a 2.5-gigapixel picture (50000 x 50000, Gray8 and Binary8, the sheet's red channel repeated)
//      host to host, as pixels per second and against its copy floor.
//   3. the sheet again in full-width strips of --strips rows (default 1024; 0 leaves them out): with
//      early downloads (StreamTuning::early_downloads: each strip downloaded while later strips
//      upload, its map taken --lag rows below it), without, and with the paper as background; the
//      floor of each row is the same strips' copies; the 2.5-gigapixel pictures in strips too.
// Medians of --reps runs. The sheet's labels are checked against the CPU labeller after each row
// (--no-check skips it). Prints one compact table; about a minute on an H200.
//
// Under each row, where the time goes (--no-phases leaves it out): the medians over --reps more
// calls of the pipeline's phases (core/tiles_profile.hpp: host-clock marks at the phase
// boundaries), next to the uploads alone and the downloads alone (the floor's two halves, each
// timed on its own): phase A can be no shorter than the uploads, phase C no shorter than the
// downloads. A further line splits the floor itself into its uploads and downloads by CUDA events
// inside one call, to tell whether the alone halves (which add up to more than the floor) carry a
// per-call cost of their own; and the tiles whose first-pixel table the host had to copy back
// (the device writes the others into mapped host memory: normally 0).
//
//   bench_tiles [--reps N] [--tile S] [--devices 0,0] [--no-check] [--no-big] [--no-phases]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda_tiles.hpp"
#include "core/tiles_profile.hpp"
#include "drawing.hpp"
#include "cuda/bench_util.hpp"

namespace {

using cclabel::bench::ck;
using cclabel::bench::median;

double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename T>
T* pinned(std::size_t count, const char* what) {
    void* p = nullptr;
    ck(cudaHostAlloc(&p, std::max<std::size_t>(count * sizeof(T), 1), cudaHostAllocPortable), what);
    return static_cast<T*>(p);
}

template <typename Fn>
void parallel_rows(std::int64_t rows, Fn&& fn) {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> ts;
    for (unsigned k = 0; k < n; ++k)
        ts.emplace_back([&, k] {
            for (std::int64_t y = k; y < rows; y += n) fn(y);
        });
    for (auto& t : ts) t.join();
}

enum class Copies { Both, Up, Down };

/// The copies alone: every tile's pixels H2D (2-D copies from the pinned picture, two streams),
/// then every tile's uint32 labels D2H into the pinned label image (Copies::Both: the floor);
/// or only one of the two halves. Milliseconds.
///
/// The H200 has separate copy engines for the two directions, so uploads and downloads could run
/// at the same time and a floor of max(up, down) would be lower. The pipeline cannot use that: a
/// tile's global labels are known only once every tile is labelled and the seams are resolved
/// (a region may join two of the first tile's labels through the last tile), so no download can
/// start before the last upload. Uploads then downloads is the floor of this design, and the floor
/// RESULTS.md has always reported. Here the first downloads may start while the last upload still
/// runs (the streams alternate), which the pipeline cannot do, so this floor is if anything a
/// little low.
/// The floor's own two halves, device-timed (CUDA events) inside one Copies::Both call: from the
/// first upload's start to the last upload's end, and from there to the last download's end. These
/// compare like with like against the "alone" halves (host-timed calls of their own): if the alone
/// halves add up to more than the floor, the difference is per-call overhead or one direction
/// overlapping the other inside the floor, not the pipeline.
struct FloorSplit {
    double up_ms = 0, down_ms = 0;
};

/// How a row cuts and labels its picture: tiles of tw x th (full-width strips when tw is the
/// width), the pipeline's switches and the labelling options.
struct Tiling {
    std::int64_t tw = 8192, th = 8192;
    cclabel::detail::StreamTuning tuning;
    cclabel::Options options;
};

double copy_floor(const cclabel::ImageView& v, std::uint32_t* out, const Tiling& tiling, Copies what = Copies::Both,
                  FloorSplit* split = nullptr) {
    const int bpp = cclabel::bytes_per_pixel(v.format);
    const std::int64_t W = v.width, H = v.height, tw = std::min(tiling.tw, W), th = std::min(tiling.th, H);
    void* dev[2];
    cudaStream_t s[2];
    for (int k = 0; k < 2; ++k) {
        ck(cudaMalloc(&dev[k], std::size_t(tw * th) * 4), "cudaMalloc(floor)");
        ck(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking), "cudaStreamCreate");
    }
    const auto* src = static_cast<const std::uint8_t*>(v.data);
    const std::int64_t stride = v.row_bytes();
    cudaEvent_t e_start = nullptr, e_up[2] = {}, e_end[2] = {};
    if (split) {
        ck(cudaEventCreate(&e_start), "cudaEventCreate");
        for (int j = 0; j < 2; ++j) {
            ck(cudaEventCreate(&e_up[j]), "cudaEventCreate");
            ck(cudaEventCreate(&e_end[j]), "cudaEventCreate");
        }
    }
    const double t0 = now_ms();
    if (split) {
        ck(cudaEventRecord(e_start, s[0]), "cudaEventRecord");
        ck(cudaStreamWaitEvent(s[1], e_start, 0), "cudaStreamWaitEvent");
    }
    int k = 0;
    if (what != Copies::Down)
        for (std::int64_t y0 = 0; y0 < H; y0 += th)
            for (std::int64_t x0 = 0; x0 < W; x0 += tw, k ^= 1) {
                const std::int64_t w = std::min(tw, W - x0), h = std::min(th, H - y0);
                ck(cudaMemcpy2DAsync(dev[k], std::size_t(w * bpp), src + y0 * stride + x0 * bpp, std::size_t(stride),
                                     std::size_t(w * bpp), std::size_t(h), cudaMemcpyHostToDevice, s[k]),
                   "cudaMemcpy2DAsync(H2D)");
            }
    if (split)
        for (int j = 0; j < 2; ++j) ck(cudaEventRecord(e_up[j], s[j]), "cudaEventRecord");
    if (what != Copies::Up)
        for (std::int64_t y0 = 0; y0 < H; y0 += th)
            for (std::int64_t x0 = 0; x0 < W; x0 += tw, k ^= 1) {
                const std::int64_t w = std::min(tw, W - x0), h = std::min(th, H - y0);
                ck(cudaMemcpy2DAsync(out + y0 * W + x0, std::size_t(W) * 4, dev[k], std::size_t(w) * 4,
                                     std::size_t(w) * 4, std::size_t(h), cudaMemcpyDeviceToHost, s[k]),
                   "cudaMemcpy2DAsync(D2H)");
            }
    if (split)
        for (int j = 0; j < 2; ++j) ck(cudaEventRecord(e_end[j], s[j]), "cudaEventRecord");
    for (int j = 0; j < 2; ++j) ck(cudaStreamSynchronize(s[j]), "cudaStreamSynchronize");
    const double ms = now_ms() - t0;
    if (split) {
        float up[2] = {}, end[2] = {};
        for (int j = 0; j < 2; ++j) {
            ck(cudaEventElapsedTime(&up[j], e_start, e_up[j]), "cudaEventElapsedTime");
            ck(cudaEventElapsedTime(&end[j], e_start, e_end[j]), "cudaEventElapsedTime");
        }
        split->up_ms = std::max(up[0], up[1]);
        split->down_ms = std::max(end[0], end[1]) - split->up_ms;
        cudaEventDestroy(e_start);
        for (int j = 0; j < 2; ++j) {
            cudaEventDestroy(e_up[j]);
            cudaEventDestroy(e_end[j]);
        }
    }
    for (int j = 0; j < 2; ++j) {
        cudaFree(dev[j]);
        cudaStreamDestroy(s[j]);
    }
    return ms;
}

/// Medians of the phase durations of profiled calls (ms), and the floor's halves.
struct Phases {
    bool present = false;
    double up_ms = 0, down_ms = 0;
    double floor_up_ms = 0, floor_down_ms = 0, floor_ms = 0;  // one Both call, device-timed halves
    double setup = 0, alloc = 0, enqueue = 0, a = 0, a_wait = 0, a_host = 0, overflow = 0, seams = 0, resolve = 0,
           maps = 0, c = 0, release = 0, total = 0;
    cclabel::detail::TilesProfile last;
};

struct Row {
    std::string name;
    double floor_ms = 0, ms = 0;
    std::uint64_t pixels = 0, count = 0;
    std::string check;
    Phases phases;
};

Phases measure_phases(const cclabel::ImageView& v, std::uint32_t* out, const Tiling& tile,
                      const std::vector<int>& devices, int reps) {
    Phases p;
    p.present = true;
    std::vector<double> up, down;
    for (int i = 0; i < reps; ++i) {
        up.push_back(copy_floor(v, out, tile, Copies::Up));
        down.push_back(copy_floor(v, out, tile, Copies::Down));
    }
    p.up_ms = median(up);
    p.down_ms = median(down);
    {
        std::vector<double> fu, fd, ft;
        for (int i = 0; i < reps; ++i) {
            FloorSplit sp;
            ft.push_back(copy_floor(v, out, tile, Copies::Both, &sp));
            fu.push_back(sp.up_ms);
            fd.push_back(sp.down_ms);
        }
        p.floor_up_ms = median(fu);
        p.floor_down_ms = median(fd);
        p.floor_ms = median(ft);
    }
    using P = cclabel::detail::TilesProfile;
    std::vector<P> runs;
    for (int i = 0; i < reps; ++i) {
        P prof;
        (void)cclabel::cuda::detail::label_tiled_streamed_profiled(v, out, tile.options, tile.tw, tile.th, devices,
                                                                   &prof, tile.tuning);
        runs.push_back(prof);
    }
    auto med = [&](auto&& f) {
        std::vector<double> x;
        for (const P& r : runs) x.push_back(f(r));
        return median(x);
    };
    p.setup = med([](const P& r) { return r.setup_ms; });
    p.alloc = med([](const P& r) { return r.alloc_ms - r.setup_ms; });
    p.enqueue = med([](const P& r) { return r.enqueue_ms - r.alloc_ms; });
    p.a = med([](const P& r) { return r.phase_a_ms - r.alloc_ms; });
    p.a_wait = med([](const P& r) { return r.a_wait_ms; });
    p.a_host = med([](const P& r) { return r.a_host_ms; });
    p.overflow = med([](const P& r) { return r.first_ms - r.phase_a_ms; });
    p.seams = med([](const P& r) { return r.seams_ms - r.first_ms; });
    p.resolve = med([](const P& r) { return r.resolve_ms - r.seams_ms; });
    p.maps = med([](const P& r) { return r.maps_ms - r.resolve_ms; });
    p.c = med([](const P& r) { return r.phase_c_ms - r.maps_ms; });
    p.release = med([](const P& r) { return r.release_ms - r.phase_c_ms; });
    p.total = med([](const P& r) { return r.release_ms; });
    p.last = runs.back();
    return p;
}

void print_phases(const Phases& p) {
    if (!p.present) return;
    std::printf("#   phases, ms (median of profiled calls): setup %.2f | alloc %.2f | A %.2f (enqueue %.2f, waiting %.2f, "
                "host %.2f; uploads alone %.2f) | B overflow %.2f | seams %.2f | resolve %.2f | maps %.2f | "
                "C %.2f (downloads alone %.2f) | release %.2f | total %.2f\n",
                p.setup, p.alloc, p.a, p.enqueue, p.a_wait, p.a_host, p.up_ms, p.overflow, p.seams, p.resolve, p.maps,
                p.c, p.down_ms, p.release, p.total);
    const double beyond = p.total - p.up_ms - p.down_ms;
    std::printf("#   beyond uploads + downloads alone: %.2f ms = alloc %.2f + A-uploads %.2f + overflow+seams+resolve "
                "%.2f + maps %.2f + C-downloads %.2f + setup+release %.2f\n",
                beyond, p.alloc, p.a - p.up_ms, p.overflow + p.seams + p.resolve, p.maps, p.c - p.down_ms,
                p.setup + p.release);
    std::printf("#   floor's own halves (device events, one call): uploads %.2f + downloads %.2f = %.2f (host-timed %.2f); "
                "alone (host-timed calls of their own): uploads %.2f + downloads %.2f = %.2f\n",
                p.floor_up_ms, p.floor_down_ms, p.floor_up_ms + p.floor_down_ms, p.floor_ms, p.up_ms, p.down_ms,
                p.up_ms + p.down_ms);
    std::printf("#   tiles %llu, local labels %llu, seam pairs %llu, overflow tiles %llu, tables copied back by the host %llu, "
                "maps %s, regions %llu\n",
                (unsigned long long)p.last.tiles, (unsigned long long)p.last.local_labels,
                (unsigned long long)p.last.seam_pairs, (unsigned long long)p.last.overflow_tiles,
                (unsigned long long)p.last.tables_copied,
                p.last.maps_at_once ? "at once" : "slot by slot", (unsigned long long)p.last.regions);
    if (p.last.early_tiles || p.last.early_broken)
        std::printf("#   early downloads: %llu strips during phase A, %llu of them downloaded again (map changed)%s\n",
                    (unsigned long long)p.last.early_tiles, (unsigned long long)p.last.early_redone,
                    p.last.early_broken ? "; the early numbering stopped (a late join or too many ids)" : "");
    std::fflush(stdout);
}

Row measure(const std::string& name, const cclabel::ImageView& v, std::uint32_t* out, const Tiling& tile,
            const std::vector<int>& devices, int reps) {
    Row r;
    r.name = name;
    r.pixels = v.pixels();
    std::vector<double> fl, st;
    (void)copy_floor(v, out, tile);  // warm-up (first touch of the mappings)
    for (int i = 0; i < reps; ++i) fl.push_back(copy_floor(v, out, tile));
    for (int i = 0; i <= reps; ++i) {
        const double t0 = now_ms();
        r.count = cclabel::cuda::detail::label_tiled_streamed_profiled(v, out, tile.options, tile.tw, tile.th, devices,
                                                                       nullptr, tile.tuning)
                      .count;
        if (i > 0) st.push_back(now_ms() - t0);  // the first run is a warm-up
    }
    r.floor_ms = median(fl);
    r.ms = median(st);
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    int reps = 3;
    std::int64_t tile = 8192, strips = 1024, lag = cclabel::detail::StreamTuning{}.lag_rows;
    std::vector<std::int64_t> more_lags;  // --lag A,B,...: the first is the lag of every strip row, the others add rows
    std::vector<int> devices{0};
    bool check = true, big = true, phases = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--tile" && i + 1 < argc) tile = std::max<std::int64_t>(1, std::atoll(argv[++i]));
        else if (a == "--strips" && i + 1 < argc) strips = std::max<std::int64_t>(0, std::atoll(argv[++i]));
        else if (a == "--lag" && i + 1 < argc) {
            bool first = true;
            for (const char* p = argv[++i]; *p;) {
                (first ? lag : more_lags.emplace_back()) = std::max<std::int64_t>(0, std::atoll(p));
                first = false;
                while (*p && *p != ',') ++p;
                if (*p == ',') ++p;
            }
        }
        else if (a == "--devices" && i + 1 < argc) {
            devices.clear();
            for (const char* p = argv[++i]; *p;) {
                devices.push_back(std::atoi(p));
                while (*p && *p != ',') ++p;
                if (*p == ',') ++p;
            }
        } else if (a == "--no-check") check = false;
        else if (a == "--no-big") big = false;
        else if (a == "--no-phases") phases = false;
        else {
            std::fprintf(stderr,
                         "usage: bench_tiles [--reps N] [--tile S] [--strips H] [--lag R[,R2...]] [--devices 0,0] [--no-check] [--no-big] "
                         "[--no-phases]\n");
            return 1;
        }
    }
    if (!cclabel::cuda_available()) {
        std::fprintf(stderr, "bench_tiles: no CUDA device\n");
        return 1;
    }
    cudaDeviceProp prop{};
    ck(cudaGetDeviceProperties(&prop, devices.empty() ? 0 : devices[0]), "cudaGetDeviceProperties");
    std::printf("# GPU: %s; tiles %lldx%lld, strips of %lld rows (lag %lld rows); devices", prop.name, (long long)tile,
                (long long)tile, (long long)strips, (long long)lag);
    for (int d : devices) std::printf(" %d", d);
    std::printf("; reps %d (median); floor = tiles' H2D then labels' D2H (2-D copies, 2 streams)\n", reps);
    std::printf("%-32s %9s %9s %10s %6s %8s %10s %s\n", "image", "Mpx", "floor_ms", "stream_ms", "ratio", "Gpx/s",
                "N", "check");
    auto print = [](const Row& r) {
        std::printf("%-32s %9.1f %9.1f %10.1f %6.2f %8.2f %10llu %s\n", r.name.c_str(), double(r.pixels) / 1e6,
                    r.floor_ms, r.ms, r.ms / r.floor_ms, double(r.pixels) / (r.ms * 1e-3) / 1e9,
                    (unsigned long long)r.count, r.check.c_str());
        print_phases(r.phases);
        std::fflush(stdout);
    };

    // 1. The sheet.
    const double g0 = now_ms();
    cclabel::bench::Drawing d = cclabel::bench::make_drawing(800);
    const double gen_ms = now_ms() - g0;
    const std::size_t px = std::size_t(d.width * d.height);
    auto* img = pinned<std::uint8_t>(d.rgb.size(), "cudaHostAlloc(sheet)");
    std::memcpy(img, d.rgb.data(), d.rgb.size());
    d.rgb = {};
    auto* out = pinned<std::uint32_t>(px, "cudaHostAlloc(labels)");
    const cclabel::ImageView sheet = cclabel::make_view(img, d.width, d.height, cclabel::PixelFormat::RGB8);
    // Square tiles; then full-width strips with early downloads, without, and with the paper as
    // background (early downloads on).
    struct SheetRow {
        std::string name;
        Tiling tiling;
    };
    std::vector<SheetRow> rows;
    rows.push_back({"tiles " + std::to_string(tile), Tiling{tile, tile, {}, {}}});
    if (strips > 0) {
        Tiling t{d.width, strips, {}, {}};
        t.tuning.lag_rows = lag;
        rows.push_back({"strips " + std::to_string(strips) + " early", t});
        for (std::int64_t l : more_lags) {
            Tiling tl = t;
            tl.tuning.lag_rows = l;
            rows.push_back({"strips " + std::to_string(strips) + " early, lag " + std::to_string(l), tl});
        }
        Tiling off = t;
        off.tuning.early_downloads = false;
        rows.push_back({"strips " + std::to_string(strips) + " no early", off});
        Tiling bg = t;
        bg.options.background = std::vector<std::uint64_t>{255, 255, 255};
        rows.push_back({"strips " + std::to_string(strips) + " early, bg", bg});
    }
    std::vector<std::uint32_t> want_labelled, want_bg;
    std::uint32_t n_labelled = 0, n_bg = 0;
    for (const SheetRow& sr : rows) {
        Row r = measure("sheet " + sr.name, sheet, out, sr.tiling, devices, reps);
        // The profiled calls write the labels last (after the halves of the floor), so the check
        // below covers them too.
        if (phases) r.phases = measure_phases(sheet, out, sr.tiling, devices, reps);
        if (check) {
            const bool bg = sr.tiling.options.background.has_value();
            std::vector<std::uint32_t>& want = bg ? want_bg : want_labelled;
            std::uint32_t& n = bg ? n_bg : n_labelled;
            if (want.empty()) {
                want.resize(px);
                cclabel::Options o = sr.tiling.options;
                o.backend = cclabel::Backend::Cpu;
                n = cclabel::label(sheet, want.data(), o).count;
            }
            r.check = n == r.count && std::equal(want.begin(), want.end(), out) ? "ok" : "MISMATCH";
        } else {
            r.check = "-";
        }
        print(r);
    }
    cudaFreeHost(out);

    // 2. 2.5 gigapixels, Gray8 and Binary8, from the sheet's red channel repeated.
    if (big) {
        const std::int64_t W = 50000, H = 50000;
        const std::size_t big_px = std::size_t(W * H);
        auto* g = pinned<std::uint8_t>(big_px, "cudaHostAlloc(2.5 Gpx)");
        auto* lab = pinned<std::uint32_t>(big_px, "cudaHostAlloc(2.5 Gpx labels)");
        for (cclabel::PixelFormat f : {cclabel::PixelFormat::Gray8, cclabel::PixelFormat::Binary8}) {
            parallel_rows(H, [&](std::int64_t y) {
                const std::uint8_t* srow = img + std::size_t(y % d.height) * std::size_t(d.width) * 3;
                std::uint8_t* drow = g + std::size_t(y) * std::size_t(W);
                for (std::int64_t x = 0; x < W; ++x) {
                    const std::uint8_t v = srow[(x % d.width) * 3];
                    drow[x] = f == cclabel::PixelFormat::Binary8 ? std::uint8_t(v < 128) : v;
                }
            });
            const cclabel::ImageView v = cclabel::make_view(g, W, H, f);
            std::vector<std::pair<std::string, Tiling>> cuts{{"tiles " + std::to_string(tile), Tiling{tile, tile, {}, {}}}};
            if (strips > 0) {
                Tiling t{W, strips, {}, {}};
                t.tuning.lag_rows = lag;
                cuts.push_back({"strips " + std::to_string(strips) + " early", t});
            }
            for (const auto& [cut, tl] : cuts) {
                Row b = measure("50000^2 " + std::string(cclabel::format_name(f)) + " " + cut, v, lab, tl, devices, reps);
                if (phases) b.phases = measure_phases(v, lab, tl, devices, reps);
                b.check = "-";
                print(b);
            }
        }
        cudaFreeHost(lab);
        cudaFreeHost(g);
    }
    cudaFreeHost(img);
    std::printf("#   (sheet generated in %.1f s)\n", gen_ms / 1e3);
    return 0;
}
