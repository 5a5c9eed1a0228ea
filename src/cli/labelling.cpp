#include "cli/labelling.hpp"

#include <chrono>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

#include "cclabel/segment.hpp"
#include "cclabel/tiles.hpp"
#include "cli/commands.hpp"
#include "cli/pixel_census.hpp"
#include "cli/typed_values.hpp"

namespace cclabel::cli {
namespace {

/// @p text as a uint32 in decimal digits only (no sign, no spaces: stoull would take "+5" and " 5");
/// anything else is an Error naming @p option and what it @p expects.
std::uint32_t parse_u32(const std::string& text, const std::string& option, const std::string& expects) {
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    unsigned long long v = 0;
    try {
        if (digits) v = std::stoull(text, nullptr, 10);
    } catch (const std::out_of_range&) {
        v = ~0ull;
    }
    if (!digits || v > std::numeric_limits<std::uint32_t>::max())
        throw Error(option + " " + text + ": expected " + expects);
    return std::uint32_t(v);
}

}  // namespace

void add_label_options(CLI::App& cmd, LabelOptions& o) {
    cmd.add_option("-c,--connectivity", o.connectivity,
                   "4 (edges) or 8 (edges and corners; the default); with --volume 6 (faces), 18 (faces and edges) "
                   "or 26 (faces, edges and corners; the default)")
        ->check(CLI::IsMember({4, 6, 8, 18, 26}));
    cmd.add_flag("--volume", o.volume,
                 "Label each INPUT as one 3-D volume: every page of a TIFF a slice (pages of one size and format), "
                 "or a .npy array of shape (depth, height, width) (a (height, width) array is one slice). Labels "
                 "are written as a .npy of shape (depth, height, width) or a TIFF of one page a slice");
    cmd.add_option("-b,--background", o.background,
                   "Value whose pixels get label 0 and join nothing: '#rrggbb', '#rrggbbaa', 'r,g,b', a plain "
                   "integer for one-channel images (and --kmeans cluster indices), a value of the array's type for "
                   "signed, float and 64-bit .npy arrays ('-1', '0.5', 'nan', 'inf', '-0': exactly representable), "
                   "or 'auto' (each image's most frequent value)");
    cmd.add_option("--backend", o.backend, "auto (the GPU when present and worth it), cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    cmd.add_option("-j,--threads", o.threads, "CPU threads (default: every core this process may use, one per 32,768 pixels at most)")->check(CLI::PositiveNumber);
    cmd.add_option("--min-size", o.min_size,
                   "Remove regions of fewer pixels (label 0), renumbering the rest 1..M in raster order");
    cmd.add_option("--largest", o.largest, "Keep only the K largest regions (ties: the earlier one), renumbered");
    auto* th = cmd.add_option("--threshold", o.threshold,
                              "Label the binary mask 'value > T' instead of the values (T an integer, or 'otsu' for "
                              "Otsu's threshold of each image; RGB is thresholded on its luminance, "
                              "Y = (4899 R + 9617 G + 1868 B + 8192) >> 14, as OpenCV's RGB2GRAY)");
    auto* km = cmd.add_option("--kmeans", o.kmeans,
                              "Cluster the colours into K groups first (K-means, k-means++ start) and label the "
                              "cluster index image")
                   ->check(CLI::Range(1, kKMeansMaxK));
    th->excludes(km);
    cmd.add_option("--seed", o.seed, "K-means seed (the same seed gives the same clusters)")->capture_default_str();
    cmd.add_option("--iterations", o.iterations, "K-means centre updates at most")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd.add_option("--tolerance", o.tolerance,
                   "Join neighbours whose every channel differs by at most T (0..255; gray16 0..65535; u32 "
                   "0..4294967295), so a stroke joins its anti-aliased fringe: a region is everything reached by "
                   "such steps. Default 0: exact values. Not with --threshold, --kmeans, --tile, --stream or --verify");
    cmd.add_option("--dpi", o.dpi, "PDF rendering resolution, pixels per inch")
        ->check(CLI::Range(1.0, 10000.0))
        ->capture_default_str();
}

Labeller::Labeller(const LabelOptions& o) : o_(o) {
    const int c = o.connectivity;
    if (c == 0) o_.connectivity = o.volume ? 26 : 8;
    if (o.volume && (c == 4 || c == 8))
        throw Error("-c " + std::to_string(c) + " is for pictures: --volume takes 6 (faces), 18 (faces and edges) or "
                    "26 (faces, edges and corners)");
    if (!o.volume && (c == 6 || c == 18 || c == 26))
        throw Error("-c " + std::to_string(c) + " is for volumes: add --volume to label every page of a TIFF or a "
                    "3-D .npy as one volume (pictures take 4 or 8)");
    if (o.slab > 0 && !o.volume) throw Error("--slab reads a volume's pages in slabs: it needs --volume");
    // A volume is split along z into slabs of whole slices (--slab, --stream), never into tiles of
    // rows and columns: a slice is at most 2^32 - 1 voxels, and the seams between slabs are whole
    // slices, which is all the joins a volume needs to be labelled in bounded memory.
    if (o.volume && !o.tile.empty())
        throw Error("--tile is for pictures: a volume is labelled in z-slabs instead (--slab N pages at a time, or "
                    "--stream for slabs that fit --memory-budget)");
    if (!o.background.empty()) bg_ = parse_background(o.background);
    if (!o.threshold.empty() && o.threshold != "otsu")
        fixed_threshold_ = parse_u32(o.threshold, "--threshold", "'otsu' or an integer 0..4294967295");
    if (!o.threshold.empty() && bg_)
        throw Error("--background does not apply with --threshold: the mask's 0 is the background");
    if (!o.tile.empty()) tile_ = parse_tile(o.tile);
    if (!o.tolerance.empty())
        tolerance_ = parse_u32(o.tolerance, "--tolerance",
                               "an integer 0..4294967295 (at most 255 for 8-bit channels, 65535 for gray16)");
    if (tolerance_ > 0) {
        // Segmentation makes masks and cluster indices, whose values a tolerance means nothing for;
        // the certificate compares values for equality only.
        if (!o.threshold.empty()) throw Error("--tolerance does not apply with --threshold");
        if (o.kmeans > 0) throw Error("--tolerance does not apply with --kmeans");
        if (o.verify) throw Error("--verify checks exact-value labels, not --tolerance ones");
    }
    if (const char* env = std::getenv("CCLABEL_TEST_UNTILED_LIMIT"); env != nullptr && *env != '\0') {
        const unsigned long long v = std::strtoull(env, nullptr, 10);
        if (v >= 1 && v < untiled_limit_) untiled_limit_ = v;
    }
}

void Labeller::require_narrow(const ImageView& page, const std::string& what) const {
    if (wide(page))
        throw Error(what + " needs an image of at most " + with_commas(untiled_limit_) + " pixels (this one has " +
                    with_commas(page.pixels()) + ", labelled in tiles into uint64 labels, which only -o writes)");
}

Options Labeller::streamed_options(const std::string& why) const {
    return bounded_options(" needs the whole picture in memory, but this page is streamed (" + why + ")");
}

Options Labeller::slab_options(const ImageView& slice, const std::string& why) const {
    Options o = bounded_options(" needs the whole volume in memory, but this volume is read in slabs (" + why + ")");
    if (bg_) resolve_background(*bg_, slice, o);  // as run_volume: the value checked against the pages' format
    return o;
}

Options Labeller::bounded_options(const std::string& refusal) const {
    auto refuse = [&](const std::string& what) { throw Error(what + refusal); };
    if (!o_.threshold.empty()) refuse("--threshold");
    if (o_.kmeans > 0) refuse("--kmeans");
    if (o_.min_size > 1) refuse("--min-size");
    if (o_.largest > 0) refuse("--largest");
    if (o_.verify) refuse("--verify");
    if (bg_ && bg_->automatic) refuse("--background auto");
    Options o;
    o.connectivity = o_.connectivity;
    o.threads = o_.threads;
    o.tolerance = tolerance_;
    o.backend = o_.backend == "cpu" ? Backend::Cpu : o_.backend == "cuda" ? Backend::Cuda : Backend::Auto;
    if (bg_ && bg_->value.empty())
        throw BadOption("--background '" + bg_->text + "': negative, fractional, nan and inf values are for signed and "
                        "float .npy images, not TIFF pages");
    if (bg_) o.background = bg_->value;
    return o;
}

Labelled Labeller::run(const ImageView& page) const {
    Labelled r;
    r.labelled = page;
    r.wide = wide(page);
    if (r.wide) {
        // Segmentation, filters and the certificate work on uint32 labels of at most 2^32 − 1 pixels.
        if (!o_.threshold.empty()) require_narrow(page, "--threshold");
        if (o_.kmeans > 0) require_narrow(page, "--kmeans");
        if (o_.min_size > 1) require_narrow(page, "--min-size");
        if (o_.largest > 0) require_narrow(page, "--largest");
        if (o_.verify) require_narrow(page, "--verify");
    }
    if (is_typed_format(page.format)) {
        // The library labels the typed formats (signed, float, 64-bit) with label() only; its
        // segmentation, tiles and certificate take the unsigned formats.
        const std::string what = "a " + dtype_name(page.format) + " image (a signed, float or 64-bit .npy array)";
        auto refuse = [&](const std::string& option, const std::string& why) {
            throw Error(option + " does not take " + what + " yet: " + why);
        };
        if (!o_.threshold.empty()) refuse("--threshold", "label its values, or save it as uint8, uint16 or uint32");
        if (o_.kmeans > 0) refuse("--kmeans", "label its values, or save it as uint8, uint16 or uint32");
        if (tolerance_ > 0) refuse("--tolerance", "its values are labelled exactly");
        if (tile_) refuse("--tile", "it is labelled whole");
        if (r.wide) refuse("labelling in tiles (more than " + with_commas(untiled_limit_) + " pixels)", "at most that many pixels are labelled");
        if (o_.verify) refuse("--verify", "the certificate checks the unsigned formats only");
    }
    const Backend backend = o_.backend == "cpu" ? Backend::Cpu : o_.backend == "cuda" ? Backend::Cuda : Backend::Auto;
    if (!o_.threshold.empty()) {
        SegmentOptions so;
        so.backend = backend;
        so.threads = o_.threads;
        const std::uint32_t t = fixed_threshold_ ? *fixed_threshold_ : otsu_threshold(page, so);
        r.mask.resize(page.pixels());
        threshold(page, t, r.mask.data(), so);
        r.labelled = make_view(r.mask.data(), page.width, page.height, PixelFormat::Binary8);
        r.segmented = (fixed_threshold_ ? "threshold " : "otsu threshold ") + std::to_string(t);
    } else if (o_.kmeans > 0) {
        KMeansOptions ko;
        ko.k = o_.kmeans;
        ko.seed = o_.seed;
        ko.max_iterations = o_.iterations;
        ko.backend = backend;
        ko.threads = o_.threads;
        r.clusters.resize(page.pixels());
        const KMeansResult km = kmeans(page, r.clusters.data(), ko);
        r.labelled = make_view(r.clusters.data(), page.width, page.height, PixelFormat::U32);
        r.segmented = "k-means " + std::to_string(o_.kmeans) + " clusters, " + std::to_string(km.iterations) +
                      " iterations" + (km.converged ? " (converged)" : "");
    }

    Options& o = r.options;
    o.connectivity = o_.connectivity;
    o.threads = o_.threads;
    o.backend = backend;
    o.tolerance = tolerance_;
    if (bg_) resolve_background(*bg_, r.labelled, o);
    if (tile_ || r.wide) r.tiled = tile_ ? *tile_ : kAutoTile;
    const auto t0 = std::chrono::steady_clock::now();
    if (r.wide) {
        r.labels64.resize(r.labelled.pixels());
        const TiledResult tr = label_tiled(r.labelled, r.labels64.data(), o, r.tiled->width, r.tiled->height);
        r.backend = tr.backend;
        r.count = tr.count;
    } else {
        r.labels.resize(r.labelled.pixels());
        std::uint32_t none = 0;  // a valid pointer for an empty image
        std::uint32_t* out = r.labels.empty() ? &none : r.labels.data();
        if (r.tiled) {
            const TiledResult tr = label_tiled(r.labelled, out, o, r.tiled->width, r.tiled->height);
            r.backend = tr.backend;
            r.count = tr.count;
        } else {
            const LabelResult lr = label(r.labelled, out, o);
            r.backend = lr.backend;
            r.count = lr.count;
        }
    }
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (o_.verify) {
        const VerifyReport v = verify(r.labelled, r.data(), o);
        if (!v.ok) throw Error("verification failed: " + v.message);
    }
    if (o_.min_size > 1) r.count = remove_small(r.labels.data(), page.width, page.height, o_.min_size);
    if (o_.largest > 0) r.count = keep_largest(r.labels.data(), page.width, page.height, o_.largest);
    return r;
}

}  // namespace cclabel::cli
