#pragma once
// The CPU labeller's algorithm switches, and an entry point that takes them, so that the tests and
// the benchmark (bench/cclabel_time --cpu-off) can turn each idea off. Switches never change the
// labels, only the time. Internal: cclabel::label always runs with the defaults.
#include <cstdint>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::cpu {

/// Each idea of the CPU labeller that is a choice between algorithms, as a switch. All default on
/// (what cclabel::label uses); bench/cclabel_time --cpu-off NAME turns one off.
struct Switches {
    /// Numbering compares the provisional labels of each stretchy row where at least half the
    /// pixels took the label above in the scan with the row above's (kept in a row buffer): a pixel
    /// whose label equals the one above it takes the number just written there, eight pixels at a
    /// time, so runs cost nothing at their ends; the rest go one by one. Off: such rows are
    /// numbered run by run (a scalar first pixel, then simd::replace_run). AVX2 only.
    bool number_from_above = true;
    /// The scan decides whether a row is "stretchy" (mostly long stretches: branches) or noisy
    /// (branch-free table) from the row before: a stretchy row counts its own breaks while it is
    /// walked, so the separate pass that counts them (stretch_breaks) runs only after noisy rows.
    /// Off: every row is counted by its own pass first.
    bool predict_stretchy = true;
    /// On a row predicted stretchy (needs predict_stretchy) after a row where at least half the
    /// pixels took the label above (not noise, whose stretches open labels), the scan computes no
    /// row of 5-bit codes: one bit a pixel says "same key as the pixel above" (and one
    /// "background"), a 32-bit compare and a movemask for eight pixels (for RGB8 in the same pass
    /// that decodes the row); stretches of ones are found a word at a time and copy the labels
    /// above, and only the pixels between them compute their code and go through the table. Off:
    /// the row of codes is computed first for every row.
    bool up_mask_scan = true;
    /// In up_mask_scan's rows, after a pixel that went through the table, the pixels that follow
    /// with their left neighbour's key and neither the key above nor above-right (the top edges of
    /// strokes) take the left label in a short loop of their own, without a code or the table.
    bool left_runs = true;
    /// Pictures whose sampled rows average at least 4 pixels a run (drawings, masks; 64 rows sampled)
    /// are labelled as runs (src/cpu/run_rows.hpp): the scan keeps each row as runs (a start and a
    /// union-find entry each, outside the label image) and unites them with the touching runs above;
    /// one pass then numbers the runs and writes every label once. The label image is written once
    /// and never read, instead of written, read and rewritten. Off: the pixel scan above.
    bool run_length = true;
    /// Binary8 pictures take run_length's path whatever their run length (noise too), with a scan
    /// of their own (src/cpu/binary_runs.hpp): 32 pixels a compare into foreground bits, run starts
    /// by bit scans, and runs whose keys are their parity, so the joins compare no keys. Off:
    /// masks are scanned as any other picture (noise then takes the pixel scan).
    bool binary_runs = true;
    /// run_length's write pass stores the labels with non-temporal stores (rows that start on 16
    /// bytes, AVX2) when the label image holds at least stream_min_bytes: written once and not read
    /// back by the labeller, its cache lines need not be fetched before they are overwritten, which
    /// halves the memory traffic of the write. Smaller images stay in the cache for the caller.
    /// Off: plain stores.
    bool stream_stores = true;
    std::uint64_t stream_min_bytes = std::uint64_t(16) << 20;
    /// In run_length's scan, a run with the same start, end and key as a run above takes that
    /// run's parent, and so do the runs after it that repeat the row above, up to eight found by
    /// one vector compare (the rest of the row's runs walk the runs above one by one). Off: one
    /// run at a time.
    bool run_blocks = true;
    /// In run_length's scan, the runs above that touch a run (up to eight) are compared with it
    /// at once (one vector compare of their starts and keys, a bit mask of matches): a run with
    /// one match takes that run's parent with no root search; only two matches or more unite.
    /// Off: the runs above are walked one by one, each match looked up to its root.
    bool run_masks = true;
    /// Pixel path (not run_length's, where it measured slower), with several threads: the picture
    /// is cut into a few bands a thread (bands_per_thread, bands of at least min_band_rows rows),
    /// which the threads take in turn as they finish
    /// one (a shared counter), in the scan and again in the numbering: a thread slowed by another
    /// job on its core leaves more of the picture to the others instead of holding them all up.
    /// Off: one band a thread.
    bool shared_bands = true;
    /// shared_bands: bands a thread, and the fewest rows a band may have (a band's first row has
    /// no row above to predict from, and every band seam is merged by one thread).
    int bands_per_thread = 4;
    std::int64_t min_band_rows = 32;
};

/// cclabel::label on the CPU backend with explicit switches (for the benchmark); returns N.
std::uint32_t label(const ImageView& image, std::uint32_t* out, const Options& options, const Switches& switches);

}  // namespace cclabel::cpu
