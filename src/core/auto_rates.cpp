// Backend::Auto: this machine's rates, measured once in the process when first needed, and the
// decision every entry point asks for (resolve_auto).
//
// Nothing is measured where there is no choice: no CUDA device, an explicit backend, or a rate
// given in CCLABEL_RATES. Otherwise the first Auto call that could go either way measures the CPU at
// its format and thread count (a small and three large probe pictures, best of three runs each:
// expected 10-15 ms at 16 threads from the H100 host's per-pixel rates (not yet timed there),
// where building the probes a pixel at a time, a
// separate warm run each and a noise probe as large as the others took 110-130 ms, paid by every
// CLI run) and, once in the process, the GPU's host path (two probe pictures
// through it, and a pageable copy each way); later calls read the cache. A call whose two estimates
// come within 4x of each other and that hands its picture over (label()) also counts the run
// starts of some of its rows and its background's runs, so that what the picture holds, not only
// its size, decides.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/volume.hpp"
#include "core/adjacency_backends.hpp"
#include "core/auto_feedback.hpp"
#include "core/backends.hpp"
#include "core/cost_model.hpp"
#include "core/env_list.hpp"
#include "core/parallel_for.hpp"
#include "core/probe.hpp"
#include "core/request.hpp"
#include "core/stats_backends.hpp"
#include "core/volume_request.hpp"
#include "cpu/label3d_cpu.hpp"
#include "cpu/label_cpu.hpp"
#include "cpu/spin_wait.hpp"

namespace cclabel::detail {

// CCLABEL_TRACE_AUTO (anything but 0): each decision's estimates and each measurement's rates and
// duration on stderr, for a benchmark row where auto took the slower backend.
static bool trace_auto() noexcept {
    static const bool on = [] {
        const char* v = std::getenv("CCLABEL_TRACE_AUTO");
        return v != nullptr && *v != '\0' && !(v[0] == '0' && v[1] == '\0');
    }();
    return on;
}

namespace {

// One picture and one label buffer for all of a measurement's probes (and its attempts): each
// probe is built into the same memory, its pages faulted once, on every thread the probe will use.
struct ProbeBuffers {
    PixelFormat format;
    int threads;
    std::unique_ptr<std::uint8_t[]> px;
    std::unique_ptr<std::uint32_t[]> labels;

    ProbeBuffers(PixelFormat f, int t, std::int64_t pixels)
        : format(f), threads(t), px(std::make_unique_for_overwrite<std::uint8_t[]>(std::size_t(pixels) * std::size_t(bytes_per_pixel(f)))),
          labels(std::make_unique_for_overwrite<std::uint32_t[]>(std::size_t(pixels))) {
        // The labels' pages faulted before any timing, a word a page: the first run of the first
        // large probe would pay them, leaving two runs of its three to get past a disturbance.
        constexpr std::size_t page = 4096 / sizeof(std::uint32_t), chunk = std::size_t(1) << 18;
        const std::size_t n = std::size_t(pixels);
        parallel_for((n + chunk - 1) / chunk, threads, [&](std::uint64_t c) {
            for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); i += page) labels[i] = 0;
        }, cpu::Work::streaming);
    }

    /// Builds the probe of @p block × @p block squares, @p width × @p height, in bands of rows.
    ImageView build(std::int64_t width, std::int64_t height, int block) {
        const std::int64_t rows = std::max<std::int64_t>(block, 64);  // whole blocks a band
        parallel_for(std::uint64_t((height + rows - 1) / rows), threads, [&](std::uint64_t i) {
            fill_probe_rows(px.get(), format, width, std::int64_t(i) * rows, std::min(height, std::int64_t(i + 1) * rows), block);
        }, cpu::Work::streaming);
        return make_view(px.get(), width, height, format);
    }

    /// A probe volume, side × side × depth: the picture's squares as cubes, each block of @p
    /// block slices with values of its own (a seed a block), slices side by side.
    VolumeView build_volume(std::int64_t side, std::int64_t depth, int block) {
        const std::size_t slice = std::size_t(side * side) * std::size_t(bytes_per_pixel(format));
        parallel_for(std::uint64_t(depth), threads, [&](std::uint64_t z) {
            const std::uint64_t seed = (z / std::uint64_t(block) + 1) * 0xD6E8FEB86659FD93ull;
            fill_probe_rows(px.get() + z * slice, format, side, 0, side, block, seed);
        }, cpu::Work::streaming);
        return make_volume_view(px.get(), side, side, depth, format);
    }
};

