// The CPU volume labeller: runs of one key along x, union-find over runs, numbering in raster
// order, over z-slabs on several threads.
//
//   1. Scan (a slab a thread). Each row (y, z) of the slab is cut into runs of one key
//      (volume_runs.hpp); each run joins the runs of its key in the earlier neighbouring rows of the
//      slab that touch it under the connectivity (6, 18 or 26). A run's id is the slab's first voxel
//      index plus the run's index in the slab: ids grow in raster order of the runs' first voxels
//      across slabs without counting the runs first. Unions hang the larger root under the smaller
//      (min-linking), so every set is rooted at its first run in raster order. Afterwards the slab
//      counts the roots of each row.
//   2. Seams (one thread). The runs of each slab's first slice join the runs of the slice before it
//      (the last of the slab before) as in the scan, through read-only finds that cross slabs; every
//      root hung here is taken off its row's count and pointed straight at its final root, and those
//      final roots get their numbers: the slab's first number (a prefix over the counts) plus the
//      roots before them in their slab (band_numbering.hpp does the same for pictures, by pixels).
//   3. Number and write (a slab a thread). In raster order a root takes the next number and any
//      other run its parent's number, which comes earlier (in the slab, or a final root of an
//      earlier slab); the labels of each row are written once.
// Every choice depends on the volume only, so the labels are the same for every thread count; they
// equal cc3d's connected_components, which numbers in the same order.
#include "core/env_list.hpp"
#include "cpu/label3d_cpu.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "cpu/band_phases.hpp"
#include "cpu/row_keys.hpp"
#include "cpu/volume_bits.hpp"
#include "cpu/volume_runs.hpp"
#include "cpu/volume_seams.hpp"
#include "cpu/volume_tiles.hpp"
#include "cpu/volume_voxels.hpp"

