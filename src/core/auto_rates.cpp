// Backend::Auto: this machine's rates, measured once in the process when first needed, and the
// decision every entry point asks for (resolve_auto).
//
// Nothing is measured where there is no choice: no CUDA device, an explicit backend, or a rate
// given in CCLABEL_RATES. Otherwise the first Auto call that could go either way measures the CPU at
// its format and thread count (tens of milliseconds: a small and three large probe pictures, about
// 2^18 pixels a thread, three runs each)
// and, once in the process, the GPU's host path (two probe pictures through it, and a pageable copy
// each way); later calls read the cache. A call whose two estimates come within 4x of each other
// and that hands its picture over (label()) also counts the run starts of some of its rows, so that
// what the picture holds, not only its size, decides.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "cclabel/error.hpp"
#include "core/adjacency_backends.hpp"
#include "core/backends.hpp"
#include "core/cost_model.hpp"
#include "core/probe.hpp"
#include "core/request.hpp"
#include "core/stats_backends.hpp"
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

// Fixed cost from a small picture; the per-pixel cost from three pictures large enough to give
// every thread a real share: 64 x 64 blocks (long runs, as a drawing's paper), 8 x 8 blocks and
// noise, each with its break density, the knots of CpuRate's line. Filters and statistics are timed
// on the probes' labels (statistics run on one thread, and took 640 ms on an 800 dpi sheet that the
// labeller did in 110 ms: the labeller's rate sent regions() to the CPU at a fifth of the GPU's
// speed); segmentation takes the labeller's rate (a single pass of about its cost). The adjacency
// graph is timed on the probes' labels too (one thread, as it runs); tolerance labelling at
// tolerance 1 (its cost does not depend on the tolerance: every pixel is a union-find node).
CpuRate measure_cpu_rate_once(Workload::Op op, PixelFormat f, int threads) {
    double density = 0;
    auto seconds = [&](std::int64_t side, int block) {
        const std::vector<std::uint8_t> px = probe_picture(f, side, side, block);
        const ImageView v = make_view(px.data(), side, side, f);
        density = break_density(v, std::uint64_t(1) << 16);
        std::vector<std::uint32_t> labels(std::size_t(side) * std::size_t(side));
        Options o;
        o.backend = Backend::Cpu;
        o.threads = threads;
        const Request r = make_request(v, labels.data(), o);
        if (op == Workload::Op::Tolerance && f != PixelFormat::Binary8) {  // the pixel union-find, not the runs
            o.tolerance = 1;
            const Request rt = make_request(v, labels.data(), o);
            cpu::label(rt, labels.data());
            return best_seconds(3, [&] { cpu::label(rt, labels.data()); });
        }
        cpu::label(r, labels.data());  // warm: pages of the labels, the pool's threads
        if (op == Workload::Op::Filter)  // its output is a label image too: run it again on its own
            return best_seconds(3, [&] { remove_small_cpu(labels.data(), side, side, 2); });
        if (op == Workload::Op::Stats) return best_seconds(3, [&] { (void)regions_cpu(v, labels.data(), o); });
        if (op == Workload::Op::Adjacency)
            return best_seconds(3, [&] { (void)adjacency_cpu(labels.data(), side, side, side, 8, false, threads); });
        return best_seconds(3, [&] { cpu::label(r, labels.data()); });
    };
    const std::int64_t small = 64;
    std::int64_t large = 1024;
    while (large < 4096 && large * large < std::int64_t(threads) << 18) large *= 2;
    const double ts = seconds(small, 8);
    const double P = double(large * large), S = double(small * small);
    CpuRate rate;
    const int blocks[3] = {64, 8, 1};
    double t8 = 0;
    for (int k = 0; k < 3; ++k) {
        const double t = seconds(large, blocks[k]);
        rate.knot_density[k] = density;
        rate.knot_per_pixel[k] = std::max(0.0, t - ts) / (P - S);
        if (blocks[k] == 8) t8 = t;
    }
    rate.knots = 3;
    // The block probe's rate stands for a picture not looked at, as before the knots.
    rate.per_pixel_s = rate.knot_per_pixel[1] > 0 ? rate.knot_per_pixel[1] : t8 / P;
    rate.probe_density = rate.knot_density[1];
    rate.fixed_s = std::max(0.0, ts - S * rate.per_pixel_s);
    // The knots must rise in density (they do for these probes); a timing disturbed enough to make
    // a denser probe cheaper only flattens the line there.
    for (int k = 1; k < 3; ++k) {
        if (rate.knot_density[k] < rate.knot_density[k - 1]) rate.knot_density[k] = rate.knot_density[k - 1];
        rate.knot_per_pixel[k] = std::max(rate.knot_per_pixel[k], rate.knot_per_pixel[k - 1]);
    }
    return rate;
}

