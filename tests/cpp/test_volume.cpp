// label_volume against the 3-D flood fill (tests/reference/volume_flood_fill.hpp): random volumes
// of every format, shape and density, adversarial volumes (helices that join only through edges or
// corners, each of the 26 neighbour offsets alone, thin slabs, single slices and columns), thread
// counts, padded strides, and bad input.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "reference/volume_flood_fill.hpp"
#include "support/volume_data.hpp"

namespace cclabel {
namespace {

using test::volume_flood_fill;

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32,
                                    PixelFormat::RGB8,    PixelFormat::RGBA8, PixelFormat::I8,     PixelFormat::I16,
                                    PixelFormat::I32,     PixelFormat::I64,   PixelFormat::U64,    PixelFormat::F16,
                                    PixelFormat::F32,     PixelFormat::F64};
constexpr int kConnectivities[] = {6, 18, 26};

using NamedVolumes = std::vector<std::pair<std::string, test::Volume>>;

/// Calls @p check(volume, connectivity, threads, what) for each list of switches in @p offs turned
/// off through CCLABEL_VOLUME_OFF (as bench/volume_cpu.py --off does), each of @p vols, each
/// connectivity and each thread count of @p threads, until the first failure; the variable is
/// unset afterwards, however the loop ends.
template <class Offs, class Check>
void each_switches_off(const Offs& offs, NamedVolumes& vols, std::initializer_list<int> threads, Check&& check) {
    struct Unset {
        ~Unset() { unsetenv("CCLABEL_VOLUME_OFF"); }
    } unset;
    for (const char* off : offs) {
        ASSERT_EQ(setenv("CCLABEL_VOLUME_OFF", off, 1), 0);
        for (auto& [name, v] : vols)
            for (int conn : kConnectivities)
                for (int t : threads) {
                    check(v, conn, t, name + " off " + off);
                    if (::testing::Test::HasFailure()) return;
                }
    }
}

using test::background_zero;
using test::encode;
using test::helix;
using test::random_volume;
using test::Volume;

/// label_volume of @p v in format @p f equals the flood fill; returns the labels.
std::vector<std::uint32_t> expect_flood_fill(Volume& v, PixelFormat f, int conn, bool background, int threads = 1,
                                             std::int64_t row_pad = 0, std::int64_t slice_pad = 0,
                                             const std::string& what = "") {
    Options o;
    o.connectivity = conn;
    o.threads = threads;
    if (background) o = background_zero(f, o);
    const bool bg = background || f == PixelFormat::Binary8;
    std::uint32_t want_n = 0;
    const std::vector<std::uint32_t> want =
        volume_flood_fill(v.keys(f), v.w, v.h, v.d, conn, bg ? std::optional<std::uint64_t>(0) : std::nullopt, &want_n);
    std::vector<std::uint32_t> got(v.idx.size() + 1, 0xDEADBEEF);  // one guard value past the end
    const LabelResult r = label_volume(v.as(f, row_pad, slice_pad), got.data(), o);
    EXPECT_EQ(got.back(), 0xDEADBEEFu) << "wrote past the end";
    got.pop_back();
    const std::string at = std::string(format_name(f)) + " " + std::to_string(v.w) + "x" + std::to_string(v.h) + "x" +
                           std::to_string(v.d) + " conn " + std::to_string(conn) + " bg " + std::to_string(background) +
                           " threads " + std::to_string(threads) + " " + what;
    EXPECT_EQ(r.count, want_n) << at;
    EXPECT_EQ(r.backend, Backend::Cpu);
    EXPECT_EQ(got, want) << at;
    return got;
}

struct Shape {
    std::int64_t w, h, d;
};
constexpr Shape kShapes[] = {{1, 1, 1}, {1, 1, 9}, {9, 1, 1}, {1, 9, 1}, {5, 7, 3},
                             {17, 9, 11}, {33, 2, 5}, {2, 31, 4}, {64, 3, 2}, {13, 13, 13}};

TEST(VolumeRandom, EveryFormatShapeAndDensityMatchesFloodFill) {
    std::uint32_t seed = 0;
    for (PixelFormat f : kFormats)
        for (const Shape& s : kShapes)
            for (int palette : {2, 3, 16})
                for (int conn : kConnectivities)
                    for (bool bg : {false, true}) {
                        Volume v = random_volume(s.w, s.h, s.d, palette, palette == 2 ? 0.6 : 0.3, ++seed);
                        expect_flood_fill(v, f, conn, bg);
                        if (::testing::Test::HasFailure()) return;
                    }
}

TEST(VolumeRandom, DensitiesAroundPercolation) {
    std::uint32_t seed = 100;
    for (double density : {0.05, 0.2, 0.5, 0.69, 0.75, 0.8, 0.9, 0.97})
        for (int conn : kConnectivities) {
            Volume v = random_volume(21, 19, 17, 2, density, ++seed);
            expect_flood_fill(v, PixelFormat::Binary8, conn, true);
            expect_flood_fill(v, PixelFormat::Gray8, conn, false);
        }
}

TEST(VolumeThreads, SameLabelsForEveryThreadCount) {
    std::uint32_t seed = 200;
    for (const Shape& s : {Shape{23, 17, 29}, Shape{40, 3, 7}, Shape{5, 6, 2}, Shape{64, 64, 9}})
        for (int conn : kConnectivities)
            for (int palette : {2, 4})
                for (bool bg : {false, true}) {
                    Volume v = random_volume(s.w, s.h, s.d, palette, palette == 2 ? 0.5 : 0.25, ++seed);
                    const std::vector<std::uint32_t> one = expect_flood_fill(v, PixelFormat::Gray8, conn, bg, 1);
                    for (int t : {2, 3, 7, 0}) EXPECT_EQ(expect_flood_fill(v, PixelFormat::Gray8, conn, bg, t), one);
                }
}

TEST(VolumeThreads, OneRegionAcrossEverySlabSeam) {
    // All foreground: one region whatever the slabs; and a region that only joins in the last
    // slab, so that every seam hangs roots under a root of an earlier slab.
    for (int conn : kConnectivities)
        for (int t : {1, 2, 3, 7}) {
            Volume full(6, 5, 14);
            for (auto& i : full.idx) i = 1;
            expect_flood_fill(full, PixelFormat::Gray8, conn, true, t);
            Volume comb(9, 3, 14);
            for (std::int64_t z = 0; z < 14; ++z)
                for (std::int64_t x = 0; x < 9; x += 2) comb.at(x, 1, z) = 1;  // teeth along z
            for (std::int64_t x = 0; x < 9; ++x) comb.at(x, 1, 13) = 1;       // joined in the last slice
            expect_flood_fill(comb, PixelFormat::Gray8, conn, true, t);
        }
}

TEST(VolumeStrides, PaddedRowsAndSlices) {
    std::uint32_t seed = 300;
    for (PixelFormat f : kFormats)
        for (int conn : kConnectivities) {
            Volume v = random_volume(11, 6, 5, 3, 0.3, ++seed);
            expect_flood_fill(v, f, conn, true, 1, 5, 3, "row pad 5, slice pad 3");
            expect_flood_fill(v, f, conn, false, 2, 0, 17, "slice pad 17");
            expect_flood_fill(v, f, conn, false, 3, 8, 0, "row pad 8");
        }
}

TEST(VolumeScans, RunsAndVoxelsEachMatchFloodFill) {
    // The labeller scans volumes of short runs voxel by voxel and the others as runs; each scan
    // alone (the other switched off through CCLABEL_VOLUME_OFF, as bench/volume_cpu.py does) must
    // label every kind of volume, on one thread and across slab seams.
    std::uint32_t seed = 400;
    Volume bars(37, 11, 13);  // long runs along x, joined through the slices
    for (std::int64_t z = 0; z < bars.d; ++z)
        for (std::int64_t y = 0; y < bars.h; ++y)
            for (std::int64_t x = 0; x < bars.w; ++x) bars.at(x, y, z) = ((x / 9 + y / 3 + z / 4) % 3 == 0) ? 0 : 1 + (y + z) % 2;
    for (const char* off : {"voxels", "runs", "runs,stretches"}) {
        ASSERT_EQ(setenv("CCLABEL_VOLUME_OFF", off, 1), 0);
        for (int conn : kConnectivities)
            for (int t : {1, 3}) {
                for (double density : {0.1, 0.5, 0.9}) {
                    Volume v = random_volume(19, 13, 11, 2, density, ++seed);
                    expect_flood_fill(v, PixelFormat::Binary8, conn, true, t, 0, 0, off);
                    Volume m = random_volume(19, 13, 11, 5, 0.0, ++seed);
                    expect_flood_fill(m, PixelFormat::Gray16, conn, false, t, 0, 0, off);
                }
                expect_flood_fill(bars, PixelFormat::Gray8, conn, true, t, 0, 0, off);
                expect_flood_fill(bars, PixelFormat::U32, conn, false, t, 0, 0, off);
            }
        ASSERT_EQ(unsetenv("CCLABEL_VOLUME_OFF"), 0);
    }
}

/// Rows of runs of random lengths (1 to @p longest voxels), alternately background (0) and one of
/// @p values foreground values, so that the run scans (and the binary scan, for one value) take
/// them and runs start and end on both sides of 64-voxel words.
Volume random_runs(std::int64_t w, std::int64_t h, std::int64_t d, int values, int longest, std::uint32_t seed) {
    Volume v(w, h, d);
    std::mt19937 rng(seed);
    for (std::int64_t z = 0; z < d; ++z)
        for (std::int64_t y = 0; y < h; ++y) {
            bool fg = rng() % 2;
            for (std::int64_t x = 0; x < w;) {
                const std::int64_t n = 1 + std::int64_t(rng() % std::uint32_t(longest));
                const std::uint32_t value = fg ? 1 + rng() % std::uint32_t(values) : 0;
                for (std::int64_t k = x; k < std::min(w, x + n); ++k) v.at(k, y, z) = value;
                x += n;
                fg = !fg;
            }
        }
    return v;
}

/// Voxels stepping (1, ±1, 0), (1, 0, ±1) or (1, ±1, ±1) along x: joined through edges or corners
/// only, across the words of the binary scan's rows.
Volume diagonal(std::int64_t w, int sy, int sz) {
    Volume v(w, 3, 3);
    for (std::int64_t x = 0; x < w; ++x) v.at(x, sy ? x % 2 : 1, sz ? x % 2 : 1) = 1;
    return v;
}

TEST(VolumeScans, EverySwitchGivesTheSameLabels) {
    // Every idea of the labeller that CCLABEL_VOLUME_OFF turns off (bench/volume_cpu.py --off)
    // must leave the labels as they are: the binary scan (bits) and the run scan for long runs,
    // the voxel scan and its row kinds (easy, stretches, fg_bits) and the last passes (gather,
    // wide_fill); binary and two-valued Gray8 volumes (the binary scan), three-valued ones (the
    // binary scan gives up on them, at any slice), widths on both sides of 64-voxel words, one
    // slice, one column, and every thread count from 1 to 5.
    const char* offs[] = {"",           "voxels",        "voxels,bits",      "voxels,wide_fill", "runs",
                          "runs,easy", "runs,gather",    "runs,fg_bits,stretches", "voxels,tiles",
                          "voxels,tiles_cover", "tiles", "runs,sparse_first", "runs,behind",
                          "runs,fused_behind", "runs,fixed_hard", "runs,packed_rows", "no_row_roots", "runs,no_row_roots", "huge_pages"};
    std::vector<std::pair<std::string, Volume>> vols;
    std::uint32_t seed = 500;
    for (std::int64_t w : {1, 2, 63, 64, 65, 130}) {
        vols.emplace_back("runs w" + std::to_string(w), random_runs(w, 5, 4, 1, 70, ++seed));
        vols.emplace_back("noise 0.2 w" + std::to_string(w), random_volume(w, 4, 5, 2, 0.2, ++seed));
        vols.emplace_back("noise 0.8 w" + std::to_string(w), random_volume(w, 4, 5, 2, 0.8, ++seed));
    }
    vols.emplace_back("edges xy", diagonal(131, 1, 0));
    vols.emplace_back("edges xz", diagonal(131, 0, 1));
    vols.emplace_back("corners", diagonal(131, 1, 1));
    vols.emplace_back("helix corners", helix(67, 5, 30, 1, 1));
    vols.emplace_back("helix edges", helix(65, 1, 30, 1, 0));
    vols.emplace_back("one slice", random_runs(129, 9, 1, 1, 40, ++seed));
    vols.emplace_back("one column", random_runs(1, 1, 17, 1, 3, ++seed));
    Volume late = random_runs(100, 6, 7, 1, 50, ++seed);  // a second value in the last slice only
    late.at(37, 4, 6) = 2;
    vols.emplace_back("second value late", late);
    vols.emplace_back("three values", random_runs(70, 6, 6, 2, 50, ++seed));
    each_switches_off(offs, vols, {1, 2, 3, 4, 5}, [](Volume& v, int conn, int t, const std::string& what) {
        expect_flood_fill(v, PixelFormat::Gray8, conn, true, t, 0, 0, what);
        if (t == 1 || t == 4) {
            expect_flood_fill(v, PixelFormat::Binary8, conn, true, t, 0, 0, what);
            expect_flood_fill(v, PixelFormat::Gray8, conn, false, t, 3, 0, what);
            expect_flood_fill(v, PixelFormat::U32, conn, false, t, 0, 0, what);
        }
    });
}

/// Cells of the nearest of @p count random seeds (a label volume with no background, as Voronoi
/// "connectomics" volumes): every row is tiled by runs of the cells it crosses.
Volume cells(std::int64_t w, std::int64_t h, std::int64_t d, int count, std::uint32_t seed) {
    Volume v(w, h, d);
    std::mt19937 rng(seed);
    std::vector<std::array<double, 3>> s(static_cast<std::size_t>(count));
    for (auto& p : s) p = {double(rng() % 1000) / 1000 * double(w), double(rng() % 1000) / 1000 * double(h), double(rng() % 1000) / 1000 * double(d)};
    for (std::int64_t z = 0; z < d; ++z)
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                std::size_t best = 0;
                double bd = 1e300;
                for (std::size_t i = 0; i < s.size(); ++i) {
                    const double dx = double(x) - s[i][0], dy = double(y) - s[i][1], dz = double(z) - s[i][2];
                    const double dd = dx * dx + dy * dy + dz * dz;
                    if (dd < bd) bd = dd, best = i;
                }
                v.at(x, y, z) = 1 + best % 7;  // few values: cells of one value meet through edges and corners
            }
    return v;
}

