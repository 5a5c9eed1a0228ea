// The CUDA volume labeller's per-thread programs (src/cuda/kernels/volume_bodies.cuh), run by the
// CPU executor (fibers switching at every memory operation, blocks in random order) and compared
// label for label with the CPU's label_volume: random volumes of several formats, densities and
// odd shapes under small tiles that put many voxels on tile faces, adversarial volumes (helices
// joined only through edges or corners, one-voxel slabs, single slices and columns, checkerboards,
// each neighbour offset alone, inside a tile and across its faces), and a mutation check: dropping
// any one neighbour offset from the programs makes these tests fail. Plus the planner's limits.
#include <gtest/gtest.h>

#include <algorithm>
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
using cd::VolumeShape;

constexpr int kConnectivities[] = {6, 18, 26};
/// Tiles small enough that most voxels sit on a face, and the default before per_thread (one
/// voxel a thread).
const VolumeShape kShapes[] = {{4, 2, 2, 32, 32, 1}, {3, 3, 2, 64, 32, 1}, {8, 1, 3, 32, 32, 1}, {32, 4, 4, 256, 32, 1}};

/// Tiles of several voxels a thread (VolumeShape::per_thread), partial warps among them.
const VolumeShape kStacked[] = {{4, 2, 4, 32, 32, 2}, {3, 3, 4, 64, 32, 4}, {8, 2, 3, 32, 32, 3}, {32, 4, 8, 256, 32, 2}};

/// @p s with the switch called @p name off.
VolumeShape switched_off(VolumeShape s, const char* name) {
    EXPECT_TRUE(cd::volume_switch_off(s.switches, name)) << name;
    return s;
}

Options volume_options(PixelFormat f, int conn, bool background) {
    Options o;
    o.connectivity = conn;
    o.threads = 1;
    return background ? background_zero(f, o) : o;
}

/// The emulated labels of @p view (Conn as the programs take it: 6, 18, 26 or kDropOffset + k,
/// which the CPU request sees as 26).
template <int Conn = 0>
std::vector<std::uint32_t> emulated(const VolumeView& view, const Options& o, const VolumeShape& shape,
                                    std::uint64_t seed, std::uint32_t* count) {
    std::vector<std::uint32_t> out(view.voxels() + 1);
    const cclabel::detail::VolumeRequest r = cclabel::detail::make_volume_request(view, out.data(), o);
    *count = emu::emu_label_volume<Conn>(r, out.data(), shape, seed);
    out.pop_back();
    return out;
}

std::vector<std::uint32_t> cpu_labels(const VolumeView& view, const Options& o, std::uint32_t* count) {
    std::vector<std::uint32_t> out(view.voxels());
    *count = label_volume(view, out.data(), o).count;
    return out;
}

/// The emulator equals the CPU on @p v in format @p f for every shape given.
void expect_cpu(Volume& v, PixelFormat f, int conn, bool background, const std::string& what,
                std::initializer_list<VolumeShape> shapes = {kShapes[0], kShapes[1]}, std::uint64_t seed = 1) {
    const Options o = volume_options(f, conn, background);
    const VolumeView& view = v.as(f, f == PixelFormat::Gray8 ? 3 : 0, f == PixelFormat::U32 ? 8 : 0);
    std::uint32_t want_n = 0;
    const std::vector<std::uint32_t> want = cpu_labels(view, o, &want_n);
    for (const VolumeShape& s : shapes) {
        std::uint32_t got_n = 0;
        const std::vector<std::uint32_t> got = emulated(view, o, s, seed, &got_n);
        const std::string at = what + " " + std::string(format_name(f)) + " " + std::to_string(v.w) + "x" + std::to_string(v.h) + "x" +
                               std::to_string(v.d) + " conn " + std::to_string(conn) + " bg " + std::to_string(background) +
                               " tile " + std::to_string(s.tile_x) + "x" + std::to_string(s.tile_y) + "x" +
                               std::to_string(s.tile_z) + " seed " + std::to_string(seed);
        ASSERT_EQ(got_n, want_n) << at;
        ASSERT_EQ(got, want) << at;
    }
}

