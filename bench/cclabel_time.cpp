// cclabel_time: times cclabel::label on one picture and prints JSON, for bench/compare_cc3d.py.
//
//   cclabel_time IMAGE --threads N --repeat R [--connectivity 4|8] [--background r,g,b|v|#rrggbb]
//                [--backend auto|cpu|cuda] [--labels OUT.npy] [--cpu-off SWITCH]...
//
// --cpu-off turns one of the CPU labeller's switches off (src/cpu/tuning.hpp:
// number_from_above, predict_stretchy, up_mask_scan,
// left_runs, run_length, run_blocks, run_masks, shared_bands, stream_stores, binary_runs, or all), calling cclabel::cpu::label.
//
// The picture is loaded and a label buffer allocated before anything is timed; one untimed call
// warms caches and pages. Two figures come out, each the median of R calls:
//   median_ms        label(view, out, options) into the reused buffer: the labelling alone
//                    (median_cpu_ms: the same calls' process CPU time);
//   median_alloc_ms  label(view, options), which also allocates and zero-fills a new label image,
//                    the closer match to a Python peer that returns a fresh array every call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <time.h>

#include "cclabel/cclabel.hpp"
#include "cpu/tuning.hpp"
#include "npy_lite.hpp"
#ifdef CCLABEL_BENCH_HAVE_IO
#include "cclabel/io.hpp"
#endif

namespace {

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr,
                 "cclabel_time: %s\n"
                 "usage: cclabel_time IMAGE --threads N --repeat R [--connectivity 4|8] [--background r,g,b|v|#rrggbb]\n"
                 "                    [--backend auto|cpu|cuda] [--labels OUT.npy] [--cpu-off SWITCH]...\n",
                 why.c_str());
    std::exit(2);
}

struct Loaded {
    std::vector<std::uint8_t> pixels;
    std::int64_t width = 0, height = 0;
    cclabel::PixelFormat format = cclabel::PixelFormat::Gray8;
};

Loaded load(const std::string& path) {
    Loaded l;
    const bool is_npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
#ifdef CCLABEL_BENCH_HAVE_IO
    if (!is_npy) {
        cclabel::io::Image img = cclabel::io::read_image(path);
        l.width = img.width, l.height = img.height, l.format = img.format;
        l.pixels = std::move(img.pixels);
        return l;
    }
#else
    if (!is_npy) usage("this build reads .npy only (the library's I/O was not built)");
#endif
    cclabel::bench::npy::Array a = cclabel::bench::npy::read(path);
    using cclabel::PixelFormat;
    if (a.shape.size() == 2) {
        l.format = a.descr == "|b1" ? PixelFormat::Binary8
                   : a.descr == "<u2" ? PixelFormat::Gray16
                   : (a.descr == "<u4" || a.descr == "<i4") ? PixelFormat::U32
                                                            : PixelFormat::Gray8;
    } else if (a.shape.size() == 3 && (a.descr == "|u1" || a.descr == "<u1") && (a.shape[2] == 3 || a.shape[2] == 4)) {
        l.format = a.shape[2] == 3 ? PixelFormat::RGB8 : PixelFormat::RGBA8;
    } else {
        usage(path + ": expected a 2-D array or uint8 (H, W, 3|4), got dtype " + a.descr);
    }
    l.height = a.shape[0], l.width = a.shape[1];
    l.pixels = std::move(a.bytes);
    return l;
}

std::vector<std::uint64_t> parse_background(std::string s) {
    std::vector<std::uint64_t> v;
    if (!s.empty() && s[0] == '#') {
        if (s.size() != 7) usage("--background #rrggbb needs six hex digits");
        const unsigned long c = std::stoul(s.substr(1), nullptr, 16);
        return {c >> 16 & 0xFF, c >> 8 & 0xFF, c & 0xFF};
    }
    std::size_t i = 0;
    while (i <= s.size()) {
        const std::size_t j = std::min(s.find(',', i), s.size());
        v.push_back(std::stoull(s.substr(i, j - i)));
        i = j + 1;
    }
    return v;
}