TEST(VolumeScans, BehindRowsMatchFloodFill) {
    // The voxel scan's rows that copy the labels of the row behind (Switches::behind, under 18 and
    // 26) and label only the other voxels through the table: dense noise of one and of several
    // values (under 18 the diagonals (x +- 1, y - 1, z) in another set than the voxel behind),
    // with and without a background, widths around the 64-voxel words of the masks, one-voxel-thin
    // volumes (one row, one column, one slice deep), a slab seam at every slice (threads 1 to 5).
    // "runs" off sends every volume to the voxel scan; each switch off must give the same labels.
    // Rows of 4-byte keys find the voxels to copy straight from the keys (fused_behind).
    std::vector<std::pair<std::string, Volume>> vols;
    std::uint32_t seed = 1300;
    for (std::int64_t w : {1, 2, 7, 63, 64, 65, 130})
        for (double density : {0.55, 0.7, 0.85, 0.95})
            for (int palette : {2, 3}) {
                const std::string name = "noise " + std::to_string(density) + " values " + std::to_string(palette) +
                                         " w" + std::to_string(w);
                vols.emplace_back(name, random_volume(w, 6, 7, palette, palette == 2 ? 1 - density : (1 - density) / 2, ++seed));
            }
    vols.emplace_back("thin y", random_volume(70, 1, 9, 2, 0.2, ++seed));
    vols.emplace_back("thin x", random_volume(1, 9, 9, 2, 0.2, ++seed));
    vols.emplace_back("one column", random_volume(1, 1, 30, 2, 0.3, ++seed));
    vols.emplace_back("one slice", random_volume(65, 9, 1, 2, 0.2, ++seed));
    vols.emplace_back("cells", cells(66, 10, 9, 6, ++seed));
    Volume full(67, 5, 6);  // one value: every voxel but the first slice's takes the voxel behind
    for (auto& i : full.idx) i = 1;
    vols.emplace_back("full", full);
    const char* offs[] = {"runs",          "runs,behind",         "runs,fused_behind", "runs,fixed_hard",
                          "runs,behind,easy", "runs,easy,stretches", "runs,sparse_first", "runs,packed_rows"};
    each_switches_off(offs, vols, {1, 2, 5}, [](Volume& v, int conn, int t, const std::string& what) {
        expect_flood_fill(v, PixelFormat::Gray8, conn, true, t, 0, 0, what);
        expect_flood_fill(v, PixelFormat::Gray8, conn, false, t, 0, 0, what);
        if (t == 1) {
            expect_flood_fill(v, PixelFormat::Binary8, conn, true, t, 0, 0, what);
            expect_flood_fill(v, PixelFormat::U32, conn, false, t, 0, 0, what);
            expect_flood_fill(v, PixelFormat::U32, conn, true, t, 2, 0, what);  // U32 through keys
        }
        // 4-byte keys (U32 in place, Gray16 through keys) take the fused pass under 18 and 26.
        expect_flood_fill(v, PixelFormat::U32, conn, true, t, 0, 0, what);
        expect_flood_fill(v, PixelFormat::Gray16, conn, t % 2 == 0, t, 0, 0, what);
    });
}

