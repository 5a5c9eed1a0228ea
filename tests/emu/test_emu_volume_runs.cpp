// The run-based volume path (VolumeSwitches::runs, src/cuda/kernels/volume_runs.cuh) run by the CPU
// executor (fibers switching at every memory operation, blocks in random order) and compared label
// for label with the CPU's label_volume: random binary and multilabel volumes of odd shapes (widths
// around the 32-voxel segment, one voxel thin along each axis, single slices and rows), every
// connectivity, background on and off, every untyped format with and without padding, strips of
// several lengths; adversarial volumes (each neighbour offset alone at and away from segment
// seams, stretches of a neighbour row broken by other values, helices, checkerboards); and
// mutations of the programs (a neighbour row, the dx = -1 or +1 joins, or the seam join left out,
// or corners joined under 18) that these cases must catch. Plus the planner's run fields.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "core/volume_request.hpp"
#include "emu/emu_volume.hpp"
#include "support/volume_data.hpp"

namespace cclabel::test {
namespace {

namespace cd = cclabel::cuda::detail;
namespace vr = cclabel::cuda::detail::vruns;
using cd::VolumeShape;

constexpr int kConnectivities[] = {6, 18, 26};
constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::RGB8,    PixelFormat::RGBA8, PixelFormat::U32};

/// The run path with strips of @p strip segments and blocks of @p threads.
VolumeShape runs_shape(std::uint32_t strip = 8, std::uint32_t threads = 64) {
    VolumeShape s{};
    s.switches.runs = true;
    s.run_strip = strip;
    s.run_threads = threads;
    return s;
}

const VolumeShape kRunShapes[] = {runs_shape(1, 32), runs_shape(3, 64), runs_shape(8, 256)};

Options volume_options(PixelFormat f, int conn, bool background) {
    Options o;
    o.connectivity = conn;
    o.threads = 1;
    o.backend = Backend::Cpu;
    return background ? background_zero(f, o) : o;
}

struct Labels {
    std::vector<std::uint32_t> labels;
    std::uint32_t count = 0;
};

/// The emulated labels of @p view; @p Conn as emu_label_volume takes it (vr::kMutate + m: a mutation).
template <int Conn = 0>
Labels emulated(const VolumeView& view, const Options& o, const VolumeShape& shape, std::uint64_t seed) {
    Labels l;
    l.labels.resize(view.voxels() + 1);
    const cclabel::detail::VolumeRequest r = cclabel::detail::make_volume_request(view, l.labels.data(), o, /*takes_tolerance=*/true);
    l.count = emu::emu_label_volume<Conn>(r, l.labels.data(), shape, seed);
    l.labels.pop_back();
    return l;
}

Labels cpu(const VolumeView& view, const Options& o) {
    Labels l;
    l.labels.resize(view.voxels());
    l.count = label_volume(view, l.labels.data(), o).count;
    return l;
}

/// Padding for format @p f in case @p i: none (whole segments on 16 bytes where the width allows),
/// rows a byte longer (no row on 16 bytes: the voxel-at-a-time loads), slices padded.
std::array<std::int64_t, 2> padding(PixelFormat f, int i) {
    if (i % 3 == 0) return {0, 0};
    if (i % 3 == 1) return {1, 0};
    return {0, 4 * std::int64_t(bytes_per_pixel(f)) + 3};
}

/// The emulator's run path equals the CPU on @p v in format @p f for each shape.
void expect_cpu(Volume& v, PixelFormat f, int conn, bool background, const std::string& what,
                std::initializer_list<VolumeShape> shapes = {kRunShapes[0], kRunShapes[1]}, std::uint64_t seed = 1,
                int pad = 0) {
    const Options o = volume_options(f, conn, background);
    const auto [row_pad, slice_pad] = padding(f, pad);
    const VolumeView& view = v.as(f, row_pad, slice_pad);
    const Labels want = cpu(view, o);
    for (const VolumeShape& s : shapes) {
        const Labels got = emulated(view, o, s, seed);
        const std::string at = what + " " + std::string(format_name(f)) + " " + std::to_string(v.w) + "x" +
                               std::to_string(v.h) + "x" + std::to_string(v.d) + " conn " + std::to_string(conn) +
                               " bg " + std::to_string(background) + " strip " + std::to_string(s.run_strip) +
                               " threads " + std::to_string(s.run_threads) + " pad " + std::to_string(pad) + " seed " +
                               std::to_string(seed);
        ASSERT_EQ(got.count, want.count) << at;
        ASSERT_EQ(got.labels, want.labels) << at;
    }
}

struct Size {
    std::int64_t w, h, d;
};

TEST(EmuVolumeRuns, PlanHasASegmentWordEach) {
    const VolumeShape s = runs_shape(8, 256);
    for (auto [w, h, d] : std::vector<std::array<std::uint64_t, 3>>{
             {1, 1, 1}, {33, 5, 9}, {512, 512, 512}, {0xFFFFFFFFull, 1, 1}, {1, 1, 0xFFFFFFFFull}, {1625, 1625, 1626}}) {
        const cd::VolumePlan p = cd::plan_volume(w, h, d, s, 1000);
        ASSERT_TRUE(p.error.empty()) << w << "x" << h << "x" << d << ": " << p.error;
        EXPECT_TRUE(p.runs);
        EXPECT_EQ(p.segs_x, (w + 31) / 32);
        EXPECT_EQ(p.segments, p.segs_x * h * d);
        EXPECT_LE(p.segments, p.voxels);
        EXPECT_EQ(p.words, p.segments);
        EXPECT_EQ(p.scan_items, p.segments + 1);
        EXPECT_EQ(p.run_strips, p.segs_x * h * ((d + 7) / 8));
        EXPECT_GE(p.run_blocks * 256, p.run_strips);
        EXPECT_LE(p.run_blocks, cd::kVolumeMaxGrid);
        // Root bits, counts, node and background masks, then CUB's scratch: none overlaps.
        EXPECT_GE(p.off_prefix, 4 * p.segments);
        EXPECT_GE(p.off_seg_s, p.off_prefix + 4 * p.scan_items);
        EXPECT_GE(p.off_seg_bg, p.off_seg_s + 4 * p.segments);
        EXPECT_GE(p.off_scan_temp, p.off_seg_bg + 4 * p.segments);
        EXPECT_GE(p.workspace_bytes, p.off_scan_temp + 1000);
        if (p.voxels > 1000000 && w >= 512) {
            EXPECT_LT(double(p.workspace_bytes) / double(p.voxels), 0.6);
        }
    }
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, runs_shape(0, 256), 0).error.empty());
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, runs_shape(8, 512), 0).error.empty());  // past the launch bounds
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, runs_shape(8, 48), 0).error.empty());   // not whole warps
    EXPECT_TRUE(cd::plan_volume(8, 8, 8, runs_shape(8, 48), 0, /*for_gpu=*/false).error.empty());
    // A tolerance keeps the voxel kernels whatever the switch says.
    cclabel::detail::VolumeRequest r;
    r.tolerance = 3;
    r.format = PixelFormat::Gray8;
    EXPECT_FALSE(cd::shape_for_request(r, runs_shape()).switches.runs);
    r.tolerance = 0;
    EXPECT_TRUE(cd::shape_for_request(r, runs_shape()).switches.runs);
}

