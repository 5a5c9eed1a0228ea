// The cclabel command-line tool: label pictures, write label images and previews.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/io.hpp"
#include "cli/background_arg.hpp"
#include "cli/stats_csv.hpp"
#include "cli/pixel_census.hpp"
#include "cli/progress.hpp"

namespace fs = std::filesystem;
using namespace cclabel;

namespace {

struct LabelArgs {
    std::vector<std::string> inputs;
    std::string output;
    std::string format = "npy";
    int connectivity = 8;
    std::string background;
    std::string preview;
    std::string backend = "auto";
    int threads = 0;
    bool verify = false;
    std::string stats;
    std::uint64_t min_size = 0;
    std::uint32_t largest = 0;
};

std::string with_commas(std::uint64_t v) {
    const std::string digits = std::to_string(v);
    std::string s;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) s += ',';
        s += digits[i];
    }
    return s;
}

// Where one input's outputs go: -o is the file itself for one input, a folder for several.
std::string output_for(const std::string& out, const std::string& input, bool many, const std::string& ext) {
    if (out.empty()) return {};
    if (!many) return out;
    return (fs::path(out) / (fs::path(input).stem().string() + "." + ext)).string();
}

// Labels one file; returns its report line. Throws Error for anything wrong with it.
std::string label_one(const LabelArgs& a, const cli::BackgroundArg* bg, const std::string& input, bool many) {
    const io::Image img = io::read_image(input);
    const ImageView view = img.view();

    Options o;
    o.connectivity = a.connectivity;
    o.threads = a.threads;
    o.backend = a.backend == "cpu" ? Backend::Cpu : a.backend == "cuda" ? Backend::Cuda : Backend::Auto;
    if (bg) {
        if (bg->automatic) {
            if (img.format != PixelFormat::Binary8 && view.pixels() != 0) o.background = cli::most_frequent(view);
        } else {
            o.background = bg->value;
        }
    }
    std::vector<std::uint32_t> labels(view.pixels());
    static std::uint32_t none;
    const auto t0 = std::chrono::steady_clock::now();
    const LabelResult r = label(view, labels.empty() ? &none : labels.data(), o);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    if (a.verify) {
        const VerifyReport v = cclabel::verify(view, labels.empty() ? &none : labels.data(), o);
        if (!v.ok) throw Error("verification failed: " + v.message);
    }
    std::uint32_t count = r.count;
    if (a.min_size > 1) count = remove_small(labels.data(), img.width, img.height, a.min_size);
    if (a.largest > 0) count = keep_largest(labels.data(), img.width, img.height, a.largest);
    if (const std::string st = output_for(a.stats, input, many, "csv"); !st.empty())
        cli::write_stats_csv(st, regions(view, labels.empty() ? &none : labels.data(), o));
    const std::string ext = a.format == "tiff" ? "tif" : "npy";
    if (const std::string out = output_for(a.output, input, many, ext); !out.empty())
        io::write_labels(out, labels.data(), img.width, img.height);
    if (const std::string pv = output_for(a.preview, input, many, "png"); !pv.empty())
        io::write_preview_png(pv, labels.data(), img.width, img.height);

    std::ostringstream line;
    line << input << ": " << img.width << "x" << img.height << " " << format_name(img.format) << ", "
         << with_commas(cli::count_distinct(view)) << " colours, " << with_commas(count) << " regions, ";
    line.setf(std::ios::fixed);
    line.precision(1);
    line << ms << " ms (" << backend_name(r.backend) << ")";
    if (a.verify) line << ", verified";
    return line.str();
}

