// `cclabel stats`: label one input and print (or write) the statistics of every region.
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "cclabel/io.hpp"
#include "cli/commands.hpp"
#include "cli/labelling.hpp"
#include "cli/output_names.hpp"
#include "cli/stats_csv.hpp"
#include "cli/cli_switches.hpp"
#include "core/backends.hpp"

namespace cclabel::cli {
namespace {

struct StatsArgs {
    std::string input;
    std::string csv;
    LabelOptions label;
};

int run_stats(const StatsArgs& a) {
    std::unique_ptr<Labeller> made;
    try {
        made = std::make_unique<Labeller>(a.label);
    } catch (const std::exception& e) {  // a bad option: exit code 2, as `label` gives
        std::cerr << "cclabel: error: " << e.what() << "\n";
        return 2;
    }
    const Labeller& labeller = *made;
    if (a.label.volume) return run_stats_volume(a.input, a.csv, labeller);
    std::jthread ahead;  // as in `label`: the GPU's rates measured while the picture decodes
    if (a.label.backend == "auto" && !cli_switch_off("ahead")) ahead = std::jthread([] { detail::measure_auto_rates_ahead(); });
    try {
        io::PageReader reader(a.input, io::PageOptions{a.label.dpi});
        const int n = reader.pages();
        if (n > 1 && a.csv.empty())
            throw Error(a.input + ": " + std::to_string(n) + " pages: give --csv OUT.csv to write OUT-p001.csv, ... (one per page)");
        int failed = 0;
        bool bad_option = false;
        for (int i = 0; i < n; ++i) {
            try {
                const io::Page page = reader.read(i);
                labeller.require_narrow(page.view(), "statistics");
                const Labelled r = labeller.run(page.view());
                const auto st = regions(r.labelled, r.data(), r.options);
                if (a.csv.empty()) {
                    write_stats_csv(stdout, "standard output", st, r.labelled.format);
                } else {
                    const std::string out = output_name(a.csv, a.input, false, "csv", i, n);
                    write_stats_csv(out, st, r.labelled.format);
                    std::cout << page_name(a.input, i, n) << ": " << with_commas(r.count) << " regions -> " << out
                              << std::endl;
                }
            } catch (const std::exception& e) {
                if (n == 1) throw;
                ++failed;
                if (dynamic_cast<const BadOption*>(&e) != nullptr) bad_option = true;
                print_error(page_name(a.input, i, n), e);
            }
        }
        return bad_option ? 2 : failed ? 1 : 0;
    } catch (const std::exception& e) {
        print_error(a.input, e);
        return dynamic_cast<const BadOption*>(&e) != nullptr ? 2 : 1;
    }
}

}  // namespace

Command add_stats_command(CLI::App& app) {
    auto a = std::make_shared<StatsArgs>();
    CLI::App* cmd = app.add_subcommand(
        "stats",
        "Label INPUT and print one CSV row per label, the background (label 0) first:\n"
        "  label,area,left,top,width,height,centroid_x,centroid_y,perimeter,value\n"
        "area in pixels; left, top, width, height the bounding box and centroid_x, centroid_y the mean column "
        "and row (as OpenCV's connectedComponentsWithStats); perimeter the region's pixels that have a "
        "neighbour (under -c) outside the region or the image; value the region's pixel value, '#rrggbb' "
        "(RGB), '#rrggbbaa' (RGBA) or an integer (gray, 32-bit, binary; with --threshold the mask value 1, "
        "with --kmeans the cluster index). Labels emptied by --min-size/--largest are renumbered away.");
    cmd->add_option("input", a->input, "PNG, TIFF, PPM/PGM, .npy or PDF picture")->required();
    cmd->add_option("--csv", a->csv,
                    "Write the table to this file instead of standard output (a multi-page input writes "
                    "OUT-p001.csv, ...)");
    add_label_options(*cmd, a->label);
    cmd->footer(
        "Examples:\n"
        "  cclabel stats plan.png -b '#ffffff' | sort -t, -k2 -n -r | head\n"
        "  cclabel stats slide.tif --threshold otsu --min-size 50 --csv cells.csv");
    return {cmd, [a] { return run_stats(*a); }};
}

}  // namespace cclabel::cli
