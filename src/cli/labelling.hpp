#pragma once
// What `label` and `stats` share: the labelling options (connectivity, background, backend,
// threads, filters, segmentation, PDF resolution) and the labelling of one page with them.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cli/background_arg.hpp"

namespace cclabel::cli {

struct LabelOptions {
    int connectivity = 8;
    std::string background;
    std::string backend = "auto";
    int threads = 0;
    std::uint64_t min_size = 0;
    std::uint32_t largest = 0;
    std::string threshold;  ///< "", "otsu" or an unsigned integer
    int kmeans = 0;         ///< clusters; 0: no K-means
    std::uint64_t seed = 0;
    int iterations = 10;
    double dpi = 150;
    bool verify = false;
};

/// Adds the options above (without --verify) to @p cmd.
void add_label_options(CLI::App& cmd, LabelOptions& o);

/// One page, segmented (when asked) and labelled.
struct Labelled {
    ImageView labelled;                 ///< what was labelled: the page, its mask or its cluster image
    std::vector<std::uint8_t> mask;     ///< --threshold: the Binary8 mask
    std::vector<std::uint32_t> clusters;  ///< --kmeans: the U32 cluster indices
    std::vector<std::uint32_t> labels;  ///< after --min-size and --largest
    std::uint32_t count = 0;
    Options options;                    ///< as labelled (background resolved)
    Backend backend = Backend::Cpu;     ///< the labeller that ran
    double ms = 0;                      ///< labelling time
    std::string segmented;              ///< e.g. "otsu threshold 117", "k-means 4 clusters, 10 iterations"

    const std::uint32_t* data() const { static const std::uint32_t none = 0; return labels.empty() ? &none : labels.data(); }
};

/// Labels pages with one set of options (checked once, when constructed: throws Error).
class Labeller {
public:
    explicit Labeller(const LabelOptions& o);
    /// Throws Error for anything wrong with this page.
    Labelled run(const ImageView& page) const;

private:
    LabelOptions o_;
    std::optional<BackgroundArg> bg_;
    std::optional<std::uint32_t> fixed_threshold_;
};

}  // namespace cclabel::cli
