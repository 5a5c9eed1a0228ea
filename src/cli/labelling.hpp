#pragma once
// What `label` and `stats` share: the labelling options (connectivity, background, backend,
// threads, filters, segmentation, PDF resolution, tiling) and the labelling of one page with them.
//
// Tiling: with --tile, or by itself when a page has more pixels than label() can number
// (2^32 − 1), a page is labelled through cclabel::label_tiled, which gives label()'s labels value
// for value. A page over that limit gets uint64 labels (Labelled::labels64), which only -o writes:
// statistics, previews, filters, verification and segmentation are uint32-only and refuse it.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cli/background_arg.hpp"
#include "cli/output_buffer.hpp"
#include "cli/tile_arg.hpp"

namespace cclabel::cli {

struct LabelOptions {
    int connectivity = 0;  ///< 0: the default, 8 (26 with --volume); resolved by Labeller
    bool volume = false;   ///< --volume: every page of a TIFF, or a (Z, Y, X) .npy, is one volume
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
    std::string tile;  ///< --tile WxH ("" : only pages too large for label() are tiled)
    bool stream = false;        ///< --stream: TIFF pages are streamed band by band (src/cli/streamed.hpp)
    std::string memory_budget;  ///< --memory-budget SIZE ("" : 3/4 of the memory available at start)
    std::int64_t slab = 0;      ///< --slab N: a --volume read N pages at a time (src/cli/volume_slabs.hpp)
    std::string tolerance;      ///< --tolerance T ("" : exact values); checked by Labeller
};

/// The tile size used when a page is too large for label() and no --tile was given: 2^28 pixels
/// per tile, far below the per-tile limit of 2^32 − 1, few enough tiles that the seams cost little.
inline constexpr TileSize kAutoTile{16384, 16384};

/// Adds the options above (without --verify) to @p cmd.
void add_label_options(CLI::App& cmd, LabelOptions& o);

/// One page, segmented (when asked) and labelled.
struct Labelled {
    ImageView labelled;                 ///< what was labelled: the page, its mask or its cluster image
    OutputBuffer<std::uint8_t> mask;     ///< --threshold: the Binary8 mask
    OutputBuffer<std::uint32_t> clusters;  ///< --kmeans: the U32 cluster indices
    OutputBuffer<std::uint32_t> labels;  ///< after --min-size and --largest; empty when wide
    OutputBuffer<std::uint64_t> labels64;  ///< the labels of a wide page (more pixels than uint32 numbers)
    bool wide = false;
    std::uint64_t count = 0;
    Options options;                    ///< as labelled (background resolved)
    Backend backend = Backend::Cpu;     ///< the labeller that ran
    double ms = 0;                      ///< labelling time
    std::string segmented;              ///< e.g. "otsu threshold 117", "k-means 4 clusters, 10 iterations"
    std::optional<TileSize> tiled;      ///< the tile size, when labelled tile by tile

    const std::uint32_t* data() const { static const std::uint32_t none = 0; return labels.empty() ? &none : labels.data(); }
};

/// One volume labelled (--volume), segmented first when asked, after --min-size and --largest.
struct LabelledVolume {
    VolumeView labelled;                ///< what was labelled: the volume, its mask or its cluster volume
    std::vector<std::uint8_t> mask;     ///< --threshold: the Binary8 mask
    std::vector<std::uint32_t> clusters;  ///< --kmeans: the U32 cluster indices
    std::string segmented;              ///< e.g. "otsu threshold 117", as for pictures
    std::vector<std::uint32_t> labels;  ///< width × height × depth, z then y then x
    std::uint64_t count = 0;
    Options options;                    ///< as labelled (background resolved)
    Backend backend = Backend::Cpu;
    double ms = 0;                      ///< labelling time
};

/// Labels pages with one set of options (checked once, when constructed: throws Error).
class Labeller {
public:
    explicit Labeller(const LabelOptions& o);
    /// Throws Error for anything wrong with this page.
    Labelled run(const ImageView& page) const;
    /// Labels a volume (--volume; src/cli/volume_labelling.cpp); throws Error for anything wrong.
    LabelledVolume run_volume(const VolumeView& volume) const;

    /// Whether @p page has more pixels than uint32 labels can number: it is then labelled in tiles
    /// into uint64 labels.
    bool wide(const ImageView& page) const { return page.pixels() > untiled_limit_; }
    /// Throws Error("<what> ...") when @p page is wide: for the steps that need uint32 labels.
    void require_narrow(const ImageView& page, const std::string& what) const;

    /// The options a streamed page is labelled with; throws Error naming the first option that
    /// needs the whole picture in memory (segmentation, filters, --verify, --background auto), with
    /// @p why (why the page is streamed) in the message.
    Options streamed_options(const std::string& why) const;
    /// The same for a volume read in slabs (src/cli/volume_slabs.hpp), the background checked
    /// against the format of @p slice (one page) as run_volume checks it.
    Options slab_options(const ImageView& slice, const std::string& why) const;
    const std::optional<TileSize>& tile() const { return tile_; }
    /// Pixels above which a page's labels are uint64 (kMaxPixels unless a test lowered it).
    std::uint64_t untiled_limit() const { return untiled_limit_; }

private:
    /// streamed_options' work: @p refusal follows the name of an option it refuses.
    Options bounded_options(const std::string& refusal) const;

    LabelOptions o_;
    std::optional<TileSize> tile_;
    /// kMaxPixels; the environment variable CCLABEL_TEST_UNTILED_LIMIT lowers it so that tests run
    /// the wide path (automatic tiles, uint64 labels) on small images.
    std::uint64_t untiled_limit_ = kMaxPixels;
    std::optional<BackgroundArg> bg_;
    std::optional<std::uint32_t> fixed_threshold_;
    std::uint32_t tolerance_ = 0;
};

}  // namespace cclabel::cli