// The rate's line from its knots: @p per_pixel stands for a picture not looked at, the fixed
// cost is what the small probe (@p ts seconds for @p S pixels) leaves beyond it. The knots must
// rise in density (they do for the probes); a timing disturbed enough to make a denser probe
// cheaper only flattens the line there.
void finish_rate(CpuRate& rate, double per_pixel, double ts, double S) {
    rate.knots = 3;
    rate.per_pixel_s = per_pixel;
    rate.probe_density = rate.knot_density[1];
    rate.fixed_s = std::max(0.0, ts - S * rate.per_pixel_s);
    for (int k = 1; k < 3; ++k) {
        if (rate.knot_density[k] < rate.knot_density[k - 1]) rate.knot_density[k] = rate.knot_density[k - 1];
        rate.knot_per_pixel[k] = std::max(rate.knot_per_pixel[k], rate.knot_per_pixel[k - 1]);
    }
}

// Side of the large probe volumes: every thread gets about 2^17 voxels (a voxel is several times
// a pixel's work under 26 neighbours).
std::int64_t volume_side(int threads) {
    std::int64_t side = 64;
    while (side < 512 && side * side * side < std::int64_t(threads) << 17) side *= 2;
    return side;
}

// Op::Volume: as for pictures, a small probe for the fixed cost and three large ones for the knots,
// cubes of 16, 4 and 1 voxels of four values at random (the noise an eighth of the slices), labelled
// at the call's connectivity. The density is the pictures' (run starts along x), which the call's
// volume is sampled for too.
CpuRate measure_volume_rate_once(PixelFormat f, int threads, int connectivity, ProbeBuffers& buf) {
    Options o;
    o.backend = Backend::Cpu;
    o.threads = threads;
    o.connectivity = connectivity;
    std::uint32_t* const labels = buf.labels.get();
    double density = 0;
    auto seconds = [&](std::int64_t side, std::int64_t depth, int block) {
        const VolumeView v = buf.build_volume(side, depth, block);
        density = break_density(make_view(v.data, side, side * depth, f), std::uint64_t(1) << 16);
        const VolumeRequest r = make_volume_request(v, labels, o);
        return best_seconds(3, [&] { cpu::label_volume(r, labels); });
    };
    const std::int64_t small = 16, large = volume_side(threads);
    const double ts = seconds(small, small, 4);
    const double S = double(small * small * small);
    CpuRate rate;
    const int blocks[3] = {16, 4, 1};
    for (int k = 0; k < 3; ++k) {
        const std::int64_t depth = blocks[k] == 1 ? large / 8 : large;
        const double V = double(large * large * depth);
        const double t = seconds(large, depth, blocks[k]);
        rate.knot_density[k] = density;
        rate.knot_per_pixel[k] = std::max(0.0, t - ts) / (V - S);
    }
    finish_rate(rate, rate.knot_per_pixel[1], ts, S);
    return rate;
}

// Side of the large probes: every thread gets about 2^18 pixels of them.
std::int64_t large_side(int threads) {
    std::int64_t large = 1024;
    while (large < 4096 && large * large < std::int64_t(threads) << 18) large *= 2;
    return large;
}