TEST(VolumeScans, SparseRowsMatchFloodFill) {
    // Volumes of mostly background take the voxel scan's packed rows (a ring of two slices, rows
    // stored as foreground masks and ids, unpacked by the last pass) and codes from bit masks of
    // the rows (mask_codes, only where the five rows have one foreground value): one value and two
    // (rows with a second value take the codes), a second value only from a late slice, a dense
    // slice in a sparse volume (its rows are stored as they are), widths around the 64-voxel
    // words, one-voxel-thin volumes, slab seams (threads 1 to 5), every format, each switch off.
    std::vector<std::pair<std::string, Volume>> vols;
    std::uint32_t seed = 1700;
    for (std::int64_t w : {1, 2, 7, 63, 64, 65, 130})
        for (double zeros : {0.65, 0.85, 0.95})
            for (int palette : {2, 3})
                vols.emplace_back("sparse " + std::to_string(zeros) + " values " + std::to_string(palette) + " w" + std::to_string(w),
                                  random_volume(w, 6, 7, palette, zeros, ++seed));
    Volume late = random_volume(70, 6, 8, 2, 0.9, ++seed);
    for (std::int64_t x = 0; x < late.w; x += 3) late.at(x, 2, 6) = 2;
    vols.emplace_back("second value late", late);
    Volume dense = random_volume(66, 5, 9, 2, 0.9, ++seed);
    for (std::int64_t y = 0; y < dense.h; ++y)
        for (std::int64_t x = 0; x < dense.w; ++x) dense.at(x, y, 4) = x % 5 != 0;
    vols.emplace_back("dense slice", dense);
    vols.emplace_back("thin y", random_volume(70, 1, 9, 2, 0.9, ++seed));
    vols.emplace_back("thin x", random_volume(1, 9, 9, 2, 0.8, ++seed));
    vols.emplace_back("one slice", random_volume(65, 9, 1, 2, 0.9, ++seed));
    const char* offs[] = {"runs", "runs,packed_rows", "runs,mask_codes", "runs,packed_rows,mask_codes",
                          "packed_rows"};
    each_switches_off(offs, vols, {1, 2, 5}, [](Volume& v, int conn, int t, const std::string& what) {
        expect_flood_fill(v, PixelFormat::Gray8, conn, true, t, 0, 0, what);
        if (t != 2) {
            expect_flood_fill(v, PixelFormat::Binary8, conn, true, t, 0, 0, what);
            expect_flood_fill(v, PixelFormat::U32, conn, true, t, 0, 0, what);
            expect_flood_fill(v, PixelFormat::Gray16, conn, true, t, 0, 0, what);
            expect_flood_fill(v, PixelFormat::U32, conn, true, t, 2, 0, what);  // U32 through keys
        }
    });
}