TEST(EmuVolumeRuns, SwitchesByName) {
    cd::VolumeSwitches s;
    EXPECT_FALSE(s.runs);  // off until measured on a GPU
    EXPECT_TRUE(cd::volume_switch_on(s, "runs"));
    EXPECT_TRUE(s.runs);
    EXPECT_TRUE(cd::volume_switch_off(s, "runs"));
    EXPECT_FALSE(s.runs);
    EXPECT_FALSE(cd::volume_switch_on(s, "no such switch"));
}

TEST(EmuVolumeRuns, RandomVolumesOfOddShapesMatchTheCpu) {
    // Widths around the segment (31, 32, 33, 63, 64, 65), one voxel thin along each axis, a
    // single slice, a single row, a single column.
    const Size sizes[] = {{1, 1, 1},  {7, 5, 3},  {31, 3, 4}, {32, 4, 3},  {33, 3, 3}, {64, 2, 3}, {65, 3, 2},
                          {1, 9, 7},  {37, 1, 6}, {35, 6, 1}, {70, 1, 1},  {1, 1, 40}, {1, 30, 1}, {96, 2, 2}};
    std::uint32_t seed = 1;
    for (const Size& s : sizes)
        for (int conn : kConnectivities)
            for (PixelFormat f : kFormats)
                for (double density : {0.2, 0.5}) {
                    const int palette = f == PixelFormat::Binary8 ? 2 : 4;
                    Volume v = random_volume(s.w, s.h, s.d, palette, density, ++seed);
                    expect_cpu(v, f, conn, true, "random", {kRunShapes[int(seed % 3)]}, seed, int(seed % 3));
                    if (f != PixelFormat::Binary8)
                        expect_cpu(v, f, conn, false, "random", {kRunShapes[int((seed + 1) % 3)]}, seed, int((seed + 1) % 3));
                }
}