// Fixed cost from a small picture; the per-pixel cost from three pictures large enough to give
// every thread a real share: 64 x 64 blocks (long runs, as a drawing's paper), 8 x 8 blocks and
// noise, each with its break density, the knots of CpuRate's line. The blocks' probes take about
// 2^18 pixels a thread; noise, about ten times as heavy a pixel, an eighth of that in as many rows
// (the same bands and seams: 2^15 pixels are still a millisecond of a thread's work at 16 threads).
// Each probe is the best of three runs: the first, which wakes the pool, is then rarely the best,
// and a warm run before them cost a quarter of the runs. Filters and statistics are timed on the
// probes' labels (statistics run on one thread, and took 640 ms on an 800 dpi sheet that the
// labeller did in 110 ms: the labeller's rate sent regions() to the CPU at a fifth of the GPU's
// speed); segmentation takes the labeller's rate (a single pass of about its cost). The adjacency
// graph is timed on the probes' labels too (one thread, as it runs); tolerance labelling at
// tolerance 1 (its cost does not depend on the tolerance: every pixel is a union-find node).
CpuRate measure_cpu_rate_once(Workload::Op op, PixelFormat f, int threads, ProbeBuffers& buf) {
    Options o;
    o.backend = Backend::Cpu;
    o.threads = threads;
    if (op == Workload::Op::Tolerance && f != PixelFormat::Binary8) o.tolerance = 1;  // the pixel union-find, not the runs
    std::uint32_t* const labels = buf.labels.get();
    double density = 0;
    auto seconds = [&](std::int64_t width, std::int64_t height, int block) {
        const ImageView v = buf.build(width, height, block);
        density = break_density(v, std::uint64_t(1) << 16);
        const Request r = make_request(v, labels, o);
        if (op == Workload::Op::Filter || op == Workload::Op::Stats || op == Workload::Op::Adjacency) {
            cpu::label(r, labels);
            if (op == Workload::Op::Filter)  // its output is a label image too: run it again on its own
                return best_seconds(3, [&] { remove_small_cpu(labels, width, height, 2); });
            if (op == Workload::Op::Stats) return best_seconds(3, [&] { (void)regions_cpu(v, labels, o); });
            return best_seconds(3, [&] { (void)adjacency_cpu(labels, width, height, width, 8, false, threads); });
        }
        return best_seconds(3, [&] { cpu::label(r, labels); });
    };
    const std::int64_t small = 64, large = large_side(threads);
    const double ts = seconds(small, small, 8);
    const double S = double(small * small);
    CpuRate rate;
    const int blocks[3] = {64, 8, 1};
    double t8 = 0, P8 = 0;
    for (int k = 0; k < 3; ++k) {
        const std::int64_t width = blocks[k] == 1 ? large / 8 : large;
        const double P = double(width * large);
        const double t = seconds(width, large, blocks[k]);
        rate.knot_density[k] = density;
        rate.knot_per_pixel[k] = std::max(0.0, t - ts) / (P - S);
        if (blocks[k] == 8) t8 = t, P8 = P;
    }
    // The block probe's rate stands for a picture not looked at, as before the knots.
    finish_rate(rate, rate.knot_per_pixel[1] > 0 ? rate.knot_per_pixel[1] : t8 / P8, ts, S);
    return rate;
}

}  // namespace

// The rate is cached for the life of the process, so it must be the machine's, not a moment's: a
// probe timed while the pool counted the machine as oversubscribed ran on one thread, and a rate
// 16 times too slow would send every later call to the GPU. Such a measurement is taken again (the
// mark lasts 100 ms), at most twice; a machine that stays oversubscribed keeps the slow rate, which
// is then the truth.
CpuRate measure_cpu_rate(Workload::Op op, PixelFormat f, int threads, int connectivity) {
    CpuRate r;
    const std::int64_t t0 = cpu::steady_ns();
    const std::int64_t large = large_side(threads), side = volume_side(threads);
    ProbeBuffers buf(f, threads, op == Workload::Op::Volume ? side * side * side : large * large);
    const double setup_ms = double(cpu::steady_ns() - t0) * 1e-6;
    for (int attempt = 0; attempt < 3; ++attempt) {
        while (cpu::machine_oversubscribed() && attempt < 2)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const std::int64_t t1 = cpu::steady_ns();
        r = op == Workload::Op::Volume ? measure_volume_rate_once(f, threads, connectivity, buf)
                                       : measure_cpu_rate_once(op, f, threads, buf);
        const bool disturbed = cpu::oversubscribed_until_ns.load(std::memory_order_relaxed) > t1;
        if (trace_auto())
            std::fprintf(stderr,
                         "cclabel auto: cpu rate op %d format %d at %d threads (connectivity %d) in %.1f ms (and %.1f ms for its "
                         "buffers)%s: fixed %.1f us, ns/px %.3f %.3f %.3f at density %.3f %.3f %.3f\n",
                         int(op), int(f), threads, connectivity, double(cpu::steady_ns() - t1) * 1e-6, setup_ms,
                         disturbed ? " (disturbed)" : "", r.fixed_s * 1e6, r.knot_per_pixel[0] * 1e9,
                         r.knot_per_pixel[1] * 1e9, r.knot_per_pixel[2] * 1e9, r.knot_density[0], r.knot_density[1],
                         r.knot_density[2]);
        if (!disturbed) break;
    }
    // A mark the probes left (their own threads descheduled while new label buffers faulted in) is
    // theirs, not the machine's: kept, it sent the call that asked for the rate to one thread. The
    // CLI's auto row on the H100 spent 2.4-2.7 s in a labelling step that took 0.15 s with
    // --backend cpu, about what one thread needs to label 806 Mpx and fault its labels in.
    cpu::oversubscribed_until_ns.store(0, std::memory_order_relaxed);
    cpu::last_descheduled_ns.store(0, std::memory_order_relaxed);
    return r;
}

