// Backend::Auto: this machine's rates, measured once in the process when first needed, and the
// decision every entry point asks for (resolve_auto).
//
// Nothing is measured where there is no choice: no CUDA device, an explicit backend, or a rate
// given in CCLABEL_RATES. Otherwise the first Auto call that could go either way measures the CPU at
// its format and thread count (tens of milliseconds: a small and a large probe picture, about 2^18
// pixels a thread, three runs each)
// and, once in the process, the GPU's host path (two probe pictures through it, and a pageable copy
// each way); later calls read the cache. A call whose two estimates come within 4x of each other
// and that hands its picture over (label()) also labels a sample of the picture's rows on one
// thread, so that what the picture holds, not only its size, decides.
#include <algorithm>
#include <vector>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>

#include "cclabel/error.hpp"
#include "core/backends.hpp"
#include "core/cost_model.hpp"
#include "core/probe.hpp"
#include "core/request.hpp"
#include "core/stats_backends.hpp"
#include "cpu/label_cpu.hpp"

namespace cclabel::detail {

// Fixed cost from a small picture, the rate from one large enough to give every thread a real
// share. Filters are timed on the probe's labels; the other operations take the labeller's rate
// (statistics and segmentation are single passes of about its cost).
CpuRate measure_cpu_rate(Workload::Op op, PixelFormat f, int threads) {
    auto seconds = [&](std::int64_t side) {
        const std::vector<std::uint8_t> px = probe_picture(f, side, side);
        std::vector<std::uint32_t> labels(std::size_t(side) * std::size_t(side));
        Options o;
        o.backend = Backend::Cpu;
        o.threads = threads;
        const Request r = make_request(make_view(px.data(), side, side, f), labels.data(), o);
        cpu::label(r, labels.data());  // warm: pages of the labels, the pool's threads
        if (op == Workload::Op::Filter)  // its output is a label image too: run it again on its own
            return best_seconds(3, [&] { remove_small_cpu(labels.data(), side, side, 2); });
        return best_seconds(3, [&] { cpu::label(r, labels.data()); });
    };
    const std::int64_t small = 64;
    std::int64_t large = 1024;
    while (large < 4096 && large * large < std::int64_t(threads) << 18) large *= 2;
    const double ts = seconds(small), tl = seconds(large);
    CpuRate rate;
    rate.per_pixel_s = std::max(0.0, (tl - ts) / double(large * large - small * small));
    if (rate.per_pixel_s == 0) rate.per_pixel_s = tl / double(large * large);  // noise: no slope seen
    rate.fixed_s = std::max(0.0, ts - double(small * small) * rate.per_pixel_s);
    return rate;
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

}  // namespace

Backend resolve_auto(Backend b, const Workload& w) {
    if (b != Backend::Auto) return b;
    // Read at every call (a few hundred nanoseconds), so that a process may change its mind; a bad
    // value fails every Auto call alike.
    const char* env = std::getenv("CCLABEL_RATES");
    const GivenRates g = env != nullptr ? parse_rates(env) : GivenRates{};
    if (w.cpu_only) return Backend::Cpu;
    if (g.force) return *g.force;
    if (w.pixels == 0 || !cuda_device_present()) return Backend::Cpu;
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.m);  // one measurement at a time; later calls read the cache
    auto cpu_rate_at = [&](int threads) {
        const auto key = std::make_tuple(int(w.op == Workload::Op::Filter), int(w.format), threads);
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
        if (!c.gpu_measured) {
            c.gpu = measure_cuda_host_rate();
            c.gpu_measured = true;
        }
        gpu = c.gpu;
    }
    if (!gpu) return Backend::Cpu;
    cpu = with_given(cpu, g);
    const GpuHostRate gr = with_given(*gpu, g);
    // Close calls (the estimates within 4x of each other) look at the picture itself: a sample of
    // its rows labelled on one thread says how much faster or slower than the probe its content
    // labels; the CPU's per-pixel cost is scaled by that. About 1/256 of the picture, at most 2^20
    // pixels: a few percent of the call's own time on the CPU.
    const double cs = cpu_seconds(w, cpu), gs = gpu_seconds(w, gr);
    if (w.picture && !g.cpu_gpxs && gs < 4 * cs && cs < 4 * gs) {
        const Request& p = *w.picture;
        const std::uint64_t want = std::clamp<std::uint64_t>(p.pixels() / 256, std::uint64_t(1) << 14, std::uint64_t(1) << 20);
        const std::vector<Band> bands = sample_bands(p.width, p.height, want);
        if (!bands.empty()) {
            const CpuRate one = cpu_rate_at(1);
            std::vector<std::uint32_t> scratch(std::size_t(bands[0].count) * std::size_t(p.width));
            std::uint64_t sample_px = 0;
            for (const Band& b : bands) sample_px += std::uint64_t(b.count) * std::uint64_t(p.width);
            const double t = best_seconds(2, [&] {
                for (const Band& b : bands) {
                    Request part = p;
                    part.data = p.row(b.first);
                    part.height = b.count;
                    part.threads = 1;
                    cpu::label(part, scratch.data());
                }
            });
            const double f = content_factor(t, sample_px, int(bands.size()), one);
            cpu.per_pixel_s *= f;
        }
    }
    return choose_backend(w, cpu, gr);
}

}  // namespace cclabel::detail