TEST(EmuVolumeRuns, DenseAndSmoothVolumesManySchedules) {
    // Long runs across seams (density 0.05 of background, two values) and dense noise, many
    // schedules: the global unions race.
    for (int conn : kConnectivities)
        for (std::uint64_t seed = 1; seed <= 5; ++seed) {
            Volume dense = random_volume(40, 9, 8, 2, 0.5, std::uint32_t(seed * 7));
            expect_cpu(dense, PixelFormat::Binary8, conn, true, "dense", {kRunShapes[0], kRunShapes[2]}, seed);
            Volume runs = random_volume(70, 6, 7, 3, 0.05, std::uint32_t(seed * 13));
            expect_cpu(runs, PixelFormat::Gray8, conn, false, "long runs", {kRunShapes[1]}, seed);
            expect_cpu(runs, PixelFormat::U32, conn, true, "long runs", {kRunShapes[2]}, seed);
            Volume multi = random_volume(33, 7, 9, 6, 0.1, std::uint32_t(seed * 17));
            expect_cpu(multi, PixelFormat::RGB8, conn, true, "multilabel", {kRunShapes[0]}, seed, 1);
        }
}

/// Earlier offset @p k as (dx, dy, dz), numbered as volume_bodies.cuh's earlier().
std::array<int, 3> offset_of(int k) {
    return {k < 9 ? k % 3 - 1 : (k < 12 ? k - 10 : -1), k < 9 ? k / 3 - 1 : (k < 12 ? -1 : 0), k < 9 ? -1 : 0};
}

/// Two voxels, at @p c and at @p c + offset k, in a 70 x 5 x 4 volume.
Volume pair(int k, std::int64_t cx, std::int64_t cy, std::int64_t cz) {
    const auto [dx, dy, dz] = offset_of(k);
    Volume v(70, 5, 4);
    v.at(cx, cy, cz) = 1;
    v.at(cx + dx, cy + dy, cz + dz) = 1;
    return v;
}

/// Centres at and away from segment seams (x = 31, 32, 33, 63, 64), each neighbour row inside.
constexpr std::int64_t kCentres[][3] = {{5, 1, 1}, {31, 2, 2}, {32, 1, 3}, {33, 3, 1}, {63, 2, 2}, {64, 3, 3}};

std::vector<Volume> adversarial() {
    std::vector<Volume> out;
    for (int k = 0; k < 13; ++k)
        for (const auto& c : kCentres) out.push_back(pair(k, c[0], c[1], c[2]));
    // A run of this row over a neighbour row whose stretches of its value are broken by another
    // value or by background, at the run's ends and across seams.
    for (std::int64_t shift : {0, 29, 30, 31, 32}) {
        Volume v(72, 3, 3);
        for (std::int64_t x = 1; x < 12; ++x) v.at(shift + x, 1, 2) = 1;  // the run
        for (std::int64_t x = 0; x < 13; ++x) v.at(shift + x, 0, 2) = x % 3 == 1 ? 2 : 1;  // broken by 2s
        for (std::int64_t x = 0; x < 13; ++x) v.at(shift + x, 1, 1) = x % 4 == 0 ? 1 : x % 4 == 1 ? 0 : 2;
        for (std::int64_t x = 0; x < 13; ++x) v.at(shift + x, 0, 1) = (x % 2) ? 1 : 0;
        for (std::int64_t x = 0; x < 13; ++x) v.at(shift + x, 2, 1) = (x % 5 == 0) ? 1 : 2;
        out.push_back(v);
    }
    // Two runs of the same value meeting only through the neighbour run's ends (dx = ±1).
    for (std::int64_t x0 : {3, 30, 31, 32}) {
        Volume v(70, 2, 2);
        v.at(x0, 1, 1) = 1;
        v.at(x0 + 2, 1, 1) = 1;
        v.at(x0 + 1, 0, 1) = 1;
        v.at(x0 + 1, 1, 0) = 1;
        out.push_back(v);
    }
    // Helices joined only through corners or edges, a checkerboard, full and empty volumes.
    out.push_back(helix(4, 5, 19, 1, 1));
    out.push_back(helix(6, 1, 19, 1, 0));
    out.push_back(helix(1, 5, 19, 0, 1));
    Volume checker(35, 5, 6);
    for (std::int64_t z = 0; z < 6; ++z)
        for (std::int64_t y = 0; y < 5; ++y)
            for (std::int64_t x = 0; x < 35; ++x) checker.at(x, y, z) = std::uint64_t((x + y + z) % 2);
    out.push_back(checker);
    Volume full(66, 3, 4);
    for (auto& i : full.idx) i = 1;
    out.push_back(full);
    out.push_back(Volume(33, 3, 3));
    // A row that is one run across three segments, and one made of runs that each cross a seam.
    Volume row(96, 1, 1);
    for (auto& i : row.idx) i = 1;
    out.push_back(row);
    Volume stripes(96, 2, 2);
    for (std::int64_t x = 0; x < 96; ++x)
        for (std::int64_t yz = 0; yz < 4; ++yz) stripes.at(x, yz % 2, yz / 2) = 1 + std::uint64_t(((x + 4) / 8) % 2) * (yz % 2 + 1);
    out.push_back(stripes);
    return out;
}