namespace cclabel::cpu {
namespace {

/// The volume labeller's ideas that are a choice between algorithms, as switches that never
/// change the labels. Internal: the benchmark turns them off through the environment variable
/// CCLABEL_VOLUME_OFF (names separated by commas), read on each call.
struct VolumeSwitches {
    /// Volumes whose sampled rows average fewer than kVoxelRunLength voxels a run (32 without a
    /// background) are scanned voxel by voxel (cpu/volume_voxels.hpp) instead of as runs.
    bool voxels = true;
    /// Volumes of long runs are scanned as runs (volume_runs.hpp). Off: voxel by voxel everywhere.
    bool runs = true;
    /// The voxel scan gives a voxel whose code equals its left neighbour's (and has its key) the
    /// left label at once, a stretch at a time (volume_voxels.hpp). Off: every voxel by the table.
    bool stretches = true;
    /// The run scan finds the runs of Gray8 and Binary8 rows 32 voxels a compare, in place
    /// (volume_runs.hpp, AVX2). Off: through a row of keys, voxel by voxel.
    bool byte_runs = true;
    /// The voxel scan visits only the foreground of rows of sparse noise (60% background or more),
    /// found 64 voxels at a time (volume_voxels.hpp). Off: a branch or a select on each voxel.
    bool fg_bits = true;
    /// Volumes of one foreground key (Binary8; Gray8 with a background and one other value) are
    /// scanned as bit masks of rows, runs found with count-trailing-zeros and the runs of earlier
    /// rows that touch a run found with popcounts (volume_bits.hpp). Off: the voxel or run scan.
    bool bits = true;
    /// Under 18 and 26, the voxel scan's rows whose voxels mostly take the left label with no
    /// union (left and behind equal) label only the others through the table, the rest 8 at a
    /// time (volume_voxels.hpp). Off: such rows as the others.
    bool easy = true;
    /// The voxel scan's last pass renumbers 8 voxels a gather (AVX2). Off: a voxel at a time.
    bool gather = true;
    /// The run scans write each run and gap 8 labels a store (fill8). Off: a label at a time.
    bool wide_fill = true;
    /// Volumes without a background that the run scan would take (and under 6 those of
    /// kTiledRunLength6 voxels a run or more: label volumes) are scanned as runs that tile each
    /// row (volume_tiles.hpp). Off: the voxel scan or the run scan, by run length as before.
    bool tiles = true;
    /// In the tiled scan under 18 and 26, a run whose run behind has its key and covers it takes
    /// that run's set without looking at the other rows (volume_tiles.hpp). Off: every row.
    bool tiles_cover = true;
    /// The voxel scan's rows of sparse noise (60% background or more) visit their foreground only
    /// (fg_bits) even where the easy rows or the stretches would take them (volume_voxels.hpp).
    /// Off: easy rows and stretches first.
    bool sparse_first = true;
    /// The voxel scan's rows of a later slice at least half of whose voxels have the key of the
    /// voxel behind and need no union (behind_code: under 26 always, under 18 and 6 unless an
    /// equal neighbour is not yet in the set behind) copy the labels of the row behind
    /// (vectorised) and label only the others through the table (volume_voxels.hpp). Off: the
    /// easy rows, stretches and the table as before.
    bool behind = true;
    /// The behind rows (Switches::behind) copy and find the voxels that need the table in one
    /// pass over the rows of keys, and compute the codes of those voxels only; a row whose copy
    /// does not pay is coded in full, and the rows after it until one copies again (volume_voxels.hpp).
    /// Off: every row's codes first.
    bool fused_behind = true;
    /// Under 6, the behind rows' other voxels check both union slots of their table entry (an
    /// unused one names the source: a compare of a label with itself), not a loop of the entry's
    /// count, whose end these mixed voxels mispredict (volume_voxels.hpp). Off: the loop.
    bool fixed_hard = true;
    /// The voxel scan labels into a ring of two slices and stores each row in the label volume
    /// when it is done, packed (a foreground mask and the foreground's ids) where at most half of
    /// it is foreground; the last pass unpacks those rows (volume_packed.hpp). Off: the scan labels
    /// in the label volume, which the last pass reads back whole.
    bool packed_rows = true;
    /// In volumes of mostly background, the voxel scan's rows of sparse noise whose neighbouring
    /// rows have one foreground value take each foreground voxel's code from bit masks of the rows
    /// (volume_masks.hpp): no row of codes, no pass to find the foreground. Off: codes for every voxel.
    bool mask_codes = true;
    /// A volume scanned as one slab (one thread) counts no roots per row after its scan (a pass
    /// over every id): they number the slabs after the first and the roots that the seams reach,
    /// and one slab has neither; N is the numbering's last number. Off: counted for every slab.
    bool no_row_roots = true;
    /// The scans' work arrays of 4 MiB or more (runs, the voxel scan's forest) on 2 MiB pages
    /// (vol::U32Array::huge). Off: 4 KiB pages.
    bool huge_pages = true;
};

VolumeSwitches volume_switches() {
    VolumeSwitches sw;
    if (std::getenv("CCLABEL_VOLUME_OFF") == nullptr) return sw;
    auto has = [](const char* name) { return cclabel::detail::env_list_has("CCLABEL_VOLUME_OFF", name); };
    sw.voxels = !has("voxels");
    sw.runs = !has("runs");
    sw.stretches = !has("stretches");
    sw.byte_runs = !has("byte_runs");
    sw.fg_bits = !has("fg_bits");
    sw.bits = !has("bits");
    sw.easy = !has("easy");
    sw.gather = !has("gather");
    sw.wide_fill = !has("wide_fill");
    sw.tiles = !has("tiles");
    sw.tiles_cover = !has("tiles_cover");
    sw.sparse_first = !has("sparse_first");
    sw.behind = !has("behind");
    sw.fused_behind = !has("fused_behind");
    sw.fixed_hard = !has("fixed_hard");
    sw.packed_rows = !has("packed_rows");
    sw.mask_codes = !has("mask_codes");
    sw.no_row_roots = !has("no_row_roots");
    sw.huge_pages = !has("huge_pages");
    return sw;
}

using vol::RowRuns;

/// The slices [z0, z1) of a volume, and their runs.
struct Slab {
    static constexpr std::uint32_t kFirst = 0;  ///< the first run's id is base (volume_seams.hpp)
    std::int64_t z0 = 0, z1 = 0;
    std::uint32_t base = 0;  ///< id of the slab's first run: the index of its first voxel
    std::uint32_t runs = 0;
    std::vector<std::uint32_t> row_begin;  ///< per row of the slab, the index of its first run; then runs
    vol::U32Array x0, x1, key;
    /// Parent ids, then (numbering) labels. A parent in another slab is a final root (seams).
    vol::U32Array parent;
    std::vector<std::uint32_t> row_roots;  ///< roots per row, after the scan and the seams
    std::uint32_t first_label = 0;
    /// Whether the scan counts row_roots (Switches::no_row_roots: not in a volume's only slab,
    /// whose numbering's last number, last_label, is N).
    bool count_roots = true;
    std::uint32_t last_label = 0;