TEST(VolumeTiles, LabelVolumesWithoutBackgroundMatchFloodFill) {
    // The tiled run scan (volume_tiles.hpp) takes volumes without a background: runs that touch
    // both ends of rows, rows of one run, one-voxel-thin volumes, one slice or column, slab seams
    // (threads 1 to 5), the run-behind shortcut under 18 and 26 (tiles_cover), U32 rows read in
    // place at any alignment (row padding of 2 bytes) and the other formats through keys. "voxels"
    // off sends every volume (thin ones included) to it; "tiles" off is the run scan it replaced.
    std::vector<std::pair<std::string, Volume>> vols;
    std::uint32_t seed = 900;
    for (const Shape sh : {Shape{65, 9, 7}, Shape{130, 5, 9}, Shape{64, 8, 6}, Shape{1, 30, 20}, Shape{40, 1, 1},
                           Shape{1, 1, 40}, Shape{37, 23, 1}, Shape{33, 1, 17}})
        vols.emplace_back(std::to_string(sh.w) + "x" + std::to_string(sh.h) + "x" + std::to_string(sh.d),
                          cells(sh.w, sh.h, sh.d, 12, ++seed));
    Volume one(70, 6, 5);  // one value: every row a single run
    for (auto& i : one.idx) i = 3;
    vols.emplace_back("one value", one);
    Volume stripes(67, 7, 6);  // runs of 1 to 3 voxels: the cursors and ranks at every x
    for (std::int64_t z = 0; z < stripes.d; ++z)
        for (std::int64_t y = 0; y < stripes.h; ++y)
            for (std::int64_t x = 0; x < stripes.w; ++x) stripes.at(x, y, z) = 1 + std::uint64_t((x / (1 + (y + z) % 3) + y) % 2);
    vols.emplace_back("stripes", stripes);
    for (const char* off : {"", "voxels", "voxels,tiles_cover", "tiles"}) {
        ASSERT_EQ(setenv("CCLABEL_VOLUME_OFF", off, 1), 0);
        for (auto& [name, v] : vols)
            for (int conn : kConnectivities)
                for (int t : {1, 2, 3, 5}) {
                    const std::string what = name + " off " + off;
                    expect_flood_fill(v, PixelFormat::U32, conn, false, t, 0, 0, what);
                    if (t == 1 || t == 3) {
                        expect_flood_fill(v, PixelFormat::U32, conn, false, t, 2, 0, what);
                        expect_flood_fill(v, PixelFormat::Gray8, conn, false, t, 0, 0, what);
                        expect_flood_fill(v, PixelFormat::Gray16, conn, false, t, 0, 0, what);
                        expect_flood_fill(v, PixelFormat::I64, conn, false, t, 0, 0, what);
                        expect_flood_fill(v, PixelFormat::RGB8, conn, false, t, 0, 0, what);
                    }
                    if (::testing::Test::HasFailure()) {
                        unsetenv("CCLABEL_VOLUME_OFF");
                        return;
                    }
                }
    }
    ASSERT_EQ(unsetenv("CCLABEL_VOLUME_OFF"), 0);
}