TEST(EmuVolumeRuns, AdversarialVolumesMatchTheCpu) {
    std::vector<Volume> vs = adversarial();
    for (int conn : kConnectivities)
        for (std::size_t i = 0; i < vs.size(); ++i) {
            expect_cpu(vs[i], PixelFormat::Binary8, conn, true, "adversarial " + std::to_string(i),
                       {kRunShapes[0], kRunShapes[1]}, i + 1);
            expect_cpu(vs[i], PixelFormat::Gray8, conn, false, "adversarial " + std::to_string(i), {kRunShapes[2]}, i + 1,
                       int(i % 3));
        }
}

/// Whether mutation @p M of the programs gives some labels other than the CPU's at @p conn on the
/// adversarial volumes and a few random ones.
template <int M>
bool mutation_is_caught(int conn) {
    std::vector<Volume> vs = adversarial();
    for (std::uint32_t seed = 1; seed <= 3; ++seed) vs.push_back(random_volume(40, 6, 5, 2, 0.5, seed));
    for (Volume& v : vs)
        for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray8}) {
            const Options o = volume_options(f, conn, true);
            const VolumeView& view = v.as(f);
            const Labels want = cpu(view, o);
            const Labels got = emulated<vr::kMutate + M>(view, o, kRunShapes[1], 1);
            if (got.count != want.count || got.labels != want.labels) return true;
        }
    return false;
}

TEST(EmuVolumeRuns, MutationsAreCaught) {
    EXPECT_TRUE(mutation_is_caught<vr::kDropRow0>(26)) << "row (y-1, z) dropped and no test noticed";
    EXPECT_TRUE(mutation_is_caught<vr::kDropRow1>(26)) << "row (y, z-1) dropped and no test noticed";
    EXPECT_TRUE(mutation_is_caught<vr::kDropRow2>(26)) << "row (y-1, z-1) dropped and no test noticed";
    EXPECT_TRUE(mutation_is_caught<vr::kDropRow3>(26)) << "row (y+1, z-1) dropped and no test noticed";
    EXPECT_TRUE(mutation_is_caught<vr::kDropMm>(26)) << "dx = -1 joins dropped and no test noticed";
    EXPECT_TRUE(mutation_is_caught<vr::kDropMp>(26)) << "dx = +1 joins dropped and no test noticed";
    EXPECT_TRUE(mutation_is_caught<vr::kDropSeam>(26)) << "seam join dropped and no test noticed";
    EXPECT_TRUE(mutation_is_caught<vr::kDeltaAll18>(18)) << "18 joining corners and no test noticed";
}

TEST(EmuVolumeRuns, ThePublicShapesWithRunsOn) {
    // The public call's shapes (tiles for the voxel kernels, which the run path ignores) with the
    // switch on, as bench_volume --on runs launches them.
    for (int conn : kConnectivities)
        for (std::int64_t depth : {1, 2, 9}) {
            VolumeShape s = cd::volume_shape_for(std::uint64_t(depth), conn);
            s.switches.runs = true;
            Volume v = random_volume(45, 11, depth, 3, 0.3, std::uint32_t(900 + depth));
            expect_cpu(v, PixelFormat::Gray8, conn, true, "public shape", {s}, std::uint64_t(depth));
        }
}

TEST(EmuVolumeRuns, ATolerancePassesTheSwitchBy) {
    // With a tolerance the voxel kernels run whatever the switch says: the labels are the CPU's
    // tolerance labels.
    Volume v = random_volume(20, 6, 5, 6, 0.2, 77);
    const VolumeView& view = v.as(PixelFormat::Gray8);
    for (int conn : kConnectivities) {
        Options o = volume_options(PixelFormat::Gray8, conn, true);
        o.tolerance = 8;
        const Labels want = cpu(view, o);
        VolumeShape s{4, 2, 2, 32, 32, 1};
        s.switches.runs = true;
        const Labels got = emulated(view, o, s, 3);
        ASSERT_EQ(got.count, want.count) << conn;
        ASSERT_EQ(got.labels, want.labels) << conn;
    }
}

}  // namespace
}  // namespace cclabel::test
