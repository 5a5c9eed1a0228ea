// cclabel_gen: writes a benchmark input as .npy, so that Python peers (cc3d) and the cclabel tools
// see byte-identical pictures.
//
//   cclabel_gen drawing  --dpi 100 -o sheet.npy                          uint8 (H, W, 3)
//   cclabel_gen palette  --width W --height H --colours K --seed S -o x.npy   uint8 (H, W, 3)
//   cclabel_gen binary   --width W --height H --density 0.5 [--granularity G] --seed S -o x.npy   bool (H, W)
//   cclabel_gen distinct --width W --height H -o x.npy                     uint8 (H, W, 3)
// --stats prints the distinct colours and the share of white pixels; --threads N (0: all).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "drawing.hpp"
#include "npy_lite.hpp"

namespace {

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "cclabel_gen: %s\n"
                 "usage: cclabel_gen drawing --dpi D -o OUT.npy\n"
                 "       cclabel_gen palette --width W --height H --colours K [--seed S] -o OUT.npy\n"
                 "       cclabel_gen binary --width W --height H --density P [--granularity G] [--seed S] -o OUT.npy\n"
                 "       cclabel_gen distinct --width W --height H -o OUT.npy\n"
                 "options: --threads N (0: all cores), --stats\n",
                 why);
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) usage("missing kind");
    const std::string kind = argv[1];
    long long dpi = 100, width = 2048, height = 2048, colours = 256, granularity = 1;
    unsigned seed = 1, threads = 0;
    double density = 0.5;
    bool stats = false;
    std::string out;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value after " + a).c_str());
            return argv[++i];
        };
        if (a == "--dpi") dpi = std::stoll(value());
        else if (a == "--width") width = std::stoll(value());
        else if (a == "--height") height = std::stoll(value());
        else if (a == "--colours" || a == "--colors") colours = std::stoll(value());
        else if (a == "--seed") seed = unsigned(std::stoul(value()));
        else if (a == "--density") density = std::stod(value());
        else if (a == "--granularity") granularity = std::stoll(value());
        else if (a == "--threads") threads = unsigned(std::stoul(value()));
        else if (a == "-o" || a == "--output") out = value();
        else if (a == "--stats") stats = true;
        else usage(("unknown option " + a).c_str());
    }
    if (out.empty() && !stats) usage("missing -o");
    if (width < 0 || height < 0 || dpi <= 0) usage("sizes must be positive");

    using namespace cclabel::bench;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::uint8_t> data;
    std::vector<std::int64_t> shape;
    std::string descr = "|u1";
    if (kind == "drawing") {
        Drawing d = make_drawing(int(dpi), threads);
        width = d.width, height = d.height;
        data = std::move(d.rgb);
        shape = {height, width, 3};
    } else if (kind == "palette") {
        if (colours < 1 || colours > (1 << 24)) usage("--colours must be in 1..16777216");
        data = random_palette_image(width, height, int(colours), seed, threads);
        shape = {height, width, 3};
    } else if (kind == "binary") {
        data = random_binary(width, height, density, seed, int(granularity), threads);
        shape = {height, width};
        descr = "|b1";
    } else if (kind == "distinct") {
        if (width * height > (1LL << 24)) usage("distinct needs width * height <= 2^24");
        data = all_distinct_image(width, height);
        shape = {height, width, 3};
    } else {
        usage(("unknown kind " + kind).c_str());
    }
    const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    if (!out.empty()) {
        try {
            npy::write(out, descr, shape, data.data(), data.size());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "cclabel_gen: %s\n", e.what());
            return 1;
        }
    }
    std::printf("{\"kind\": \"%s\", \"width\": %lld, \"height\": %lld, \"generate_s\": %.3f", kind.c_str(), width, height,
                gen_s);
    if (stats && shape.size() == 3) {
        std::size_t white = 0;
        for (std::size_t i = 0; i + 2 < data.size(); i += 3) white += (data[i] & data[i + 1] & data[i + 2]) == 255;
        std::printf(", \"colours\": %zu, \"white_fraction\": %.4f", count_colours(data),
                    double(white) / double(std::max(1LL, width * height)));
    }
    std::printf("%s%s%s}\n", out.empty() ? "" : ", \"output\": \"", out.c_str(), out.empty() ? "" : "\"");
    return 0;
}