// --- adversarial volumes ----------------------------------------------------------------------

TEST(VolumeAdversarial, EachNeighbourOffsetAlone) {
    // Two voxels at (2, 2, 2) and (2, 2, 2) + offset in a 5 x 5 x 5 volume: one region exactly when
    // the offset is in the neighbourhood; every offset of {-1, 0, 1}^3 on its own.
    for (int conn : kConnectivities) {
        const std::vector<test::Offset3> hood = test::neighbour_offsets(conn);
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if (dx == 0 && dy == 0 && dz == 0) continue;
                    const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
                    const bool joins = nonzero <= (conn == 6 ? 1 : conn == 18 ? 2 : 3);
                    for (int t : {1, 2, 3}) {
                        Volume v(5, 5, 5);
                        v.at(2, 2, 2) = 1;
                        v.at(2 + dx, 2 + dy, 2 + dz) = 1;
                        Options o;
                        o.connectivity = conn;
                        o.threads = t;
                        std::vector<std::uint32_t> out(125);
                        const LabelResult r = label_volume(v.as(PixelFormat::Binary8), out.data(), o);
                        EXPECT_EQ(r.count, joins ? 1u : 2u)
                            << "offset (" << dx << ", " << dy << ", " << dz << ") conn " << conn << " threads " << t;
                        expect_flood_fill(v, PixelFormat::Binary8, conn, true, t);
                        expect_flood_fill(v, PixelFormat::Gray8, conn, true, t);
                    }
                }
    }
}