    RowRuns row(std::int64_t local_row) const {
        const std::uint32_t b = row_begin[std::size_t(local_row)], e = row_begin[std::size_t(local_row) + 1];
        return RowRuns{x0.data() + b, x1.data() + b, key.data() + b, e - b, base + b};
    }
};

using vol::SlabForest;

template <PixelFormat F, int Conn>
void scan_slab(const detail::VolumeRequest& r, Slab& s, const VolumeSwitches& sw) {
    static constexpr auto offs = vol::earlier_rows<Conn>();
    const auto w = std::uint32_t(r.width);
    const std::int64_t h = r.height;
    const std::int64_t rows = (s.z1 - s.z0) * h;
    std::vector<std::uint32_t> keys(w);
    s.row_begin.assign(std::size_t(rows) + 1, 0);
    // Room for a run a voxel, allocated once: pages that no run reaches are never touched.
    const std::size_t most = std::size_t(rows) * w;
    for (vol::U32Array* a : {&s.x0, &s.x1, &s.key, &s.parent}) a->reserve_more(0, most);
    std::uint32_t used = 0;
    for (std::int64_t z = s.z0; z < s.z1; ++z) {
        for (std::int64_t y = 0; y < h; ++y) {
            const std::int64_t lr = (z - s.z0) * h + y;
            std::uint32_t n = 0;
            bool cut = false;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
            if constexpr (F == PixelFormat::Gray8 || F == PixelFormat::Binary8) {
                static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi");
                if (avx2 && sw.byte_runs) {
                    n = vol::cut_runs_bytes_avx2(r.row(z, y), w, F == PixelFormat::Binary8, r.has_background,
                                                 r.background_key, s.x0.data() + used, s.x1.data() + used,
                                                 s.key.data() + used);
                    cut = true;
                }
            }
#endif
            if (!cut) {
                load_row_keys<F>(r.row(z, y), w, keys.data());
                n = vol::cut_runs(keys.data(), w, r.has_background, r.background_key, s.x0.data() + used,
                                  s.x1.data() + used, s.key.data() + used);
            }
            s.row_begin[std::size_t(lr)] = used;
            s.row_begin[std::size_t(lr) + 1] = used + n;
            std::array<RowRuns, offs.size()> nb{};
            for (std::size_t i = 0; i < offs.size(); ++i) {
                const std::int64_t nz = z + offs[i].dz, ny = y + offs[i].dy;
                if (nz >= s.z0 && ny >= 0 && ny < h) nb[i] = s.row((nz - s.z0) * h + ny);
            }
            const SlabForest f{s.parent.data(), s.base};
            std::uint32_t* parent = s.parent.data();
            const std::uint32_t id0 = s.base + used;
            std::uint32_t root = 0;  // the root of the current run's set (always a root)
            vol::sweep<Conn>(
                s.row(lr), nb,
                [&](std::uint32_t c) {
                    root = id0 + c;
                    parent[used + c] = root;
                },
                [&](std::uint32_t, std::uint32_t other) { root = f.join(root, other); },
                [&](std::uint32_t c) { parent[used + c] = root; });
            used += n;
        }
    }
    s.runs = used;
    vol::count_row_roots(s, rows);
}

/// Step 1 for a volume without a background (volume_tiles.hpp): every row is tiled by its runs.
template <PixelFormat F, int Conn>
__attribute__((always_inline)) inline void scan_slab_tiled_body(const detail::VolumeRequest& r, Slab& s,
                                                                const VolumeSwitches& sw, bool avx2) {
    static constexpr auto offs = vol::earlier_rows<Conn>();
    const auto w = std::uint32_t(r.width);
    const std::int64_t h = r.height;
    const std::int64_t rows = (s.z1 - s.z0) * h;
    std::vector<std::uint32_t> keys;
    s.row_begin.assign(std::size_t(rows) + 1, 0);
    const std::size_t most = std::size_t(rows) * w;
    for (vol::U32Array* a : {&s.x0, &s.x1, &s.key, &s.parent}) a->reserve_more(0, most);
    (void)avx2;
    const vol::SlabForest f{s.parent.data(), s.base};
    // Start bits of the rows of two slices, row (y, z) at slot (z % 2) * h + y: they stay in L2.
    const std::uint32_t words = (w + 63) / 64, stride = words + 1;
    std::vector<std::uint64_t> start(2 * std::size_t(h) * stride);
    std::vector<std::uint32_t> before(2 * std::size_t(h) * stride);
    auto slot = [&](std::int64_t z, std::int64_t y) { return std::size_t((z & 1) * h + y) * stride; };
    std::uint32_t used = 0;
    for (std::int64_t z = s.z0; z < s.z1; ++z) {
        for (std::int64_t y = 0; y < h; ++y) {
            const std::int64_t lr = (z - s.z0) * h + y;
            std::uint32_t* x0 = s.x0.data() + used;
            std::uint32_t* x1 = s.x1.data() + used;
            std::uint32_t* key = s.key.data() + used;
            std::uint32_t n;
            if constexpr (F == PixelFormat::U32) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
                if (avx2)
                    n = tiles::cut_u32_avx2(r.row(z, y), w, x0, x1, key);
                else
#endif
                    n = tiles::cut_u32_plain(r.row(z, y), w, x0, x1, key);
            } else if constexpr (F == PixelFormat::Gray8) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
                if (avx2)
                    n = vol::cut_runs_bytes_avx2(r.row(z, y), w, false, false, 0, x0, x1, key);
                else
#endif
                {
                    keys.resize(w);
                    load_row_keys<F>(r.row(z, y), w, keys.data());
                    n = vol::cut_runs(keys.data(), w, false, 0, x0, x1, key);
                }
            } else {
                keys.resize(w);
                load_row_keys<F>(r.row(z, y), w, keys.data());
                n = vol::cut_runs(keys.data(), w, false, 0, x0, x1, key);
            }
            s.row_begin[std::size_t(lr)] = used;
            s.row_begin[std::size_t(lr) + 1] = used + n;
            tiles::mark_starts(x0, n, words, start.data() + slot(z, y), before.data() + slot(z, y));
            std::array<RowRuns, offs.size()> nb{};
            std::array<tiles::StartBits, offs.size()> bits{};
            for (std::size_t i = 0; i < offs.size(); ++i) {
                const std::int64_t nz = z + offs[i].dz, ny = y + offs[i].dy;
                if (nz >= s.z0 && ny >= 0 && ny < h) {
                    nb[i] = s.row((nz - s.z0) * h + ny);
                    bits[i] = tiles::StartBits{start.data() + slot(nz, ny), before.data() + slot(nz, ny)};
                }
            }
            tiles::join_row<Conn>(s.row(lr), nb, bits, w, f, sw.tiles_cover);
            used += n;
        }
    }
    s.runs = used;
    vol::count_row_roots(s, rows);
}