TEST(EmuVolumePlan, CoversTheVolumeAndRespectsLimits) {
    const VolumeShape s{};
    for (auto [w, h, d] : std::vector<std::array<std::uint64_t, 3>>{
             {1, 1, 1}, {33, 5, 9}, {512, 512, 512}, {0xFFFFFFFFull, 1, 1}, {1, 1, 0xFFFFFFFFull}, {1625, 1625, 1626}}) {
        const cd::VolumePlan p = cd::plan_volume(w, h, d, s, 1000);
        ASSERT_TRUE(p.error.empty()) << w << "x" << h << "x" << d << ": " << p.error;
        EXPECT_EQ(p.voxels, w * h * d);
        EXPECT_GE(p.tiles_x * s.tile_x, w);
        EXPECT_LT((p.tiles_x - 1) * s.tile_x, w);
        EXPECT_GE(p.tiles_y * s.tile_y, h);
        EXPECT_GE(p.tiles_z * s.tile_z, d);
        EXPECT_LE(p.tiles, cd::kVolumeMaxGrid);
        EXPECT_GE(p.voxel_blocks * s.voxel_threads, p.voxels);
        EXPECT_GE(p.words * 32, p.voxels);
        EXPECT_EQ(p.scan_items, p.words + 1);
        EXPECT_GE(p.off_prefix, 4 * p.words);
        EXPECT_GE(p.off_scan_temp, p.off_prefix + 4 * p.scan_items);
        EXPECT_GE(p.workspace_bytes, p.off_scan_temp + 1000);
        // A bit and a count word a 32 voxels: about a third of a byte a voxel beyond the labels.
        if (p.voxels > 1000000) {
            EXPECT_LT(double(p.workspace_bytes) / double(p.voxels), 0.3);
        }
    }
    EXPECT_FALSE(cd::plan_volume(65536, 65536, 1, s, 0).error.empty());
    EXPECT_FALSE(cd::plan_volume(2048, 2048, 1024, s, 0).error.empty());  // 2^32 voxels
    EXPECT_TRUE(cd::plan_volume(2048, 2048, 1023, s, 0).error.empty());
    EXPECT_EQ(cd::plan_volume(0, 5, 5, s, 0).tiles, 0u);
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{32, 8, 8, 256, 32, 1}, 0, false).error.empty());  // 2048 threads
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{32, 8, 4, 256, 32, 1}, 0).error.empty());  // 1024 on the GPU
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{4, 2, 2, 32, 32, 1}, 0).error.empty());    // not on the GPU
    EXPECT_TRUE(cd::plan_volume(8, 8, 8, VolumeShape{4, 2, 2, 32, 32, 1}, 0, false).error.empty());
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{4, 2, 2, 40, 32, 1}, 0, false).error.empty());
    // Several voxels a thread: the threads divide the tile, 2048 voxels at most.
    const cd::VolumePlan stacked = cd::plan_volume(100, 100, 100, VolumeShape{32, 8, 8, 256, 32, 4}, 0);
    EXPECT_TRUE(stacked.error.empty()) << stacked.error;
    EXPECT_EQ(stacked.tile_threads, 512u);
    EXPECT_EQ(stacked.tile_voxels, 2048u);
    EXPECT_EQ(stacked.tiles, 4u * 13u * 13u);
    EXPECT_EQ(stacked.steps, 4u);
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{32, 8, 8, 256, 32, 3}, 0, false).error.empty());   // no divisor
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{32, 8, 8, 256, 32, 2}, 0).error.empty());          // 1024 threads
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{32, 8, 16, 256, 32, 8}, 0).error.empty());         // 4096 voxels
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{32, 3, 1, 256, 32, 2}, 0).error.empty());          // 48 threads
    EXPECT_FALSE(cd::plan_volume(8, 8, 8, VolumeShape{32, 4, 4, 256, 32, 0}, 0, false).error.empty());
}

TEST(EmuVolume, RandomVolumesMatchTheCpu) {
    struct Size {
        std::int64_t w, h, d;
    };
    const Size sizes[] = {{1, 1, 1}, {7, 5, 3}, {9, 4, 6}, {5, 9, 5}, {33, 2, 3}, {2, 3, 17}, {11, 7, 6}};
    std::uint32_t seed = 1;
    for (const Size& s : sizes)
        for (int conn : kConnectivities)
            for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::U32, PixelFormat::RGB8})
                for (double density : {0.1, 0.3, 0.6}) {  // zero_density: 0.1 gives long runs of a value
                    Volume v = random_volume(s.w, s.h, s.d, f == PixelFormat::Binary8 ? 2 : 3, density, ++seed);
                    expect_cpu(v, f, conn, true, "random", {kShapes[0], kShapes[1]}, seed);
                    if (f != PixelFormat::Binary8) expect_cpu(v, f, conn, false, "random", {kShapes[2]}, seed);
                }
}