namespace {

struct Cache {
    std::mutex m;
    bool gpu_measured = false;
    std::optional<GpuHostRate> gpu;
    std::map<std::tuple<int, int, int, int>, CpuRate> cpu;  // (op, format, threads, connectivity)
};

Cache& cache() {
    static Cache c;
    return c;
}

// Holds c.m. Copies with every core, so the pool may have marked the machine oversubscribed while
// it ran; the mark (this measurement's, not other work's) is cleared so that the CPU's probe, and
// the next call, get their threads.
void measure_gpu_locked(Cache& c) {
    const std::int64_t t0 = cpu::steady_ns();
    c.gpu = measure_cuda_host_rate();
    c.gpu_measured = true;
    cpu::oversubscribed_until_ns.store(0, std::memory_order_relaxed);
    cpu::last_descheduled_ns.store(0, std::memory_order_relaxed);
    if (trace_auto()) {
        if (c.gpu)
            std::fprintf(stderr, "cclabel auto: gpu host rate in %.1f ms: fixed %.1f us, ns/px %.3f, copies %.1f GB/s\n",
                         double(cpu::steady_ns() - t0) * 1e-6, c.gpu->fixed_s * 1e6, c.gpu->per_pixel_s * 1e9,
                         c.gpu->per_byte_s > 0 ? 1e-9 / c.gpu->per_byte_s : 0.0);
        else
            std::fprintf(stderr, "cclabel auto: no gpu host rate (%.1f ms)\n", double(cpu::steady_ns() - t0) * 1e-6);
    }
}

}  // namespace

void measure_auto_rates_ahead() noexcept {
    try {
        const char* env = std::getenv("CCLABEL_RATES");
        const GivenRates g = env != nullptr ? parse_rates(env) : GivenRates{};
        if (g.force || (g.gpu_gpxs && g.copy_gbs) || !cuda_device_present()) return;
        Cache& c = cache();
        std::lock_guard<std::mutex> lock(c.m);
        if (!c.gpu_measured) measure_gpu_locked(c);
    } catch (...) {  // a bad CCLABEL_RATES is reported by the call that reads it
    }
}

AutoFeedback& AutoFeedback::process() {
    static AutoFeedback f;
    return f;
}

Backend resolve_auto(Backend b, const Workload& w) { return resolve_auto(b, w, nullptr); }