template <PixelFormat F, int Conn>
void scan_slab_tiled_plain(const detail::VolumeRequest& r, Slab& s, const VolumeSwitches& sw) {
    scan_slab_tiled_body<F, Conn>(r, s, sw, false);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// With popcount (without it GCC calls a library popcount for the start bits' ranks).
template <PixelFormat F, int Conn>
__attribute__((target("avx2,bmi,popcnt"))) void scan_slab_tiled_avx2(const detail::VolumeRequest& r, Slab& s,
                                                                      const VolumeSwitches& sw) {
    scan_slab_tiled_body<F, Conn>(r, s, sw, true);
}
#endif

template <PixelFormat F, int Conn>
void scan_slab_tiled(const detail::VolumeRequest& r, Slab& s, const VolumeSwitches& sw) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool fast = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                             __builtin_cpu_supports("popcnt");
    if (fast) return scan_slab_tiled_avx2<F, Conn>(r, s, sw);
#endif
    scan_slab_tiled_plain<F, Conn>(r, s, sw);
}

using vol::ExternalRoots;
using Forests = vol::Forests<Slab>;

/// Step 2 of the file's comment; returns N.
template <int Conn>
std::uint32_t join_seams(const detail::VolumeRequest& r, std::vector<Slab>& slabs, ExternalRoots& ext) {
    static constexpr auto offs = vol::earlier_rows<Conn>();
    const Forests forests{slabs};
    const std::int64_t h = r.height;
    std::vector<std::uint32_t> hung;
    for (std::size_t si = 1; si < slabs.size(); ++si) {
        const Slab& s = slabs[si];
        const Slab& before = slabs[si - 1];
        const std::int64_t last = (before.z1 - before.z0 - 1) * h;  // local row of the slice before's row 0
        for (std::int64_t y = 0; y < h; ++y) {
            std::array<RowRuns, offs.size()> nb{};
            for (std::size_t i = 0; i < offs.size(); ++i) {
                const std::int64_t ny = y + offs[i].dy;
                if (offs[i].dz == -1 && ny >= 0 && ny < h) nb[i] = before.row(last + ny);
            }
            const RowRuns cur = s.row(y);
            std::uint32_t last_a = 0, last_b = 0;  // the pair just united: touching runs repeat it
            vol::sweep<Conn>(
                cur, nb, [](std::uint32_t) {},
                [&](std::uint32_t c, std::uint32_t other) {
                    const std::uint32_t id = cur.id0 + c;
                    if (id == last_a && other == last_b) return;
                    last_a = id, last_b = other;
                    std::uint32_t a = forests.find_readonly(id), b = forests.find_readonly(other);
                    if (a == b) return;
                    if (a < b) std::swap(a, b);
                    forests.parent(a) = b;
                    hung.push_back(a);
                },
                [](std::uint32_t) {});
        }
    }
    return vol::settle_seams(forests, hung, ext);
}