TEST(VolumeAdversarial, HelicesJoinThroughCornersOrEdgesOnly) {
    for (int t : {1, 2, 3, 7}) {
        Volume corners = helix(4, 5, 40, 1, 1);
        const std::vector<std::uint32_t> one = expect_flood_fill(corners, PixelFormat::Binary8, 26, true, t);
        EXPECT_EQ(*std::max_element(one.begin(), one.end()), 1u);
        expect_flood_fill(corners, PixelFormat::Binary8, 18, true, t);  // 40 regions
        expect_flood_fill(corners, PixelFormat::Binary8, 6, true, t);
        Volume edges = helix(6, 1, 40, 1, 0);
        expect_flood_fill(edges, PixelFormat::Gray8, 26, false, t);
        expect_flood_fill(edges, PixelFormat::Gray8, 18, false, t);
        expect_flood_fill(edges, PixelFormat::Gray8, 6, false, t);
        // A spiral in one slice that turns through corners, stacked with a gap between copies.
        Volume spiral(9, 9, 5);
        std::int64_t x = 0, y = 0;
        for (int step = 0; step < 12; ++step) {
            spiral.at(x, y, 2) = 1;
            x = std::min<std::int64_t>(8, x + 1), y = std::min<std::int64_t>(8, y + (step % 2));
        }
        expect_flood_fill(spiral, PixelFormat::Binary8, 6, true, t);
        expect_flood_fill(spiral, PixelFormat::Binary8, 26, true, t);
    }
}