Backend resolve_auto(Backend b, const Workload& w, AutoTicket* ticket) {
    if (b != Backend::Auto) return b;
    const std::int64_t t_enter = trace_auto() ? cpu::steady_ns() : 0;
    // Read at every call (a few hundred nanoseconds), so that a process may change its mind; a bad
    // value fails every Auto call alike.
    const char* env = std::getenv("CCLABEL_RATES");
    const GivenRates g = env != nullptr ? parse_rates(env) : GivenRates{};
    if (g.force) return *g.force;
    if (w.pixels == 0 || !cuda_device_present()) return Backend::Cpu;
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.m);  // one measurement at a time; later calls read the cache
    auto cpu_rate_at = [&](int threads) {
        const auto key = std::make_tuple(int(w.op == Workload::Op::Segment ? Workload::Op::Label : w.op), int(w.format), threads,
                                         w.connectivity);
        auto it = c.cpu.find(key);
        if (it == c.cpu.end()) it = c.cpu.emplace(key, measure_cpu_rate(w.op, w.format, threads, w.connectivity)).first;
        return it->second;
    };
    // The CPU first: the GPU's measurement keeps every core busy copying, and a CPU probe timed just
    // after it could find the pool still counting the machine as oversubscribed (one thread a call).
    CpuRate cpu;
    if (!g.cpu_gpxs) cpu = cpu_rate_at(w.threads);
    std::optional<GpuHostRate> gpu = GpuHostRate{};  // both GPU rates given: nothing to measure
    if (!g.gpu_gpxs || !g.copy_gbs) {
        if (!c.gpu_measured) measure_gpu_locked(c);
        gpu = c.gpu;
    }
    if (!gpu) return Backend::Cpu;
    cpu = with_given(cpu, g);
    const GpuHostRate gr = with_given(*gpu, g);
    // Close calls (the estimates within 4x of each other) look at the picture itself: its break
    // density, over evenly spaced rows of a 256th of its pixels (at least 2^12, at most 2^14),
    // replaces the probe's in the CPU's estimate. A fixed 2^16 cost a quarter of a 512² call,
    // about 0.1 ms, which auto then lost to either backend; a 64th up to 2^16 made the decision
    // 110-160 us from 3 to 50 Mpx, 14% of the 50 dpi sheet's 0.9 ms call (H100 host, 2026-12-07). A picture with
    // a background is looked at however far ahead the GPU seems: the background's runs it counts
    // can only make the CPU cheaper. Nor is it looked at where no density could turn the decision.
    Workload wd = w;
    const double cs = cpu_seconds(w, cpu), gs = gpu_seconds(w, gr);
    PictureSample sample;
    if (w.picture && (gs < 4 * cs || w.picture->has_background) && cs < 4 * gs && density_can_decide(w, cpu, gs)) {
        const Request& p = *w.picture;
        const std::uint64_t budget = std::clamp<std::uint64_t>(w.pixels / 256, 1 << 12, 1 << 14);
        sample = sample_picture(ImageView{p.data, p.width, p.height, p.stride, p.format}, budget,
                                p.has_background ? std::optional<std::uint32_t>(p.background_key) : std::nullopt);
        wd.density = sample.density;
        wd.background_share = sample.runs > 0 ? sample.background_runs / sample.runs : 0;
    }
    Backend choice = choose_backend(wd, cpu, gr);
    // Corrections from earlier calls of the kind (core/auto_feedback.hpp), for a caller that
    // reports back, unless rates were given or CCLABEL_AUTO_OFF names feedback.
    static const bool feedback_off = env_list_has("CCLABEL_AUTO_OFF", "feedback");
    const bool given = g.cpu_gpxs || g.cpu_fixed_us || g.gpu_gpxs || g.gpu_fixed_us || g.copy_gbs;
    AutoFeedback::Decision fd;
    if (ticket != nullptr && !feedback_off && !given) {
        const double cs_w = cpu_seconds(wd, cpu), gs_w = gpu_seconds(wd, gr);
        FeedbackKey key;
        key.op = int(w.op);
        key.format = int(w.format);
        key.threads = w.threads;
        key.size_class = half_log2_class(double(w.pixels), 0);
        key.density_class = half_log2_class(wd.density, FeedbackKey::kNoDensity);
        key.background = w.picture != nullptr && w.picture->has_background;
        key.images = w.images <= 1 ? 1 : half_log2_class(double(w.images), 1);
        fd = AutoFeedback::process().decide(key, cs_w, gs_w);
        choice = fd.backend;
        ticket->active = true;
        ticket->key = key;
        ticket->backend = choice;
        ticket->estimate_s = choice == Backend::Cuda ? gs_w : cs_w;
    }
    if (trace_auto())
        std::fprintf(stderr,
                     "cclabel auto: op %d, %llu px x %llu, format %d, %d threads, density %.4f, background %.3f of "
                     "runs, %.3f of pixels: cpu %.3f ms (x%.2f), gpu %.3f ms (x%.2f) -> %s%s (decided in %.1f us)\n",
                     int(w.op), (unsigned long long)w.pixels, (unsigned long long)w.images, int(w.format), w.threads,
                     wd.density, wd.background_share, sample.background_pixels,
                     cpu_seconds(wd, cpu) * 1e3, fd.cpu_factor, gpu_seconds(wd, gr) * 1e3, fd.gpu_factor,
                     choice == Backend::Cuda ? "cuda" : "cpu", fd.explore ? " (exploring)" : "",
                     double(cpu::steady_ns() - t_enter) * 1e-3);
    return choice;
}

}  // namespace cclabel::detail
