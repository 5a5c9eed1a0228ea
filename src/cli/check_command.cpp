// `cclabel check`: compare a label image (any tool's) with the true labels of the picture, which
// the CPU labeller makes, and say whether it split, joined or renumbered regions.
#include <iostream>
#include <memory>

#include "cclabel/cclabel.hpp"
#include "cclabel/compare.hpp"
#include "cclabel/io.hpp"
#include "cli/background_arg.hpp"
#include "cli/commands.hpp"
#include "cli/label_file.hpp"
#include "cli/pixel_census.hpp"

namespace cclabel::cli {
namespace {

// Exit codes, documented in --help and the README.
constexpr int kIdentical = 0, kRenumbered = 1, kWrong = 2, kCannotCheck = 3;

struct CheckArgs {
    std::string labels;
    std::string image;
    int connectivity = 0;  ///< 0: 8, or 26 with --volume
    std::string background;
    int threads = 0;
    bool volume = false;
};

std::string plural(std::uint64_t n, const char* one, const char* many) {
    return with_commas(n) + " " + (n == 1 ? one : many);
}

/// "7x6" or, for a volume, "7x6x5".
std::string size_text(std::int64_t w, std::int64_t h, std::int64_t d, bool volume) {
    return std::to_string(w) + "x" + std::to_string(h) + (volume ? "x" + std::to_string(d) : "");
}

int run_check(const CheckArgs& a) {
    LabelFile given;
    std::int64_t w = 0, h = 0, d = 1;  // with --volume the slices stand one under another: w × (h · d)
    std::vector<std::uint32_t> truth;
    const int connectivity = a.connectivity != 0 ? a.connectivity : a.volume ? 26 : 8;
    try {
        if (a.volume != (connectivity == 6 || connectivity == 18 || connectivity == 26))
            throw Error("-c " + std::to_string(connectivity) +
                        (a.volume ? " is for pictures: --volume takes 6, 18 or 26" : " is for volumes: add --volume"));
        Options o;
        o.connectivity = connectivity;
        o.threads = a.threads;
        o.backend = Backend::Cpu;  // the truth
        std::optional<BackgroundArg> bg;
        if (!a.background.empty()) bg = parse_background(a.background);
        io::Image img;
        io::Volume vol;
        if (a.volume) {
            vol = io::read_volume(a.image);
            given = read_label_volume(a.labels);
            w = vol.width, h = vol.height, d = vol.depth;
        } else {
            img = io::read_image(a.image);
            given = read_label_file(a.labels);
            w = img.width, h = img.height;
        }
        if (given.width != w || given.height != h || given.depth != d) {
            throw Error(a.labels + ": " + size_text(given.width, given.height, given.depth, a.volume) + " labels for a " +
                        size_text(w, h, d, a.volume) + (a.volume ? " volume" : " image"));
        }
        const ImageView view = a.volume ? make_view(vol.voxels.data(), w, h * d, vol.format) : img.view();
        if (bg) resolve_background(*bg, view, o);
        truth.resize(view.pixels());
        std::uint32_t none = 0;
        if (a.volume)
            label_volume(vol.view(), truth.empty() ? &none : truth.data(), o);
        else
            label(view, truth.empty() ? &none : truth.data(), o);
    } catch (const std::exception& e) {
        std::cerr << "cclabel: error: " << e.what() << "\n";
        return kCannotCheck;
    }

    const LabelComparison c = compare_labels(truth.data(), given.labels.data(), w, h * d);
    std::cout << a.labels << " against " << a.image << " (" << connectivity << "-connected): "
              << plural(c.true_regions, "true region", "true regions") << ", "
              << plural(c.given_regions, "given label", "given labels") << "\n";
    if (c.identical()) {
        std::cout << "identical\n";
        return kIdentical;
    }
    if (c.same_partition()) {
        std::cout << "same regions, numbered differently: " << plural(c.renumbered, "region", "regions") << "\n";
        return kRenumbered;
    }
    std::cout << "wrong: " << with_commas(c.split) << " split (true regions under several labels), "
              << with_commas(c.joined) << " joined (labels over several true regions or background and foreground)";
    if (c.missed) std::cout << ", " << with_commas(c.missed) << " missed (true regions labelled 0)";
    if (c.extra) std::cout << ", " << with_commas(c.extra) << " extra (labels on the background)";
    std::cout << "; " << with_commas(c.pixels_differ) << (a.volume ? " voxels" : " pixels")
              << " differ; first wrong region at (x=" << c.x << ", y=" << c.y % h;
    if (a.volume) std::cout << ", z=" << c.y / h;
    std::cout << ")\n";
    return kWrong;
}

}  // namespace

Command add_check_command(CLI::App& app) {
    auto a = std::make_shared<CheckArgs>();
    CLI::App* cmd = app.add_subcommand(
        "check",
        "Check LABELS, a label image made by any tool, against the true labels of IMAGE (the CPU labeller's, "
        "same -c and -b; 0 is the background in both). Reports how many true regions LABELS split (a region "
        "under several labels, or partly 0), joined (a label over several regions, or over background and "
        "foreground), missed (all 0) or invented on the background, and whether the numbering is the same.\n"
        "Exit codes: 0 identical; 1 the same regions numbered differently; 2 regions split, joined, missed or "
        "extra; 3 the check could not run (bad file, size mismatch).");
    cmd->add_option("labels", a->labels,
                    "Label image: .npy (bool, (u)int8/16/32/64), 32-bit or 8/16-bit TIFF, 8/16-bit gray PNG")
        ->required();
    cmd->add_option("image", a->image, "The picture that was labelled (PNG, TIFF, PPM/PGM, .npy)")->required();
    cmd->add_option("-c,--connectivity", a->connectivity, "4 or 8 (the default); with --volume 6, 18 or 26 (the default)")
        ->check(CLI::IsMember({4, 6, 8, 18, 26}));
    cmd->add_flag("--volume", a->volume,
                  "IMAGE and LABELS are volumes, as 'label --volume' reads them: every page of a TIFF a slice, or a "
                  ".npy of shape (depth, height, width)");
    cmd->add_option("-b,--background", a->background,
                    "Background value of IMAGE (as for 'label'): its pixels must be 0 in LABELS");
    cmd->add_option("-j,--threads", a->threads, "CPU threads (default: every core this process may use, one per 32,768 pixels at most)")->check(CLI::PositiveNumber);
    cmd->footer(
        "Example:\n"
        "  cclabel check other-tool.npy plan.png -b '#ffffff'\n"
        "  other-tool.npy against plan.png (8-connected): 79,051 true regions, 79,051 given labels\n"
        "  same regions, numbered differently: 78,990 regions        (exit 1)");
    return {cmd, [a] { return run_check(*a); }};
}

}  // namespace cclabel::cli
