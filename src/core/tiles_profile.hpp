#pragma once
// Where the streamed GPU tile pipeline (cuda::label_tiled_streamed, src/cuda/tiles_cuda.cu) spends
// its time: an internal, optional record that the pipeline fills when it is given one, and that
// bench/cuda/bench_tiles prints. Not part of the public API; the library never prints it.
//
// Every field ending in _ms is a host-clock time (std::chrono::steady_clock) in milliseconds since
// the pipeline was entered, taken when that phase's work is known to be finished: the pipeline
// waits for the device at the end of each phase in any case, and where it would not (the end of
// the allocations), it synchronises only because a record was asked for. Phase durations are the
// differences of consecutive marks (bench_tiles prints them so).
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/tiles.hpp"

namespace cclabel::detail {

struct TilesProfile {
    double setup_ms = 0;     ///< validation, workspace query, memory check, contexts dealt
    double alloc_ms = 0;     ///< device buffers, pooled pinned host buffers, streams and events
    double enqueue_ms = 0;   ///< phase A enqueued (host side only: every tile's launches issued)
    double phase_a_ms = 0;   ///< phase A done: every tile uploaded and labelled, its border and
                             ///< first-pixel table back and turned into global indices, the seams
                             ///< of every finished pair of tiles computed (host work overlapped
                             ///< with the uploads of later tiles)
    double first_ms = 0;     ///< first-pixel tables of tiles that overflowed the device store
                             ///< (normally none: equal to phase_a_ms)
    double seams_ms = 0;     ///< seams left after phase A gathered into one list
    double resolve_ms = 0;   ///< resolve_tiles
    double maps_ms = 0;      ///< maps converted to the output type into pinned memory, uploaded
    double phase_c_ms = 0;   ///< every tile relabelled and downloaded (the host has waited)
    double release_ms = 0;   ///< device buffers, streams and events released; the total

    /// Time spent waiting in phase A for the device (the rest of phase A was host work).
    double a_wait_ms = 0;
    /// Host time of the per-tile work in phase A (borders, first tables, seams).
    double a_host_ms = 0;

    std::uint64_t tiles = 0;
    std::uint64_t local_labels = 0;    ///< sum of the tiles' label counts
    std::uint64_t seam_pairs = 0;      ///< label pairs over all seams
    std::uint64_t overflow_tiles = 0;  ///< tiles whose first table did not fit the device store
    std::uint64_t tables_copied = 0;   ///< tiles whose first table did not fit the host's mapped
                                       ///< buffer (the device writes the others there itself), so
                                       ///< that the host copied it back after the tile's event
    std::uint64_t regions = 0;
    bool maps_at_once = false;         ///< every map uploaded in one copy (else slot by slot)
    std::uint64_t early_tiles = 0;     ///< strips renumbered and downloaded during phase A
    std::uint64_t early_redone = 0;    ///< of those, strips whose early map was not the final one
                                       ///< (renumbered and downloaded again in phase C)
    bool early_broken = false;         ///< the early numbering stopped guessing (StripNumbering)
};

/// The streamed pipeline's switches: the public call takes the defaults, the benchmark and the
/// tests turn them.
struct StreamTuning {
    /// With full-width strips on one device, from a pinned picture into pinned labels: each strip
    /// is renumbered with core/strip_numbering.hpp's map and downloaded while later strips still
    /// upload, once the strips up to lag_rows below it are labelled and united, so that the
    /// downloads overlap the uploads. After the last strip, each early map is compared with
    /// resolve_tiles()'s and a strip whose map changed is renumbered and downloaded again. Off:
    /// every download waits for the last upload (as for any other tiling).
    bool early_downloads = true;
    /// How far below a strip's last row the strips must be united before its map is taken (0: as
    /// soon as the strip itself is). Regions meeting further down than this make the strip's map
    /// wrong: the strip is downloaded again, and the numbering stops guessing, so every later strip
    /// waits for the last upload as without early downloads. 3072: on the H200 (bench/RESULTS.md,
    /// 2026-12-04) the 800 dpi sheet in strips of 1024 rows held at 3072 and 4096 and broke at
    /// 1024 and 2048 (then taking the time of early downloads off).
    std::int64_t lag_rows = 3072;
};

}  // namespace cclabel::detail

namespace cclabel::cuda::detail {

/// cuda::label_tiled_streamed with a phase record filled in when @p profile is not null (the only
/// extra synchronisation is at the end of the allocations) and the switches of @p tuning. Same
/// checks and errors.
TiledResult label_tiled_streamed_profiled(const ImageView& image, std::uint32_t* out, const Options& options,
                                          std::int64_t tile_w, std::int64_t tile_h, const std::vector<int>& devices,
                                          cclabel::detail::TilesProfile* profile,
                                          const cclabel::detail::StreamTuning& tuning = {});
TiledResult label_tiled_streamed_profiled(const ImageView& image, std::uint64_t* out, const Options& options,
                                          std::int64_t tile_w, std::int64_t tile_h, const std::vector<int>& devices,
                                          cclabel::detail::TilesProfile* profile,
                                          const cclabel::detail::StreamTuning& tuning = {});

}  // namespace cclabel::cuda::detail