/// Writes @p v at o[from, to) 8 at a time, stores running past @p to up to @p w (the row's end):
/// the row is written left to right, so what follows is overwritten. Returns @p to. Short runs
/// (noise, the edges of blobs) then cost one store, not a loop whose end mispredicts.
inline std::uint32_t fill8(std::uint32_t* o, std::uint32_t from, std::uint32_t to, std::uint32_t v, std::uint32_t w) {
    const std::uint32_t v8[8] = {v, v, v, v, v, v, v, v};
    for (; from < to; from += 8) {
        if (from + 8 > w) {
            std::fill(o + from, o + to, v);
            break;
        }
        std::memcpy(o + from, v8, sizeof v8);
    }
    return to;
}

/// Step 3: numbers the slab's runs in raster order and writes its voxels' labels; @p wide: with
/// fill8 (Switches::wide_fill).
void number_and_write(const detail::VolumeRequest& r, Slab& s, const ExternalRoots& ext, std::uint32_t* out, bool wide) {
    const auto wr = std::uint32_t(r.width);
    const auto w = std::uint64_t(r.width);
    const std::int64_t h = r.height;
    std::uint32_t n = s.first_label;
    std::uint32_t* lab = s.parent.data();
    for (std::int64_t lr = 0; lr < (s.z1 - s.z0) * h; ++lr) {
        std::uint32_t* o = out + (std::uint64_t(s.z0 * h + lr)) * w;
        std::uint32_t x = 0;
        for (std::uint32_t i = s.row_begin[std::size_t(lr)]; i < s.row_begin[std::size_t(lr) + 1]; ++i) {
            const std::uint32_t p = lab[i], id = s.base + i;
            std::uint32_t l;
            if (p == id)
                l = ++n;
            else if (p >= s.base)
                l = lab[p - s.base];
            else
                l = ext.number_of(p);
            lab[i] = l;
            const std::uint32_t a = s.x0[i], b = std::uint32_t(s.x1[i]);
            if (wide) {
                x = fill8(o, x, a, 0, wr);
                x = fill8(o, a, b, l, wr);
            } else {
                for (; x < a; ++x) o[x] = 0;
                for (; x < b; ++x) o[x] = l;
            }
        }
        for (; x < w; ++x) o[x] = 0;
    }
    s.last_label = n;
}