// The rate is cached for the life of the process, so it must be the machine's, not a moment's: a
// probe timed while the pool counted the machine as oversubscribed ran on one thread, and a rate
// 16 times too slow would send every later call to the GPU. Such a measurement is taken again (the
// mark lasts 100 ms), at most twice; a machine that stays oversubscribed keeps the slow rate, which
// is then the truth.
CpuRate measure_cpu_rate(Workload::Op op, PixelFormat f, int threads) {
    CpuRate r;
    for (int attempt = 0; attempt < 3; ++attempt) {
        while (cpu::machine_oversubscribed() && attempt < 2)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const std::int64_t t0 = cpu::steady_ns();
        r = measure_cpu_rate_once(op, f, threads);
        const bool disturbed = cpu::oversubscribed_until_ns.load(std::memory_order_relaxed) > t0;
        if (trace_auto())
            std::fprintf(stderr,
                         "cclabel auto: cpu rate op %d format %d at %d threads in %.1f ms%s: fixed %.1f us, "
                         "ns/px %.3f %.3f %.3f at density %.3f %.3f %.3f\n",
                         int(op), int(f), threads, double(cpu::steady_ns() - t0) * 1e-6, disturbed ? " (disturbed)" : "",
                         r.fixed_s * 1e6, r.knot_per_pixel[0] * 1e9, r.knot_per_pixel[1] * 1e9, r.knot_per_pixel[2] * 1e9,
                         r.knot_density[0], r.knot_density[1], r.knot_density[2]);
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
    std::map<std::tuple<int, int, int>, CpuRate> cpu;  // (op, format, threads)
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

Backend resolve_auto(Backend b, const Workload& w) {
    if (b != Backend::Auto) return b;
    // Read at every call (a few hundred nanoseconds), so that a process may change its mind; a bad
    // value fails every Auto call alike.
    const char* env = std::getenv("CCLABEL_RATES");
    const GivenRates g = env != nullptr ? parse_rates(env) : GivenRates{};
    if (g.force) return *g.force;
    if (w.pixels == 0 || !cuda_device_present()) return Backend::Cpu;
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.m);  // one measurement at a time; later calls read the cache
    auto cpu_rate_at = [&](int threads) {
        const auto key = std::make_tuple(int(w.op == Workload::Op::Segment ? Workload::Op::Label : w.op), int(w.format), threads);
        auto it = c.cpu.find(key);
        if (it == c.cpu.end()) it = c.cpu.emplace(key, measure_cpu_rate(w.op, w.format, threads)).first;
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
    // density, over evenly spaced rows of a 64th of its pixels (at least 2^12, at most 2^16: up
    // to tens of microseconds), replaces the probe's in the CPU's estimate. A fixed 2^16 cost a
    // quarter of a 512² call, about 0.1 ms, which auto then lost to either backend.
    Workload wd = w;
    const double cs = cpu_seconds(w, cpu), gs = gpu_seconds(w, gr);
    if (w.picture && cpu.knots > 0 && gs < 4 * cs && cs < 4 * gs) {
        const Request& p = *w.picture;
        const std::uint64_t sample = std::clamp<std::uint64_t>(w.pixels / 64, 1 << 12, 1 << 16);
        wd.density = break_density(ImageView{p.data, p.width, p.height, p.stride, p.format}, sample);
    }
    const Backend choice = choose_backend(wd, cpu, gr);
    if (trace_auto())
        std::fprintf(stderr,
                     "cclabel auto: op %d, %llu px x %llu, format %d, %d threads, density %.4f: cpu %.3f ms, gpu %.3f ms -> %s\n",
                     int(w.op), (unsigned long long)w.pixels, (unsigned long long)w.images, int(w.format), w.threads,
                     wd.density, cpu_seconds(wd, cpu) * 1e3, gpu_seconds(wd, gr) * 1e3,
                     choice == Backend::Cuda ? "cuda" : "cpu");
    return choice;
}

}  // namespace cclabel::detail