// CPU time of the whole process: with one thread it is the labelling's own time, and unlike wall
// time it hardly moves when other jobs share the machine.
double process_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
    std::string path, labels_out, backend = "cpu";
    int threads = 0, repeat = 5;
    cclabel::Options opt;
    cclabel::cpu::Switches switches;
    bool use_switches = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(std::string("missing value after ") + a);
            return argv[++i];
        };
        if (a == "--threads") threads = std::stoi(value());
        else if (a == "--repeat") repeat = std::max(1, std::stoi(value()));
        else if (a == "--connectivity") opt.connectivity = std::stoi(value());
        else if (a == "--background") opt.background = parse_background(value());
        else if (a == "--backend") backend = value();
        else if (a == "--labels") labels_out = value();
        else if (a == "--cpu-off") {
            const std::string sw = value();
            bool any = false;
            auto off = [&](const char* name, bool& flag) {
                if (sw == name || sw == "all") flag = false, any = true;
            };
            off("number_from_above", switches.number_from_above);
            off("predict_stretchy", switches.predict_stretchy);
            off("up_mask_scan", switches.up_mask_scan);
            off("left_runs", switches.left_runs);
            off("run_length", switches.run_length);
            off("run_blocks", switches.run_blocks);
            off("run_masks", switches.run_masks);
            off("shared_bands", switches.shared_bands);
            off("stream_stores", switches.stream_stores);
            off("binary_runs", switches.binary_runs);
            if (!any) usage("unknown CPU switch " + sw);
            use_switches = true;
        }
        else if (!a.empty() && a[0] == '-') usage(std::string("unknown option ") + a);
        else if (path.empty()) path = a;
        else usage("one image at a time");
    }
    if (path.empty()) usage("missing IMAGE");
    if (use_switches && backend != "cpu") usage("--cpu-off needs --backend cpu");
    opt.threads = threads;
    opt.backend = backend == "cuda" ? cclabel::Backend::Cuda : backend == "auto" ? cclabel::Backend::Auto : cclabel::Backend::Cpu;

    try {
        const Loaded img = load(path);
        const cclabel::ImageView view = cclabel::make_view(img.pixels.data(), img.width, img.height, img.format);
        std::vector<std::uint32_t> out(view.pixels());
        using clock = std::chrono::steady_clock;
        auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };

        // With --cpu-off the CPU entry that takes switches stands in for cclabel::label.
        auto label_into = [&](std::uint32_t* dst) {
            if (!use_switches) return cclabel::label(view, dst, opt);
            return cclabel::LabelResult{cclabel::cpu::label(view, dst, opt, switches), cclabel::Backend::Cpu};
        };
        cclabel::LabelResult res = label_into(out.data());  // warm-up, untimed
        std::vector<double> into, alloc, cpu;
        for (int r = 0; r < repeat; ++r) {
            const double c0 = process_cpu_ms();
            const auto t0 = clock::now();
            res = label_into(out.data());
            into.push_back(ms(t0, clock::now()));
            cpu.push_back(process_cpu_ms() - c0);
        }
        for (int r = 0; r < repeat; ++r) {
            const auto t0 = clock::now();
            cclabel::Labels l;
            if (use_switches) {
                l.data.resize(view.pixels());
                l.count = label_into(l.data.data()).count;
            } else {
                l = cclabel::label(view, opt);
            }
            const auto t1 = clock::now();
            alloc.push_back(ms(t0, t1));
            if (l.count != res.count) {
                std::fprintf(stderr, "cclabel_time: region counts differ between calls (%u vs %u)\n", l.count, res.count);
                return 1;
            }
        }
        if (!labels_out.empty())
            cclabel::bench::npy::write(labels_out, "<u4", {img.height, img.width}, out.data(), out.size() * 4);

        std::printf(
            "{\"image\": \"%s\", \"width\": %lld, \"height\": %lld, \"format\": \"%.*s\", \"connectivity\": %d, "
            "\"background\": %s, \"threads\": %d, \"backend\": \"%.*s\", \"repeat\": %d, \"regions\": %u, "
            "\"median_ms\": %.3f, \"min_ms\": %.3f, \"median_cpu_ms\": %.3f, \"median_alloc_ms\": %.3f}\n",
            path.c_str(), static_cast<long long>(img.width), static_cast<long long>(img.height),
            int(cclabel::format_name(img.format).size()), cclabel::format_name(img.format).data(), opt.connectivity,
            opt.background ? "true" : "false", threads, int(cclabel::backend_name(res.backend).size()),
            cclabel::backend_name(res.backend).data(), repeat, res.count, median(into),
            *std::min_element(into.begin(), into.end()), median(cpu), median(alloc));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cclabel_time: %s\n", e.what());
        return 1;
    }
    return 0;
}
