// `cclabel label`: label every page of every input, write label images, previews and statistics.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "cclabel/adjacency.hpp"
#include "cclabel/io.hpp"
#include "cli/adjacency_csv.hpp"
#include "cli/commands.hpp"
#include "cli/labelling.hpp"
#include "cli/memory_budget.hpp"
#include "cli/output_names.hpp"
#include "cli/pixel_census.hpp"
#include "cli/progress.hpp"
#include "cli/stats_csv.hpp"
#include "cli/streamed.hpp"
#include "cli/cli_switches.hpp"
#include "core/backends.hpp"
#include "io/tiff_stream.hpp"

namespace fs = std::filesystem;

namespace cclabel::cli {
namespace {

struct LabelArgs {
    std::vector<std::string> inputs;
    std::string output;
    std::string format = "npy";
    std::string preview;
    std::string stats;
    std::string adjacency;             ///< --adjacency: CSV of touching label pairs
    bool adjacency_background = false;  ///< --adjacency-background: pairs with label 0 too
    LabelOptions label;
    std::uint64_t budget = 0;  ///< --memory-budget, or 3/4 of the memory available at start
};

/// Bytes a page needs labelled in memory: its pixels and its labels (uint64 for a wide page).
std::uint64_t in_memory_bytes(std::int64_t w, std::int64_t h, PixelFormat format, std::uint64_t untiled_limit) {
    const std::uint64_t px = std::uint64_t(w) * std::uint64_t(h);
    return px * std::uint64_t(bytes_per_pixel(format) + (px > untiled_limit ? 8 : 4));
}

// Labels one TIFF page band by band in bounded memory (src/cli/streamed.hpp); returns its report
// line. Throws Error for anything wrong, including options that need the whole picture.
std::string label_streamed_page(const LabelArgs& a, const Labeller& labeller, const std::string& input, int index,
                                int count, bool many, const io::TiffRowReader& head) {
    const std::int64_t w = head.width(), h = head.height();
    const std::uint64_t need = in_memory_bytes(w, h, head.format(), labeller.untiled_limit());
    const std::string why = need > a.budget ? "it needs about " + format_size(need) + " in memory, over --memory-budget " +
                                                  format_size(a.budget)
                                            : std::string("--stream");
    if (!a.stats.empty()) throw Error("--stats needs the whole picture in memory, but this page is streamed (" + why + ")");
    if (!a.adjacency.empty())
        throw Error("--adjacency needs the whole picture in memory, but this page is streamed (" + why + ")");
    if (!a.preview.empty()) throw Error("--preview needs the whole picture in memory, but this page is streamed (" + why + ")");
    const Options options = labeller.streamed_options(why);
    // Half the budget for a band's pixels and local labels (at most 256 MiB: taller bands gain
    // nothing), the rest for the tables and the reader's and writer's strips.
    const std::uint64_t band_budget = std::max<std::uint64_t>(1, std::min<std::uint64_t>(a.budget / 2, std::uint64_t(1) << 28));
    const StreamPlan plan = plan_stream(w, h, head.format(), band_budget, labeller.tile());
    const std::string ext = a.format == "tiff" ? "tif" : "npy";
    const std::string out = output_name(a.output, input, many, ext, index, count);

    const auto t0 = std::chrono::steady_clock::now();
    const StreamedResult r = label_streamed(
        [&] { return std::make_unique<io::TiffRowReader>(input, index); },
        out.empty() ? std::function<std::unique_ptr<io::LabelRowWriter>(int)>()
                    : [&](int bytes) { return std::make_unique<io::LabelRowWriter>(out, w, h, bytes); },
        options, plan, labeller.untiled_limit());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    std::ostringstream line;
    line << page_name(input, index, count) << ": " << w << "x" << h << " " << format_name(head.format()) << ", streamed ("
         << with_commas(std::uint64_t(plan.band_rows)) << "-row bands, tiles " << std::min(plan.tile_width, w) << "x"
         << std::min(plan.band_rows, h) << "), " << with_commas(r.count) << " regions, ";
    line.setf(std::ios::fixed);
    line.precision(1);
    line << ms << " ms (" << backend_name(r.backend) << ", uint" << 8 * r.label_bytes << " labels)";
    return line.str();
}

// Labels one page and writes its outputs; returns its report line. Throws Error for anything wrong.
std::string label_page(const LabelArgs& a, const Labeller& labeller, const std::string& input, const io::Page& page,
                       bool many) {
    const ImageView view = page.view();
    // Before labelling, so that a page too large for them fails at once, not after minutes of work.
    if (!a.stats.empty()) labeller.require_narrow(view, "--stats");
    if (!a.preview.empty()) labeller.require_narrow(view, "--preview");
    if (!a.adjacency.empty()) labeller.require_narrow(view, "--adjacency");
    const Labelled r = labeller.run(view);
    const std::int64_t w = view.width, h = view.height;
    if (const std::string st = output_name(a.stats, input, many, "csv", page.index, page.count); !st.empty())
        write_stats_csv(st, regions(r.labelled, r.data(), r.options), r.labelled.format);
    if (const std::string adj = output_name(a.adjacency, input, many, "csv", page.index, page.count); !adj.empty())
        write_adjacency_csv(adj, adjacency(r.data(), w, h, r.options.connectivity, a.adjacency_background, 0, r.options.backend));
    const std::string ext = a.format == "tiff" ? "tif" : "npy";
    if (const std::string out = output_name(a.output, input, many, ext, page.index, page.count); !out.empty()) {
        if (r.wide)
            io::write_labels(out, r.labels64.data(), w, h);
        else
            io::write_labels(out, r.data(), w, h);
    }
    if (const std::string pv = output_name(a.preview, input, many, "png", page.index, page.count); !pv.empty())
        io::write_preview_png(pv, r.labels.data(), w, h);

    std::ostringstream line;
    line << page_name(input, page.index, page.count) << ": " << w << "x" << h << " " << format_name(view.format);
    if (page.rendered) line << " (" << a.label.dpi << " dpi)";
    line << ", " << with_commas(count_distinct(view)) << (is_typed_format(view.format) ? " values, " : " colours, ");
    if (!r.segmented.empty()) line << r.segmented << ", ";
    if (r.options.tolerance > 0) line << "tolerance " << r.options.tolerance << ", ";
    line << with_commas(r.count) << " regions, ";
    line.setf(std::ios::fixed);
    line.precision(1);
    line << r.ms << " ms (" << backend_name(r.backend);
    if (r.tiled) line << ", tiles " << r.tiled->width << "x" << r.tiled->height;
    if (r.wide) line << ", uint64 labels";
    line << ")";
    if (a.label.verify) line << ", verified";
    return line.str();
}

// Labels every page of one input; returns false when the file or one of its pages failed, and sets
// @p bad_option when a page refused an option (a --background its type cannot hold).
bool label_input(const LabelArgs& a, const Labeller& labeller, const std::string& input, bool many, Progress& files,
                 bool& bad_option) {
    const bool tiff = io::is_tiff_file(input);
    if (a.label.stream && !tiff) throw Error(input + ": --stream reads TIFF files only");
    io::PageReader reader(input, io::PageOptions{a.label.dpi});
    const int n = reader.pages();
    Progress pages(std::size_t(n), n > 1 && isatty(STDERR_FILENO));
    int failed = 0;
    for (int i = 0; i < n; ++i) {
        const std::string name = page_name(input, i, n);
        try {
            std::string line;
            // A TIFF page is streamed when asked, or when labelling it whole would pass the budget.
            std::unique_ptr<io::TiffRowReader> head;
            if (tiff) head = std::make_unique<io::TiffRowReader>(input, i);
            if (head && (a.label.stream ||
                         in_memory_bytes(head->width(), head->height(), head->format(), labeller.untiled_limit()) > a.budget)) {
                line = label_streamed_page(a, labeller, input, i, n, many, *head);
            } else {
                head.reset();
                line = label_page(a, labeller, input, reader.read(i), many);
            }
            pages.clear();
            files.clear();
            std::cout << line << std::endl;
        } catch (const std::exception& e) {
            ++failed;
            if (dynamic_cast<const BadOption*>(&e) != nullptr) bad_option = true;
            pages.clear();
            files.clear();
            print_error(name, e);
        }
        pages.step(name);
    }
    pages.clear();
    if (n > 1 && failed) std::cerr << "cclabel: " << input << ": " << failed << " of " << n << " pages failed\n";
    return failed == 0;
}

int run_label(LabelArgs& a) {
    const bool many = a.inputs.size() > 1;
    std::unique_ptr<Labeller> labeller;
    try {
        labeller = std::make_unique<Labeller>(a.label);
        a.budget = a.label.memory_budget.empty() ? available_memory() / 4 * 3 : parse_size(a.label.memory_budget);
        if (a.budget == 0) a.budget = ~std::uint64_t(0);  // unknown: only --stream streams
        if (many) {
            for (const std::string* dir : {&a.output, &a.preview, &a.stats, &a.adjacency})
                if (!dir->empty()) fs::create_directories(*dir);
        } else if (!a.output.empty()) {
            const std::string ext = fs::path(a.output).extension().string();
            if (ext != ".npy" && ext != ".tif" && ext != ".tiff")
                throw Error("-o " + a.output + ": the label file must end in .npy, .tif or .tiff");
        }
    } catch (const std::exception& e) {
        std::cerr << "cclabel: error: " << e.what() << "\n";
        return 2;
    }

    if (a.label.volume)
        return run_label_volumes(a.inputs, *labeller, a.label,
                                 {a.output, a.format, a.stats, a.preview, a.adjacency, a.adjacency_background, a.budget});
    // Auto's first call measures the GPU's host path, the device's start-up included (about a
    // second on the H100 host, where the labelling of an 800 dpi sheet takes a quarter of that);
    // decoding the first picture keeps one core busy and leaves the others idle meanwhile.
    // The CPU's rate is not measured ahead: its probe wants every core the call will use, and
    // beside the decoding thread (and the GPU measurement's copies, which take every core) the pool
    // would find the machine oversubscribed, mark the probe disturbed and time it again, and after
    // three tries keep a rate several times too slow for the process. Taken before the decode
    // instead, it would only move its time (expected 10-15 ms), not hide it.
    std::jthread ahead;
    if (a.label.backend == "auto" && !cli_switch_off("ahead")) ahead = std::jthread([] { detail::measure_auto_rates_ahead(); });
    Progress files(a.inputs.size(), many && isatty(STDERR_FILENO));
    int failed = 0;
    bool bad_option = false;
    for (const std::string& input : a.inputs) {
        try {
            if (!label_input(a, *labeller, input, many, files, bad_option)) ++failed;
        } catch (const std::exception& e) {
            ++failed;
            files.clear();
            print_error(input, e);
        }
        files.step(input);
    }
    files.clear();
    if (many && failed) std::cerr << "cclabel: " << failed << " of " << a.inputs.size() << " files failed\n";
    return bad_option ? 2 : failed ? 1 : 0;
}

}  // namespace

Command add_label_command(CLI::App& app) {
    auto a = std::make_shared<LabelArgs>();
    CLI::App* lab = app.add_subcommand(
        "label",
        "Label the regions of each INPUT: pixels joined by a path of 4- or 8-neighbours of exactly the same "
        "value (all channels). Regions are numbered 1..N in raster order of their first pixel; background "
        "pixels get 0. Every page of a PDF (rendered at --dpi) or multi-page TIFF is labelled. Prints one line "
        "per page: size, distinct colours, regions, time.");
    lab->add_option("inputs", a->inputs, "PNG, TIFF (every page), PPM/PGM, .npy or PDF (every page) pictures")->required();
    lab->add_option("-o,--output", a->output,
                    "Label image to write: .npy (uint32, shape (height, width)) or .tif (32-bit); uint64 ('<u8', "
                    "64-bit TIFF) for a picture of more than 4294967295 pixels (a streamed TIFF page: while N fits, "
                    "uint32). With several inputs, a folder that "
                    "receives <stem>.npy (or .tif with --format tiff) for each. Pages of a multi-page input add "
                    "-p001, -p002, ... to the name");
    lab->add_option("--format", a->format, "File type written into an -o folder")
        ->check(CLI::IsMember({"npy", "tiff"}))
        ->capture_default_str();
    lab->add_option("--preview", a->preview,
                    "Colourised preview PNG (each region a stable colour, background black); a folder with "
                    "several inputs. With --volume: the slices side by side in one PNG (z left to right, then top "
                    "to bottom, ceil(sqrt(depth)) columns, a black pixel between slices)");
    add_label_options(*lab, a->label);
    lab->add_option("--tile", a->label.tile,
                    "Label tile by tile (WxH pixels, e.g. 4096x4096; the last row and column of tiles may be "
                    "smaller) and merge the seams: the same labels as without --tile, each tile labelled by "
                    "--backend. Used by itself, with 16384x16384 tiles, for a picture of more than 4294967295 "
                    "pixels, whose labels are then uint64 and only -o writes them (not --stats, --preview, "
                    "--min-size, --largest, --verify, --threshold or --kmeans). Not with --volume: a volume is "
                    "read in z-slabs (--slab, --stream)");
    lab->add_flag("--stream", a->label.stream,
                  "Label TIFF pages in bounded memory: read band by band, tiles labelled and their seams resolved, "
                  "then read and labelled again and written band by band (the same labels; uint32 when the region "
                  "count fits, else uint64). Done by itself for a TIFF page whose pixels and labels would pass "
                  "--memory-budget. Not with --stats, --preview, --min-size, --largest, --verify, --threshold, "
                  "--kmeans or --background auto. With --volume: the TIFF is read in slabs of as many pages as fit "
                  "half of --memory-budget (see --slab)");
    lab->add_option("--memory-budget", a->label.memory_budget,
                    "Memory for one page, e.g. 512M or 8G (default: 3/4 of the memory available at start): a TIFF "
                    "page needing more (pixels + 4 or 8 bytes of labels a pixel) is streamed, in bands of at most "
                    "half of it (and 256 MiB); with --volume, a TIFF whose voxels and labels need more is read in "
                    "slabs of as many pages as fit half of it");
    lab->add_option("--slab", a->label.slab,
                    "With --volume: read N pages of the TIFF at a time (a z-slab), label each in memory and join "
                    "the slabs at their seams, writing the labels through a temporary file beside -o: the labels "
                    "of the volume labelled whole (uint32, or uint64 past 4294967295 voxels) without it ever being "
                    "in memory. Done by itself past --memory-budget. Not with a .npy volume, --stats, --min-size, "
                    "--largest, --verify or --background auto")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    lab->add_flag("--verify", a->label.verify, "Check every labelling with the built-in certificate (cclabel::verify)");
    lab->add_option("--stats", a->stats,
                    "CSV of region statistics (after filtering), as 'cclabel stats' prints them; a folder with "
                    "several inputs");
    lab->add_option("--adjacency", a->adjacency,
                    "CSV of the region adjacency graph (after filtering): 'a,b,contacts', one row per pair of "
                    "labels a < b that touch under --connectivity, with the number of touching neighbour pixel "
                    "pairs, sorted; a folder with several inputs");
    lab->add_flag("--adjacency-background", a->adjacency_background,
                  "Include the pairs with the background (label 0) in --adjacency");
    lab->footer(
        "Examples:\n"
        "  cclabel label plan.png -o plan.npy --background '#ffffff'\n"
        "  cclabel label scans/*.tif -o labels/ --format tiff --connectivity 4 --threads 8\n"
        "  cclabel label drawings.pdf --dpi 400 -o drawings.npy      # drawings-p001.npy, ...\n"
        "  cclabel label slide.png --threshold otsu --min-size 20\n"
        "  cclabel label plan.png -b '#ffffff' --tolerance 64 --adjacency plan-edges.csv\n"
        "  cclabel label photo.png --kmeans 6 --seed 1 --preview photo-regions.png\n"
        "  cclabel label slide.tif --tile 8192x8192 -o slide.npy\n"
        "  cclabel label huge.tif --stream --memory-budget 2G -o huge-labels.tif\n"
        "  cclabel label stack.tif --volume --slab 64 -b 0 -o stack-labels.npy");
    return {lab, [a] { return run_label(*a); }};
}

}  // namespace cclabel::cli