TEST(VolumeAdversarial, ThinSlabsSingleSlicesAndColumns) {
    for (int conn : kConnectivities)
        for (int t : {1, 2, 3}) {
            Volume zslabs(7, 6, 12), yslabs(7, 12, 6), xslabs(12, 6, 7);
            for (std::int64_t z = 0; z < 12; ++z)
                for (std::int64_t y = 0; y < 6; ++y)
                    for (std::int64_t x = 0; x < 7; ++x) {
                        zslabs.at(x, y, z) = 1 + std::uint64_t(z % 2);  // one-voxel slices of two values
                        yslabs.at(x, z, y) = 1 + std::uint64_t(z % 2);
                        xslabs.at(z, y, x) = 1 + std::uint64_t(z % 2);
                    }
            for (Volume* v : {&zslabs, &yslabs, &xslabs}) {
                const auto l = expect_flood_fill(*v, PixelFormat::Gray16, conn, false, t);
                EXPECT_EQ(*std::max_element(l.begin(), l.end()), 12u);
            }
            Volume slice = random_volume(40, 30, 1, 3, 0.4, 7);
            expect_flood_fill(slice, PixelFormat::RGB8, conn, true, t);
            Volume column = random_volume(1, 1, 300, 2, 0.5, 8);
            expect_flood_fill(column, PixelFormat::Binary8, conn, true, t);
            Volume row = random_volume(300, 1, 1, 2, 0.5, 9);
            expect_flood_fill(row, PixelFormat::Binary8, conn, true, t);
            Volume checker(6, 7, 8);
            for (std::int64_t z = 0; z < 8; ++z)
                for (std::int64_t y = 0; y < 7; ++y)
                    for (std::int64_t x = 0; x < 6; ++x) checker.at(x, y, z) = std::uint64_t((x + y + z) % 2);
            expect_flood_fill(checker, PixelFormat::Gray8, conn, false, t);
            expect_flood_fill(checker, PixelFormat::Binary8, conn, true, t);
        }
}

TEST(VolumeAdversarial, AllBackgroundAndAllForeground) {
    Volume empty(8, 4, 6);
    for (int conn : kConnectivities) {
        const auto l = expect_flood_fill(empty, PixelFormat::Binary8, conn, true, 3);
        EXPECT_EQ(*std::max_element(l.begin(), l.end()), 0u);
    }
}

TEST(VolumeCalls, EmptyVolumesLabelNothing) {
    Options o;
    o.connectivity = 26;
    for (const Shape& s : {Shape{0, 0, 0}, Shape{0, 5, 5}, Shape{5, 0, 5}, Shape{5, 5, 0}}) {
        const LabelResult r = label_volume(make_volume_view(nullptr, s.w, s.h, s.d, PixelFormat::Gray8), nullptr, o);
        EXPECT_EQ(r.count, 0u);
    }
}

// --- bad input ----------------------------------------------------------------------------------