TEST(EmuVolume, DefaultTileAndManySchedules) {
    // One tile of the GPU's shape and its neighbours, many schedules: the global unions race.
    for (int conn : kConnectivities)
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            Volume v = random_volume(40, 6, 6, 2, 0.35, std::uint32_t(seed * 7));
            expect_cpu(v, PixelFormat::Binary8, conn, true, "one voxel a thread", {kShapes[3]}, seed);
            if (seed > 3) continue;
            Volume w = random_volume(41, 10, 11, 2, 0.35, std::uint32_t(seed * 11));
            expect_cpu(w, PixelFormat::Binary8, conn, true, "default tile", {VolumeShape{}}, seed);
        }
}

TEST(EmuVolume, HelicesJoinThroughCornersOrEdgesOnly) {
    for (int conn : kConnectivities) {
        Volume corners = helix(4, 5, 19, 1, 1);
        expect_cpu(corners, PixelFormat::Binary8, conn, true, "corner helix");
        Volume edges = helix(6, 1, 19, 1, 0);
        expect_cpu(edges, PixelFormat::Gray8, conn, false, "edge helix");
        Volume yz = helix(1, 5, 19, 0, 1);
        expect_cpu(yz, PixelFormat::Gray8, conn, true, "yz helix");
        // A spiral in one slice that turns through corners, with copies one slice apart.
        Volume spiral(9, 9, 3);
        for (std::int64_t z : {0, 2}) {
            std::int64_t x = 0, y = 0;
            for (int step = 0; step < 12; ++step) {
                spiral.at(x, y, z) = 1;
                x = std::min<std::int64_t>(8, x + 1), y = std::min<std::int64_t>(8, y + (step % 2));
            }
        }
        expect_cpu(spiral, PixelFormat::Binary8, conn, true, "spiral");
    }
}

TEST(EmuVolume, ThinSlabsSingleSlicesColumnsAndCheckerboards) {
    for (int conn : kConnectivities) {
        Volume zslabs(5, 4, 7), yslabs(5, 7, 4), xslabs(7, 4, 5);
        for (std::int64_t a = 0; a < 7; ++a)
            for (std::int64_t b = 0; b < 4; ++b)
                for (std::int64_t c = 0; c < 5; ++c) {
                    zslabs.at(c, b, a) = 1 + std::uint64_t(a % 2);
                    yslabs.at(c, a, b) = 1 + std::uint64_t(a % 2);
                    xslabs.at(a, b, c) = 1 + std::uint64_t(a % 2);
                }
        for (Volume* v : {&zslabs, &yslabs, &xslabs}) expect_cpu(*v, PixelFormat::Gray8, conn, false, "slabs");
        Volume slice = random_volume(23, 9, 1, 3, 0.4, 7);
        expect_cpu(slice, PixelFormat::RGB8, conn, true, "slice");
        Volume column = random_volume(1, 1, 70, 2, 0.5, 8);
        expect_cpu(column, PixelFormat::Binary8, conn, true, "column");
        Volume row = random_volume(70, 1, 1, 2, 0.5, 9);
        expect_cpu(row, PixelFormat::Binary8, conn, true, "row");
        Volume pillar = random_volume(1, 40, 1, 2, 0.5, 10);
        expect_cpu(pillar, PixelFormat::Binary8, conn, true, "y column");
        Volume checker(6, 5, 7);
        for (std::int64_t z = 0; z < 7; ++z)
            for (std::int64_t y = 0; y < 5; ++y)
                for (std::int64_t x = 0; x < 6; ++x) checker.at(x, y, z) = std::uint64_t((x + y + z) % 2);
        expect_cpu(checker, PixelFormat::Gray8, conn, false, "checker");
        expect_cpu(checker, PixelFormat::Binary8, conn, true, "checker");
        Volume full(9, 5, 6);
        for (auto& i : full.idx) i = 1;
        expect_cpu(full, PixelFormat::Binary8, conn, true, "all foreground");
        Volume none(9, 5, 6);
        expect_cpu(none, PixelFormat::Binary8, conn, true, "all background");
    }
}

/// Earlier offset @p k as (dx, dy, dz), as the programs number them.
std::array<int, 3> offset_of(int k) {
    return {k < 9 ? k % 3 - 1 : (k < 12 ? k - 10 : -1), k < 9 ? k / 3 - 1 : (k < 12 ? -1 : 0), k < 9 ? -1 : 0};
}