/// Average voxels a run below which the voxel-wise scan wins (bench/volume_cpu.py): the run scan
/// leaves background runs out, so with a background it wins from shorter runs (blobs) than
/// without (cells of label volumes, where every run is swept against four rows).
/// Under 26 the voxel scan's easy rows (left and behind equal) make the inside of cells cheap:
/// Voronoi cells of about 40 voxels a run (2,000 in 512^3) took 403 ms as runs, 361 voxel by voxel
/// (6 and 18: within 3%), so 26 keeps the voxel scan up to 48 voxels a run.
/// Without a background the tiled run scan (Switches::tiles) takes every volume the run scan
/// would, and under 6 also rows averaging kTiledRunLength6 voxels a run or more: Voronoi cells of
/// 14 voxels a run took 62-63 ms tiled, 69-72 voxel by voxel (256^3); under 18 and 26 the voxel
/// scan stays faster there (tiled: 85 and 66 ms; voxels 61 and 50).
constexpr double kTiledRunLength6 = 8.0;
constexpr double kVoxelRunLength = 8.0, kVoxelRunLengthNoBackground = 32.0, kVoxelRunLengthNoBackground26 = 48.0;

/// Calls @p fn(keys) with the keys of each of up to 64 rows spread through the volume (the samples
/// the scan's choices are made from); returns the rows sampled.
template <PixelFormat F, class Fn>
std::int64_t each_sampled_row(const detail::VolumeRequest& r, Fn&& fn) {
    const auto w = std::uint32_t(r.width);
    const std::int64_t rows = r.height * r.depth;
    const std::int64_t samples = std::min<std::int64_t>(rows, 64);
    std::vector<std::uint32_t> keys(w);
    for (std::int64_t i = 0; i < samples; ++i) {
        const std::int64_t row = (2 * i + 1) * rows / (2 * samples);
        load_row_keys<F>(r.row(row / r.height, row % r.height), w, keys.data());
        fn(keys);
    }
    return samples;
}

/// Average run length (background runs included) over the sampled rows.
template <PixelFormat F>
double sampled_run_length(const detail::VolumeRequest& r) {
    std::uint64_t runs = 0;
    const std::int64_t samples = each_sampled_row<F>(r, [&](const std::vector<std::uint32_t>& keys) {
        std::uint32_t changes = 0;
        for (std::size_t x = 1; x < keys.size(); ++x) changes += keys[x] != keys[x - 1];
        runs += changes + 1;
    });
    return double(samples) * double(r.width) / double(runs);
}

/// Background voxels per voxel over the sampled rows (0 without a background).
template <PixelFormat F>
double sampled_background(const detail::VolumeRequest& r) {
    if (!r.has_background) return 0.0;
    std::uint64_t bg = 0;
    const std::int64_t samples = each_sampled_row<F>(r, [&](const std::vector<std::uint32_t>& keys) {
        for (const std::uint32_t k : keys) bg += k == r.background_key;
    });
    return double(bg) / (double(samples) * double(r.width));
}

/// Switches::packed_rows takes volumes whose sampled voxels are at least this much background:
/// its ring costs a copy of every row that is not packed (binary 0.5 and 0.9 at 6: +5 ms of 97
/// and 36), and on binary 0.3 (70% background) the packing and unpacking of 30% foreground cost
/// more than the pass they save (6: 61.3 -> 62.6 ms); binary 0.1 gains 0-2 ms at 6, 2 at 18 and 26.
constexpr double kPackedBackground = 0.8;
/// Switches::mask_codes takes volumes whose sampled voxels are at least this much background (the
/// scan's sparse rows: its masks cost a pass over every row): binary 0.1 at 6 27.6 -> 23.9 ms, at
/// 26 36.2 -> 27.4 (with packed_rows); binary 0.3 at 6 about 1 ms of 61.
constexpr double kMaskBackground = 0.6;
constexpr std::uint64_t kPackedPlane = std::uint64_t(1) << 20;