int run_label(const LabelArgs& a) {
    const bool many = a.inputs.size() > 1;
    std::optional<cli::BackgroundArg> bg;
    try {
        if (!a.background.empty()) bg = cli::parse_background(a.background);
        if (many) {
            for (const std::string* dir : {&a.output, &a.preview})
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

    cli::Progress progress(a.inputs.size(), many && isatty(STDERR_FILENO));
    int failed = 0;
    for (const std::string& input : a.inputs) {
        try {
            const std::string line = label_one(a, bg ? &*bg : nullptr, input, many);
            progress.clear();
            std::cout << line << std::endl;
        } catch (const std::exception& e) {
            ++failed;
            progress.clear();
            std::string msg = e.what();
            // Errors from the readers already start with the file name.
            if (msg.rfind(input, 0) != 0) msg = input + ": " + msg;
            std::cerr << "cclabel: error: " << msg << std::endl;
        }
        progress.step(input);
    }
    progress.clear();
    if (many && failed) std::cerr << "cclabel: " << failed << " of " << a.inputs.size() << " files failed\n";
    return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"cclabel: connected-component labelling of exact colours (CPU and CUDA)"};
    app.footer(
        "Example:\n"
        "  cclabel label sheet.png -o sheet.npy --background '#ffffff' --preview sheet-regions.png\n"
        "  sheet.png: 2100x1500 rgb8, 2,335 colours, 79,051 regions, 20.1 ms (cpu)\n\n"
        "Run 'cclabel label --help' for every option.");
    app.set_version_flag("--version", std::string("cclabel ") + CCLABEL_VERSION_STRING);
    app.require_subcommand(1);

    LabelArgs a;
    CLI::App* lab = app.add_subcommand(
        "label",
        "Label the regions of each INPUT: pixels joined by a path of 4- or 8-neighbours of exactly the same "
        "value (all channels). Regions are numbered 1..N in raster order of their first pixel; background "
        "pixels get 0. Prints one line per input: size, distinct colours, regions, time.");
    lab->add_option("inputs", a.inputs, "PNG, TIFF, PPM/PGM or .npy pictures")->required();
    lab->add_option("-o,--output", a.output,
                    "Label image to write: .npy (uint32, shape (height, width)) or .tif (32-bit). With several "
                    "inputs, a folder that receives <stem>.npy (or .tif with --format tiff) for each");
    lab->add_option("--format", a.format, "File type written into an -o folder")
        ->check(CLI::IsMember({"npy", "tiff"}))
        ->capture_default_str();
    lab->add_option("-c,--connectivity", a.connectivity, "4 (edges) or 8 (edges and corners)")
        ->check(CLI::IsMember({4, 8}))
        ->capture_default_str();
    lab->add_option("-b,--background", a.background,
                    "Value whose pixels get label 0 and join nothing: '#rrggbb', '#rrggbbaa', 'r,g,b', a plain "
                    "integer for one-channel images, or 'auto' (each image's most frequent value)");
    lab->add_option("--preview", a.preview,
                    "Colourised preview PNG (each region a stable colour, background black); a folder with "
                    "several inputs");
    lab->add_option("--backend", a.backend, "auto (the GPU when present and worth it), cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    lab->add_option("-j,--threads", a.threads, "CPU threads (default: all cores)")->check(CLI::PositiveNumber);
    lab->add_flag("--verify", a.verify, "Check every labelling with the built-in certificate (cclabel::verify)");
    lab->add_option("--min-size", a.min_size,
                    "Remove regions of fewer pixels (label 0), renumbering the rest 1..M in raster order");
    lab->add_option("--largest", a.largest, "Keep only the K largest regions (ties: the earlier one), renumbered");
    lab->add_option("--stats", a.stats,
                    "CSV of region statistics (after filtering): label, area, x, y, width, height (as OpenCV), "
                    "cx, cy (centroid), perimeter (pixels touching another label or the edge), value; row 0 is "
                    "the background. A folder with several inputs");
    lab->footer(
        "Examples:\n"
        "  cclabel label plan.png -o plan.npy --background '#ffffff'\n"
        "  cclabel label scans/*.tif -o labels/ --format tiff --connectivity 4 --threads 8\n"
        "  cclabel label mask.png --preview mask-regions.png --verify");

    CLI11_PARSE(app, argc, argv);
    return run_label(a);
}
