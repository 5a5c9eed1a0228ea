// The cost model's arithmetic and the CCLABEL_RATES syntax; the rates themselves come from
// core/auto_rates.cpp.
#include "core/cost_model.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "cclabel/error.hpp"

namespace cclabel::detail {

std::uint64_t bytes_per_pixel_moved(const Workload& w) noexcept {
    const std::uint64_t bpp = std::uint64_t(bytes_per_pixel(w.format));
    switch (w.op) {
        case Workload::Op::Label:
        case Workload::Op::Tolerance:
        case Workload::Op::Volume: return bpp + 4;  // picture in, uint32 labels out
        case Workload::Op::Stats: return bpp + 4;    // picture and labels in, a table out
        case Workload::Op::Filter: return 4 + 4;     // labels in and out
        case Workload::Op::Segment: return bpp + 1;  // picture in, a byte a pixel out
        case Workload::Op::Adjacency: return 4;      // labels in; the edges out are few
    }
    return bpp + 4;
}

double CpuRate::per_pixel_at(double density, double background_share) const noexcept {
    if (knots < 2) return per_pixel_s;
    double line = knot_per_pixel[knots - 1];
    if (density <= knot_density[0]) {
        line = knot_per_pixel[0];
    } else {
        for (int k = 1; k < knots; ++k)
            if (density <= knot_density[k] || k == knots - 1) {
                const double d0 = knot_density[k - 1], d1 = knot_density[k];
                const double t = d1 > d0 ? std::min(1.0, (density - d0) / (d1 - d0)) : 1.0;
                line = knot_per_pixel[k - 1] + t * (knot_per_pixel[k] - knot_per_pixel[k - 1]);
                break;
            }
    }
    if (!(background_share > 0) || density >= kRunPathDensity) return line;
    return line - std::min(background_share, 1.0) * std::max(0.0, line - knot_per_pixel[0]);
}

double cpu_seconds(const Workload& w, const CpuRate& r) noexcept {
    // Only labelling skips the background's runs (tolerance joins pixel by pixel; statistics,
    // filters and the graph read labels). Binary8's probes have their background (zero) already,
    // so its knots include the saving.
    const bool skips = w.op == Workload::Op::Label && w.format != PixelFormat::Binary8;
    const double per_pixel = w.density >= 0 ? r.per_pixel_at(w.density, skips ? w.background_share : 0) : r.per_pixel_s;
    const std::uint64_t images = std::max<std::uint64_t>(w.images, 1);
    if (images == 1) return r.fixed_s + double(w.pixels) * per_pixel;
    // Rounds of min(images, threads) images side by side (batch.cpp's parallel_for), each round
    // paying a call's fixed cost; the pixels at the rate of all the threads together, which is what
    // threads labelling images side by side get (they share the memory bandwidth and the clock as a
    // threaded call's bands do; one thread timed alone ran 2.3x faster a pixel than each of 16 side
    // by side on the H100's host).
    const std::uint64_t side_by_side = std::min<std::uint64_t>(images, std::uint64_t(std::max(w.threads, 1)));
    const double rounds = double((images + side_by_side - 1) / side_by_side);
    return rounds * r.fixed_s + double(w.pixels) * per_pixel;
}

double gpu_seconds(const Workload& w, const GpuHostRate& r) noexcept {
    const double px = double(w.pixels);
    return r.fixed_s + px * r.per_pixel_s + px * double(bytes_per_pixel_moved(w)) * r.per_byte_s;
}

bool density_can_decide(const Workload& w, const CpuRate& cpu, double gpu_s) noexcept {
    if (cpu.knots < 2) return false;  // one rate for every picture
    Workload lo = w, hi = w;
    lo.density = 0;
    lo.background_share = 1;
    hi.density = 1;
    hi.background_share = 0;
    return cpu_seconds(lo, cpu) <= gpu_s && gpu_s < cpu_seconds(hi, cpu);  // ties go to the CPU
}

Backend choose_backend(const Workload& w, const CpuRate& cpu, const std::optional<GpuHostRate>& gpu) noexcept {
    if (!gpu || w.pixels == 0) return Backend::Cpu;
    return gpu_seconds(w, *gpu) < cpu_seconds(w, cpu) ? Backend::Cuda : Backend::Cpu;
}

namespace {

[[noreturn]] void bad(std::string_view item, const char* why) {
    throw Error("CCLABEL_RATES: " + std::string(why) + " in '" + std::string(item) +
                "' (expected e.g. cpu_gpxs=1.5,gpu_gpxs=40,copy_gbs=12,gpu_fixed_us=200,cpu_fixed_us=5, or cpu or cuda)");
}

double positive(std::string_view item, std::string_view value) {
    const std::string v(value);
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || errno != 0) bad(item, "not a number");
    if (!(d >= 0) || d == std::numeric_limits<double>::infinity()) bad(item, "not a finite non-negative number");
    return d;
}

}  // namespace

GivenRates parse_rates(const std::string& text) {
    GivenRates g;
    std::string_view rest(text);
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item.empty()) continue;
        if (item == "cpu" || item == "cuda") {
            g.force = item == "cpu" ? Backend::Cpu : Backend::Cuda;
            continue;
        }
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) bad(item, "no '='");
        const std::string_view key = item.substr(0, eq);
        const double v = positive(item, item.substr(eq + 1));
        if (key == "cpu_gpxs" || key == "gpu_gpxs" || key == "copy_gbs") {
            if (v == 0) bad(item, "a rate of 0");
        }
        if (key == "cpu_gpxs") g.cpu_gpxs = v;
        else if (key == "cpu_fixed_us") g.cpu_fixed_us = v;
        else if (key == "gpu_gpxs") g.gpu_gpxs = v;
        else if (key == "gpu_fixed_us") g.gpu_fixed_us = v;
        else if (key == "copy_gbs") g.copy_gbs = v;
        else bad(item, "unknown name");
    }
    return g;
}

CpuRate with_given(CpuRate r, const GivenRates& g) noexcept {
    if (g.cpu_gpxs) {
        r.per_pixel_s = 1e-9 / *g.cpu_gpxs;  // a given rate is the whole rate, whatever the picture
        r.knots = 0;
    }
    if (g.cpu_fixed_us) r.fixed_s = *g.cpu_fixed_us * 1e-6;
    return r;
}

GpuHostRate with_given(GpuHostRate r, const GivenRates& g) noexcept {
    if (g.gpu_gpxs) r.per_pixel_s = 1e-9 / *g.gpu_gpxs;
    if (g.gpu_fixed_us) r.fixed_s = *g.gpu_fixed_us * 1e-6;
    if (g.copy_gbs) r.per_byte_s = 1e-9 / *g.copy_gbs;
    return r;
}

}  // namespace cclabel::detail
