#pragma once
// Labelling a TIFF page too large to hold, in bounded memory, with the tile API
// (include/cclabel/tiles.hpp):
//   pass 1  reads the page band by band (bands of rows, cut into tiles across), labels each tile,
//           keeps each tile's table of first pixels and only the previous band's tile borders (the
//           seams to the band below need nothing else), and finds the seams' equivalences;
//   resolve one union-find over every tile's labels gives each its global label;
//   pass 2  reads and labels each band again (recomputing is cheaper than spilling 4 bytes a pixel),
//           relabels it through the resolved maps and writes it, row by row, to the label file.
// Memory: one band of pixels and its local labels (band_rows × width × (pixel bytes + 4)), the
// reader's and writer's strips, and the tables (about 40 bytes per tile-local label at the resolve).
// The labels equal cclabel::label() on the whole picture value for value; they are uint32 when N
// fits (whatever the pixel count), uint64 otherwise.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "cclabel/options.hpp"
#include "cli/tile_arg.hpp"
#include "io/tiff_stream.hpp"

namespace cclabel::cli {

/// How a streamed page is cut: bands of band_rows rows, each cut into tiles tile_width wide.
struct StreamPlan {
    std::int64_t tile_width = 1, band_rows = 1;
};

/// Band memory (pixels and local labels of one band) of a plan.
std::uint64_t band_bytes(std::int64_t width, PixelFormat format, std::int64_t band_rows);

/// The plan for a width × height page of @p format: with @p tile, its size (clipped to the page);
/// otherwise full-width tiles (narrower where a tile would pass 2^32 − 1 pixels) in bands as tall
/// as @p band_budget bytes allow (at least one row).
StreamPlan plan_stream(std::int64_t width, std::int64_t height, PixelFormat format, std::uint64_t band_budget,
                       const std::optional<TileSize>& tile);

struct StreamedResult {
    std::uint64_t count = 0;
    Backend backend = Backend::Cpu;  ///< the backend of the tiles
    int label_bytes = 4;             ///< of the labels written (4 when N fits uint32)
    std::uint64_t tiles = 0;
    std::uint64_t seam_pairs = 0;
};

/// Labels the page that @p open reads (called once per pass; each call opens it afresh at row 0)
/// and, when @p open_output is set, writes the labels through the writer it returns for the label
/// width chosen after pass 1. Labels wider than uint32 are chosen when N > @p uint32_limit
/// (kMaxPixels; tests lower it). Throws Error for anything wrong (bad options, a corrupt file, a
/// file that changed between the passes).
StreamedResult label_streamed(const std::function<std::unique_ptr<io::TiffRowReader>()>& open,
                              const std::function<std::unique_ptr<io::LabelRowWriter>(int label_bytes)>& open_output,
                              const Options& options, const StreamPlan& plan, std::uint64_t uint32_limit);

}  // namespace cclabel::cli