/// Two voxels, at @p c and @p c + offset k: joined exactly when the offset is a neighbour.
Volume pair(int k, std::int64_t cx, std::int64_t cy, std::int64_t cz) {
    const auto [dx, dy, dz] = offset_of(k);
    Volume v(9, 6, 6);
    v.at(cx, cy, cz) = 1;
    v.at(cx + dx, cy + dy, cz + dz) = 1;
    return v;
}

/// The centres of pair(): inside a 4 x 2 x 2 tile's interior is impossible (every voxel is on a
/// face), so a centre whose neighbours are in its tile and ones on each face.
constexpr std::int64_t kCentres[][3] = {{5, 1, 1}, {4, 2, 2}, {7, 3, 3}, {4, 1, 3}, {3, 2, 1}, {1, 4, 5}};

TEST(EmuVolume, EachNeighbourOffsetAloneInsideAndAcrossTiles) {
    for (int conn : kConnectivities)
        for (int k = 0; k < 13; ++k)
            for (const auto& c : kCentres) {
                Volume v = pair(k, c[0], c[1], c[2]);
                expect_cpu(v, PixelFormat::Binary8, conn, true, "offset " + std::to_string(k), {kShapes[0], kShapes[1], kShapes[2]});
            }
}

TEST(EmuVolume, OnlyTheLeftVoxelStandsInForAGlobalJoin) {
    // Under 4 x 2 x 2 tiles, the voxel before (4, 1, 2) in its warp is (7, 0, 2), not its left
    // neighbour. Both reach one set of the tile below through offset (0, 0, -1): (4, 1, 1) and
    // (7, 0, 1), joined in that tile by the run (4..7, 1, 1). (4, 1, 2) must still make its own
    // join, or it becomes a region of its own.
    Volume v(8, 2, 3);
    v.at(4, 1, 2) = v.at(7, 0, 2) = v.at(7, 0, 1) = 1;
    for (std::int64_t x = 4; x < 8; ++x) v.at(x, 1, 1) = 1;
    for (int conn : kConnectivities)
        for (std::uint64_t seed = 1; seed <= 4; ++seed)
            expect_cpu(v, PixelFormat::Binary8, conn, true, "warp neighbours", {kShapes[0]}, seed);
}

TEST(EmuVolume, EachSwitchOffMatchesTheCpu) {
    for (const char* name : cd::kVolumeSwitchNames) {
        const VolumeShape shapes[] = {switched_off(kShapes[0], name), switched_off(kShapes[1], name),
                                      switched_off(kShapes[3], name)};
        std::uint32_t seed = 100;
        for (int conn : kConnectivities)
            for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray8})
                for (double density : {0.1, 0.3, 0.6}) {
                    Volume v = random_volume(11, 7, 6, f == PixelFormat::Binary8 ? 2 : 3, density, ++seed);
                    expect_cpu(v, f, conn, true, std::string("off ") + name, {shapes[0], shapes[1]}, seed);
                    Volume w = random_volume(40, 6, 6, 2, 0.35, ++seed);
                    expect_cpu(w, PixelFormat::Binary8, conn, true, std::string("off ") + name, {shapes[2]}, seed);
                }
        for (int conn : kConnectivities)
            for (int k = 0; k < 13; ++k) {
                Volume v = pair(k, 4, 2, 2);
                expect_cpu(v, PixelFormat::Binary8, conn, true, std::string("off ") + name, {shapes[0], shapes[1]});
            }
    }
}

TEST(EmuVolumePlan, ThinVolumesGetThinnerTiles) {
    for (std::uint64_t depth : {0ull, 1ull, 2ull, 3ull, 4ull, 5ull, 8ull, 9ull, 1000ull}) {
        const VolumeShape s = cd::volume_shape_for_depth(depth);
        const cd::VolumePlan p = cd::plan_volume(100, 30, std::max<std::uint64_t>(depth, 1), s, 0);
        ASSERT_TRUE(p.error.empty()) << depth << ": " << p.error;
        EXPECT_EQ(s.tile_z, depth <= 1 ? 1u : depth == 2 ? 2u : depth <= 4 ? 4u : 8u) << depth;
        EXPECT_EQ(p.tile_threads, depth <= 1 ? 256u : 512u) << depth;
    }
    // Their labels, as the public call launches them.
    for (int conn : kConnectivities)
        for (std::int64_t depth : {1, 2, 3}) {
            Volume v = random_volume(37, 19, depth, 2, 0.4, std::uint32_t(500 + depth));
            expect_cpu(v, PixelFormat::Binary8, conn, true, "thin", {cd::volume_shape_for_depth(std::uint64_t(depth))});
            expect_cpu(v, PixelFormat::Binary8, conn, true, "thin, the public shape",
                       {cd::volume_shape_for(std::uint64_t(depth), conn)});
        }
    // The public call's shapes by connectivity plan on every depth.
    for (int conn : kConnectivities)
        for (std::uint64_t depth : {1ull, 2ull, 3ull, 5ull, 1000ull}) {
            const VolumeShape s = cd::volume_shape_for(depth, conn);
            EXPECT_TRUE(cd::plan_volume(100, 30, depth, s, 0).error.empty()) << conn << " " << depth;
        }
}