/// N from the seams' step (@p total), or from the numbering of a volume's only slab where it
/// counted no roots (Switches::no_row_roots).
template <typename S>
std::uint32_t slabs_total(const std::vector<S>& slabs, std::uint32_t total) {
    return slabs.size() == 1 && !slabs[0].count_roots ? slabs[0].last_label : total;
}

template <PixelFormat F, int Conn>
std::uint32_t label_voxels(const detail::VolumeRequest& r, std::uint32_t* out, const VolumeSwitches& sw) {
    const double bg = sw.packed_rows || sw.mask_codes ? sampled_background<F>(r) : 0.0;
    // The ring and the staged slice of packed_rows take three slices of labels a slab: only
    // slices of up to kPackedPlane voxels (1024^2: 12 MiB a slab).
    const bool small_plane = std::uint64_t(r.width) * std::uint64_t(r.height) <= kPackedPlane;
    const bool packed_rows = sw.packed_rows && small_plane && bg >= kPackedBackground;
    const bool mask_codes = sw.mask_codes && bg >= kMaskBackground;
    const int ns = int(std::min<std::int64_t>(r.threads, r.depth));
    std::vector<vox::VoxelSlab> slabs(static_cast<std::size_t>(ns));
    const std::uint64_t plane = std::uint64_t(r.width) * std::uint64_t(r.height);
    for (int i = 0; i < ns; ++i) {
        vox::VoxelSlab& s = slabs[std::size_t(i)];
        s.z0 = r.depth * i / ns;
        s.z1 = r.depth * (i + 1) / ns;
        s.base = std::uint32_t(std::uint64_t(s.z0) * plane);
        s.count_roots = !(sw.no_row_roots && ns == 1);
        s.parent.huge = sw.huge_pages;
    }
    vox::ExternalRoots ext;
    std::uint32_t total = 0;
    band_phases(
        r.threads, ns,
        [&](int i) {
            vox::VoxelSlab& s = slabs[std::size_t(i)];
            if constexpr (F == PixelFormat::U32) {
                // U32 rows are compared in place where every row is 4-byte aligned.
                if (reinterpret_cast<std::uintptr_t>(r.data) % 4 == 0 && r.row_stride % 4 == 0 && r.slice_stride % 4 == 0)
                    return vox::scan_slab<F, Conn, true>(r, s, out, sw.stretches, sw.fg_bits, sw.easy, sw.sparse_first, sw.behind, sw.fused_behind, sw.fixed_hard, packed_rows, mask_codes);
            }
            vox::scan_slab<F, Conn, F == PixelFormat::Gray8>(r, s, out, sw.stretches, sw.fg_bits, sw.easy, sw.sparse_first, sw.behind, sw.fused_behind, sw.fixed_hard, packed_rows, mask_codes);
        },
        [&]() noexcept { total = vox::join_seams<F, Conn>(r, slabs, out, ext); },
        [&](int i) { vox::number_slab(r, slabs[std::size_t(i)], ext, out, sw.gather); });
    return slabs_total(slabs, total);
}

/// The slabs of the run scans: a thread's share of the slices each.
std::vector<Slab> run_slabs(const detail::VolumeRequest& r, const VolumeSwitches& sw) {
    const int ns = int(std::min<std::int64_t>(r.threads, r.depth));
    std::vector<Slab> slabs(static_cast<std::size_t>(ns));
    const std::uint64_t plane = std::uint64_t(r.width) * std::uint64_t(r.height);
    for (int i = 0; i < ns; ++i) {
        Slab& s = slabs[std::size_t(i)];
        s.z0 = r.depth * i / ns;
        s.z1 = r.depth * (i + 1) / ns;
        s.base = std::uint32_t(std::uint64_t(s.z0) * plane);
        s.count_roots = !(sw.no_row_roots && ns == 1);
        for (vol::U32Array* a : {&s.x0, &s.x1, &s.key, &s.parent}) a->huge = sw.huge_pages;
    }
    return slabs;
}

