// The region adjacency graph of label volumes on the GPU (cclabel::adjacency of a VolumeView with
// Backend::Cuda, src/cuda/adjacency3d_cuda.cu) against the CPU's pass, exactly (sorted (a, b),
// contacts): host labels copied up (packed, padded rows, padded slices: the slice-by-slice copy),
// labels in device memory with the same strides read in place (Backend::Cuda and Auto), for 6, 18
// and 26, with and without the background; random, multilabel (every voxel its own label: the
// item buffer's second run), Voronoi-like and uniform volumes; 1-voxel-thin volumes, widths around
// the warp and heights around the 64-row tile; repeated calls (the item guess carried over). The
// CPU emulator runs the same kernel program in CI (tests/emu/test_emu_adjacency3d.cpp). Skipped
// without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/error.hpp"
#include "cclabel/volume.hpp"
#include "cuda/dev_mem.hpp"
#include "cuda/gpu_test.hpp"
#include "support/label_volumes.hpp"

namespace cclabel::test {
namespace {

std::string edge_text(const std::vector<AdjacencyEdge>& e, std::size_t i) {
    if (i >= e.size()) return "(none)";
    return std::to_string(e[i].a) + "-" + std::to_string(e[i].b) + " x" + std::to_string(e[i].contacts);
}

::testing::AssertionResult same_edges(const std::vector<AdjacencyEdge>& got, const std::vector<AdjacencyEdge>& want) {
    const std::size_t n = std::max(got.size(), want.size());
    for (std::size_t i = 0; i < n; ++i)
        if (i >= got.size() || i >= want.size() || got[i].a != want[i].a || got[i].b != want[i].b ||
            got[i].contacts != want[i].contacts)
            return ::testing::AssertionFailure() << "edge " << i << ": GPU " << edge_text(got, i) << ", CPU "
                                                 << edge_text(want, i) << " (" << got.size() << " against "
                                                 << want.size() << " edges)";
    return ::testing::AssertionSuccess();
}

/// The GPU's edges of @p v, from host labels (Backend::Cuda) and from the same buffer in device
/// memory (Cuda and Auto), against the CPU's.
void expect_cpu(const LabelVolume& v, int conn, bool bg, const std::string& what, int threads = 0) {
    const auto want = adjacency(v.view(), conn, bg, Backend::Cpu, 3);
    EXPECT_TRUE(same_edges(adjacency(v.view(), conn, bg, Backend::Cuda, threads), want)) << what << " (host labels)";
    DevMem d(v.buf.size() * 4);
    ASSERT_EQ(cudaMemcpy(d.p, v.buf.data(), v.buf.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_TRUE(same_edges(adjacency(v.view(d.p), conn, bg, Backend::Cuda), want)) << what << " (device labels)";
    EXPECT_TRUE(same_edges(adjacency(v.view(d.p), conn, bg, Backend::Auto), want)) << what << " (device, auto)";
}

std::string name(const char* kind, const LabelVolume& v, int conn, bool bg) {
    return std::string(kind) + " " + std::to_string(v.w) + "x" + std::to_string(v.h) + "x" + std::to_string(v.d) +
           " (strides " + std::to_string(v.rs) + ", " + std::to_string(v.ss) + ") conn " + std::to_string(conn) +
           (bg ? " bg" : "");
}

TEST(VolumeAdjacencyCuda, RandomVolumesEveryConnectivity) {
    REQUIRE_GPU();
    struct Case {
        std::int64_t w, h, d;
    };
    const Case cases[] = {{5, 4, 3}, {33, 17, 9}, {64, 64, 4}, {65, 65, 5}, {100, 70, 12}, {257, 130, 3}};
    std::uint32_t seed = 1;
    for (const Case& c : cases)
        for (std::uint32_t palette : {2u, 7u, 300u})
            for (int conn : {6, 18, 26})
                for (bool bg : {false, true}) {
                    ++seed;
                    const LabelVolume v = random_labels(c.w, c.h, c.d, palette, 0.2, seed, seed % 2 ? 3 : 0,
                                                        seed % 3 ? 0 : 11);
                    expect_cpu(v, conn, bg, name("random", v, conn, bg) + " palette " + std::to_string(palette));
                }
}

TEST(VolumeAdjacencyCuda, ThinVolumesWarpEdgesAndTileSeams) {
    REQUIRE_GPU();
    struct Case {
        std::int64_t w, h, d;
    };
    const Case cases[] = {{1, 1, 1},   {1, 1, 300},  {300, 1, 1},  {1, 300, 1},  {77, 45, 1},  {1, 45, 77},
                          {77, 1, 45}, {31, 63, 3},  {32, 64, 3},  {33, 65, 3},  {63, 127, 2}, {64, 128, 2},
                          {65, 129, 2}, {95, 1, 7},  {97, 2, 7},   {2, 193, 4}};
    std::uint32_t seed = 500;
    for (const Case& c : cases)
        for (int conn : {6, 18, 26})
            for (bool bg : {false, true}) {
                ++seed;
                const LabelVolume v = random_labels(c.w, c.h, c.d, 3, 0.2, seed, seed % 2 ? 1 : 0, seed % 2 ? 0 : 5);
                expect_cpu(v, conn, bg, name("thin", v, conn, bg));
            }
}

TEST(VolumeAdjacencyCuda, VoronoiVolumes) {
    REQUIRE_GPU();
    std::uint32_t seed = 900;
    for (int conn : {6, 18, 26})
        for (bool bg : {false, true}) {
            ++seed;
            const LabelVolume cells = voronoi(200, 150, 40, 300, seed, seed % 2 ? 5 : 0, seed % 2 ? 0 : 64);
            expect_cpu(cells, conn, bg, name("voronoi", cells, conn, bg));
        }
    // Few large cells in a larger volume: long runs, tables that hold a pair for many rows.
    const LabelVolume big = voronoi(320, 256, 96, 40, 7);
    for (int conn : {6, 26}) expect_cpu(big, conn, false, name("voronoi", big, conn, false));
}

TEST(VolumeAdjacencyCuda, MultilabelVolumes) {
    REQUIRE_GPU();
    // Every voxel its own label: every pair distinct, the tables flood and spill, and the items
    // outgrow the first guess (a 64th of the voxels): the kernel runs again into a larger buffer.
    LabelVolume distinct(150, 90, 20);
    std::uint32_t next = 1;
    distinct.fill([&](auto, auto, auto) { return next++; });
    for (int conn : {6, 18, 26})
        for (bool bg : {false, true}) expect_cpu(distinct, conn, bg, name("distinct", distinct, conn, bg));
    // Blocks of 3 x 2 x 2 voxels of fresh labels, some background: many small regions.
    LabelVolume blocks(181, 67, 23, 2, 0);
    std::mt19937 rng(4);
    std::vector<std::uint32_t> block_label(std::size_t(61 * 34 * 12));
    for (auto& l : block_label) l = rng() % 5 == 0 ? 0u : rng();
    blocks.fill([&](std::int64_t x, std::int64_t y, std::int64_t z) {
        return block_label[std::size_t((z / 2 * 34 + y / 2) * 61 + x / 3)];
    });
    for (int conn : {6, 18, 26})
        for (bool bg : {false, true}) expect_cpu(blocks, conn, bg, name("blocks", blocks, conn, bg), 2);
}

TEST(VolumeAdjacencyCuda, UniformVolumesAndAPlane) {
    REQUIRE_GPU();
    LabelVolume one(256, 256, 64);
    one.fill([](auto, auto, auto) { return 9u; });
    for (int conn : {6, 18, 26})
        for (bool bg : {false, true}) {
            EXPECT_TRUE(adjacency(one.view(), conn, bg, Backend::Cuda).empty());
            expect_cpu(one, conn, bg, name("uniform", one, conn, bg));
        }
    LabelVolume zeros(100, 33, 5, 1, 3);
    zeros.fill([](auto, auto, auto) { return 0u; });
    for (int conn : {6, 26}) EXPECT_TRUE(adjacency(zeros.view(), conn, true, Backend::Cuda).empty());
    // Two halves split by a plane across z: 6 counts one contact a voxel of the plane.
    LabelVolume halves(300, 200, 10);
    halves.fill([](auto, auto, std::int64_t z) { return z < 5 ? 1u : 2u; });
    const auto e = adjacency(halves.view(), 6, false, Backend::Cuda);
    ASSERT_EQ(e.size(), 1u);
    EXPECT_EQ(e[0].a, 1u);
    EXPECT_EQ(e[0].b, 2u);
    EXPECT_EQ(e[0].contacts, 300u * 200u);
    for (int conn : {18, 26}) expect_cpu(halves, conn, false, name("halves", halves, conn, false));
}

TEST(VolumeAdjacencyCuda, RepeatedCallsAndHostThreadsGiveTheSameEdges) {
    REQUIRE_GPU();
    // Noise first (the item guess grows), then a drawing-like volume (the guess from the noise),
    // then the noise again: the same edges every time, whatever the host threads.
    const LabelVolume noise = random_labels(128, 96, 32, 1000, 0.1, 3);
    const LabelVolume cells = voronoi(160, 120, 30, 50, 8, 4, 0);
    const auto want_noise = adjacency(noise.view(), 26, true, Backend::Cpu);
    const auto want_cells = adjacency(cells.view(), 18, false, Backend::Cpu);
    for (int round = 0; round < 3; ++round)
        for (int threads : {0, 1, 3}) {
            EXPECT_TRUE(same_edges(adjacency(noise.view(), 26, true, Backend::Cuda, threads), want_noise)) << round;
            EXPECT_TRUE(same_edges(adjacency(cells.view(), 18, false, Backend::Cuda, threads), want_cells)) << round;
        }
}

TEST(VolumeAdjacencyCuda, AutoWithHostLabelsGivesTheCpusEdges) {
    REQUIRE_GPU();
    // Auto decides by this machine's rates; either way the edges are the same.
    const LabelVolume small = voronoi(40, 30, 8, 12, 5);
    const LabelVolume large = voronoi(384, 384, 64, 80, 6);
    for (const LabelVolume* v : {&small, &large})
        EXPECT_TRUE(same_edges(adjacency(v->view(), 26, false, Backend::Auto), adjacency(v->view(), 26, false, Backend::Cpu)));
}

TEST(VolumeAdjacencyCuda, DeviceLabelsWithBackendCpuAreAnError) {
    REQUIRE_GPU();
    LabelVolume v(8, 4, 3);
    v.fill([](std::int64_t x, auto, auto) { return std::uint32_t(x); });
    DevMem d(v.buf.size() * 4);
    ASSERT_EQ(cudaMemcpy(d.p, v.buf.data(), v.buf.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    try {
        (void)adjacency(v.view(d.p), 26, false, Backend::Cpu);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
    }
    // The checks come before the GPU: a picture's connectivity is an Error for device labels too.
    EXPECT_THROW((void)adjacency(v.view(d.p), 8, false, Backend::Cuda), Error);
    EXPECT_TRUE(adjacency(make_volume_view(d.p, 0, 4, 3, PixelFormat::U32), 26, false, Backend::Cuda).empty());
}

}  // namespace
}  // namespace cclabel::test