TEST(EmuVolume, SeveralVoxelsAThread) {
    std::uint32_t seed = 300;
    for (int conn : kConnectivities)
        for (bool cover : {true, false}) {
            std::vector<VolumeShape> shapes(std::begin(kStacked), std::end(kStacked));
            for (VolumeShape& s : shapes)
                if (!cover) cd::volume_switch_off(s.switches, "cover");
            for (double density : {0.1, 0.4, 0.7}) {
                Volume v = random_volume(13, 9, 11, 2, density, ++seed);
                expect_cpu(v, PixelFormat::Binary8, conn, true, "stacked", {shapes[0], shapes[1], shapes[2]}, seed);
                Volume w = random_volume(9, 7, 10, 3, density, ++seed);
                expect_cpu(w, PixelFormat::Gray8, conn, false, "stacked", {shapes[0], shapes[2]}, seed);
            }
            Volume big = random_volume(70, 9, 18, 2, 0.35, ++seed);
            expect_cpu(big, PixelFormat::Binary8, conn, true, "stacked default", {shapes[3]}, seed);
            Volume corners = helix(4, 5, 19, 1, 1);
            expect_cpu(corners, PixelFormat::Binary8, conn, true, "stacked corner helix", {shapes[0], shapes[1]});
            for (int k = 0; k < 13; ++k)
                for (const auto& c : {kCentres[0], kCentres[3], kCentres[5]}) {
                    Volume p = pair(k, c[0], c[1], c[2]);
                    expect_cpu(p, PixelFormat::Binary8, conn, true, "stacked offset " + std::to_string(k),
                               {shapes[0], shapes[1], shapes[2]});
                }
        }
}

TEST(EmuVolume, TwoNeighboursJoinedThroughTheVoxelOnly) {
    // A voxel and two of its earlier neighbours, j and k: the voxel must join both unless j and k
    // are adjacent (then joining one covers the other). Catches a cover mask that claims a
    // neighbour that is not adjacent, inside a tile, across its faces, and between the two.
    for (int conn : kConnectivities)
        for (int j = 0; j < 13; ++j)
            for (int k = j + 1; k < 13; ++k)
                for (const auto& c : {kCentres[0], kCentres[1], kCentres[2]}) {
                    Volume v = pair(k, c[0], c[1], c[2]);
                    const auto [dx, dy, dz] = offset_of(j);
                    v.at(c[0] + dx, c[1] + dy, c[2] + dz) = 1;
                    expect_cpu(v, PixelFormat::Binary8, conn, true,
                               "offsets " + std::to_string(j) + " and " + std::to_string(k), {kShapes[0], kShapes[1]});
                }
}

/// Whether the programs without earlier offset K give some labels other than the CPU's under 26
/// on the cases above.
template <int K>
bool dropped_offset_is_caught() {
    for (const VolumeShape& s : {kShapes[0], kShapes[1], kShapes[2]})
        for (const auto& c : kCentres) {
            Volume v = pair(K, c[0], c[1], c[2]);
            const Options o = volume_options(PixelFormat::Binary8, 26, true);
            const VolumeView& view = v.as(PixelFormat::Binary8);
            std::uint32_t want_n = 0, got_n = 0;
            const std::vector<std::uint32_t> want = cpu_labels(view, o, &want_n);
            if (emulated<cd::vol::kDropOffset + K>(view, o, s, 1, &got_n) != want) return true;
        }
    return false;
}

template <int K>
void expect_caught() {
    EXPECT_TRUE(dropped_offset_is_caught<K>()) << "offset " << K << " dropped and no test noticed";
}

TEST(EmuVolume, DroppingAnyNeighbourOffsetIsCaught) {
    []<int... K>(std::integer_sequence<int, K...>) { (expect_caught<K>(), ...); }(std::make_integer_sequence<int, 13>{});
}

}  // namespace
}  // namespace cclabel::test