/// The runs of a one-foreground volume from bit masks (volume_bits.hpp), then the run scan's seams
/// and numbering. Throws bits::NotBinary when a Gray8 volume has a second foreground value.
template <PixelFormat F, int Conn>
std::uint32_t label_bits(const detail::VolumeRequest& r, std::uint32_t* out, const VolumeSwitches& sw) {
    const bool binary8 = F == PixelFormat::Binary8;
    const std::uint8_t fg = binary8 ? 1 : bits::first_foreground(r);
    std::vector<Slab> slabs = run_slabs(r, sw);
    const int ns = int(slabs.size());
    ExternalRoots ext;
    std::uint32_t total = 0;
    band_phases(
        r.threads, ns, [&](int i) { bits::scan_slab<Conn>(r, slabs[std::size_t(i)], binary8, fg); },
        [&]() noexcept { total = join_seams<Conn>(r, slabs, ext); },
        [&](int i) { number_and_write(r, slabs[std::size_t(i)], ext, out, sw.wide_fill); });
    return slabs_total(slabs, total);
}

template <PixelFormat F, int Conn>
std::uint32_t label_impl(const detail::VolumeRequest& r, std::uint32_t* out) {
    const VolumeSwitches sw = volume_switches();
    const double voxel_runs = r.has_background ? kVoxelRunLength
                              : Conn == 26         ? kVoxelRunLengthNoBackground26
                                                   : kVoxelRunLengthNoBackground;
    const bool tiled = sw.runs && sw.tiles && !r.has_background;
    const double run_length = sw.runs && (sw.voxels || tiled) ? sampled_run_length<F>(r) : 0.0;
    // Under 6 the voxel scan's rows that copy the row behind (Switches::behind) beat the tiled scan
    // on Voronoi cells of 14 voxels a run (256^3: 47 against 61 ms), as under 18 and 26.
    const double tiled_runs = Conn == 6 && !sw.behind ? kTiledRunLength6 : voxel_runs;
    if (tiled && (run_length >= tiled_runs || !sw.voxels)) {
        std::vector<Slab> slabs = run_slabs(r, sw);
        ExternalRoots ext;
        std::uint32_t total = 0;
        band_phases(
            r.threads, int(slabs.size()), [&](int i) { scan_slab_tiled<F, Conn>(r, slabs[std::size_t(i)], sw); },
            [&]() noexcept { total = join_seams<Conn>(r, slabs, ext); },
            [&](int i) { number_and_write(r, slabs[std::size_t(i)], ext, out, sw.wide_fill); });
        return slabs_total(slabs, total);
    }
    if (sw.voxels && (!sw.runs || run_length < voxel_runs)) return label_voxels<F, Conn>(r, out, sw);
    if constexpr (F == PixelFormat::Binary8 || F == PixelFormat::Gray8) {
        if (sw.bits && r.has_background && r.width > 0) {
            try {
                return label_bits<F, Conn>(r, out, sw);
            } catch (const bits::NotBinary&) {
            }
        }
    }
    std::vector<Slab> slabs = run_slabs(r, sw);
    const int ns = int(slabs.size());
    ExternalRoots ext;
    std::uint32_t total = 0;
    band_phases(
        r.threads, ns, [&](int i) { scan_slab<F, Conn>(r, slabs[std::size_t(i)], sw); },
        [&]() noexcept { total = join_seams<Conn>(r, slabs, ext); },
        [&](int i) { number_and_write(r, slabs[std::size_t(i)], ext, out, sw.wide_fill); });
    return slabs_total(slabs, total);
}

}  // namespace

std::uint32_t label_volume(const detail::VolumeRequest& r, std::uint32_t* out) {
    return detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        switch (r.connectivity) {
            case 6: return label_impl<F, 6>(r, out);
            case 18: return label_impl<F, 18>(r, out);
            default: return label_impl<F, 26>(r, out);
        }
    });
}

}  // namespace cclabel::cpu