void expect_volume_error(const VolumeView& v, const std::uint32_t* out, const Options& o, const std::string& part) {
    try {
        validate_volume(v, out, o);
        ADD_FAILURE() << "validate_volume: no Error (expected \"" << part << "\")";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
    try {
        label_volume(v, const_cast<std::uint32_t*>(out), o);
        ADD_FAILURE() << "label_volume: no Error (expected \"" << part << "\")";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
}

TEST(VolumeErrors, VolumeConnectivityOnAPictureNamesLabelVolume) {
    std::uint8_t px[4] = {};
    std::uint32_t out[4];
    for (int c : {6, 18, 26}) {
        Options o;
        o.connectivity = c;
        try {
            (void)label(make_view(px, 2, 2, PixelFormat::Gray8), out, o);
            ADD_FAILURE() << "connectivity " << c << " on a picture was accepted";
        } catch (const Error& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("connectivity must be 4 or 8"), std::string::npos) << m;
            EXPECT_NE(m.find("label_volume"), std::string::npos) << m;
        }
    }
}

TEST(VolumeErrors, BadArgumentsAreErrorsThatNameThem) {
    static std::uint8_t px[64] = {};
    static std::uint32_t out[64];
    const VolumeView v = make_volume_view(px, 4, 4, 4, PixelFormat::Gray8);
    Options o;
    for (int c : {4, 8}) {
        o.connectivity = c;
        expect_volume_error(v, out, o, "volumes take 6 (faces), 18 (faces and edges) or 26");
    }
    for (int c : {27, 0, -1, 1, 2, 3}) {
        o.connectivity = c;
        expect_volume_error(v, out, o, "connectivity must be 6, 18 or 26 for a volume (got " + std::to_string(c) + ")");
    }
    o.connectivity = 26;
    expect_volume_error(make_volume_view(nullptr, 4, 4, 4, PixelFormat::Gray8), out, o, "volume data is null");
    expect_volume_error(v, nullptr, o, "output label buffer is null");
    expect_volume_error(make_volume_view(px, -1, 4, 4, PixelFormat::Gray8), out, o, "must not be negative");
    expect_volume_error(make_volume_view(px, 4, 4, -2, PixelFormat::Gray8), out, o, "must not be negative");
    expect_volume_error(make_volume_view(px, 4, 4, 4, PixelFormat::Gray8, 3), out, o, "row stride of 3 bytes");
    expect_volume_error(make_volume_view(px, 4, 4, 4, PixelFormat::Gray8, 4, 15), out, o, "the slices would overlap");
    expect_volume_error(make_volume_view(px, 4, 4, 4, PixelFormat::Gray8, 5, 10), out, o, "the slices would overlap");
    expect_volume_error(make_volume_view(px, 4, 4, 4, PixelFormat::Gray8, -4), out, o, "negative strides");
    expect_volume_error(make_volume_view(px, 4, 4, 4, PixelFormat(99)), out, o, "unknown pixel format 99");
    expect_volume_error(make_volume_view(px, 2048, 2048, 1024, PixelFormat::Gray8), out, o, "2^32 - 1");
    o.tolerance = 3;
    o.backend = Backend::Cuda;  // valid: the GPU takes a tolerance too (tests/cuda); without one it says why
    EXPECT_NO_THROW(validate_volume(v, out, o));
    if (!cuda_available()) EXPECT_THROW(label_volume(v, out, o), Error);
    o.tolerance = 0;
    o.backend = Backend::Cuda;  // valid; without a GPU the GPU path says why (tests/cuda compare its labels)
    if (!cuda_available()) {
        std::uint32_t labels[64];
        try {
            label_volume(v, labels, o);
            ADD_FAILURE() << "Backend::Cuda without a GPU labelled a volume";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("backend cuda"), std::string::npos) << e.what();
        }
    }
    o.backend = Backend::Cpu;
    o.threads = -1;
    expect_volume_error(v, out, o, "thread count must not be negative");
    o.threads = 0;
    o.background = std::vector<std::uint64_t>{300};
    expect_volume_error(v, out, o, "out of range");
    o.background.reset();
    // 2^32 - 1 voxels exactly is accepted (validation only: nothing is read).
    EXPECT_NO_THROW(validate_volume(make_volume_view(px, 65535, 65537, 1, PixelFormat::Gray8), out, o));
    EXPECT_NO_THROW(validate_volume(make_volume_view(px, 4, 4, 4, PixelFormat::Gray8), out, o));
    o.backend = Backend::Auto;
    EXPECT_EQ(label_volume(v, out, o).backend, Backend::Cpu);
}

}  // namespace
}  // namespace cclabel
