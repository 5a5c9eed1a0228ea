// The GPU's region adjacency graph of label volumes (src/cuda/kernels/adjacency3d_bodies.cuh) run
// by the CPU executor: every thread a fiber, every shared and global access a yield point (so two
// warps really race for one table slot), warps meeting at their shuffles and votes (a lane that
// reads a lane outside the warp, lane 0 shuffled up or lane 31 down, gets random bits), blocks at
// their barriers and started in a random order. The items, summed by pair as the host's sort and
// reduce-by-key do, must equal cclabel::adjacency on the CPU exactly, for 6, 18 and 26, with and
// without the background, for odd shapes, 1-voxel-thin volumes, strides, random, multilabel and
// Voronoi-like label volumes, tiny launch shapes (many tiles, a table that fills and spills) and an
// item buffer too small for the first run. Leaving out any one direction must change the edges.
// Nothing here needs a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/volume.hpp"
#include "cuda/kernels/adjacency3d_bodies.cuh"
#include "emu/executor.hpp"
#include "support/label_volumes.hpp"

namespace cclabel::test {
namespace {

namespace cd = cclabel::cuda::detail;
namespace va = cclabel::cuda::detail::vadj;

/// The Ops of adjacency3d_bodies.cuh on the executor: a yield before every access; label reads
/// checked to lie on a voxel of the volume (not in the padding, not past an edge), item writes to
/// lie in the buffer and to hit each index once.
struct EmuAdjOps {
    emu::EmuOps& e;
    std::uint32_t tid;
    const va::Params& p;
    const cd::AdjOut& o;
    std::vector<bool>& written;
    unsigned& vote;  // the block's word for sync_or

    std::uint32_t lane() const { return tid % 32u; }
    std::uint32_t ld(const std::uint32_t* q) {
        e.pause();
        const std::int64_t off = q - p.labels;
        const std::int64_t z = off >= 0 ? off / p.slice_stride : -1, rem = off - z * p.slice_stride;
        const std::int64_t y = rem / p.row_stride, x = rem - y * p.row_stride;
        if (off < 0 || z >= std::int64_t(p.depth) || y >= std::int64_t(p.height) || x >= std::int64_t(p.width))
            throw std::runtime_error("label read off the volume at offset " + std::to_string(off));
        return *q;
    }
    std::uint32_t shfl_down(std::uint32_t v) { return e.shfl(0xFFFFFFFFu, v, lane() + 1); }
    std::uint32_t shfl_up(std::uint32_t v) { return e.shfl(0xFFFFFFFFu, v, lane() == 0 ? 32u : lane() - 1); }
    std::uint64_t shfl_up64(std::uint64_t v) {
        const std::uint64_t lo = shfl_up(std::uint32_t(v)), hi = shfl_up(std::uint32_t(v >> 32));
        return hi << 32 | lo;
    }
    std::uint64_t shfl64(std::uint64_t v, std::uint32_t src) {
        const std::uint64_t lo = e.shfl(0xFFFFFFFFu, std::uint32_t(v), src);
        const std::uint64_t hi = e.shfl(0xFFFFFFFFu, std::uint32_t(v >> 32), src);
        return hi << 32 | lo;
    }
    std::uint32_t ballot(bool pred) { return e.ballot(0xFFFFFFFFu, pred); }
    void sync() { e.sync(); }
    bool sync_or(bool pred) {
        e.sync();  // the last call's reset is done
        if (pred) e.pause(), vote = 1;
        e.sync();
        e.pause();
        const bool any = vote != 0;
        e.sync();  // every thread has read it
        if (tid == 0) vote = 0;
        return any;
    }
    std::uint32_t ld32(const unsigned int* q) { return e.pause(), *q; }
    std::uint32_t ld16(const unsigned short* q) { return e.pause(), *q; }
    std::uint64_t ld64(const unsigned long long* q) { return e.pause(), *q; }
    void st32(unsigned int* q, std::uint32_t v) { e.pause(), *q = v; }
    void st16(unsigned short* q, unsigned short v) { e.pause(), *q = v; }
    void st64(unsigned long long* q, std::uint64_t v) { e.pause(), *q = v; }
    std::uint64_t cas64(unsigned long long* q, std::uint64_t expected, std::uint64_t desired) {
        e.pause();
        const std::uint64_t old = *q;
        if (old == expected) *q = desired;
        return old;
    }
    std::uint32_t add32(unsigned int* q, std::uint32_t v) {
        e.pause();
        const std::uint32_t old = *q;
        *q = old + v;
        return old;
    }
    std::uint64_t add64(unsigned long long* q, std::uint64_t v) {
        e.pause();
        const std::uint64_t old = *q;
        *q = old + v;
        return old;
    }
    void max32(unsigned int* q, std::uint32_t v) { e.pause(), *q = std::max<std::uint32_t>(*q, v); }
    void put(std::uint64_t* key_at, std::uint64_t* contacts_at, std::uint64_t key, std::uint64_t n) {
        e.pause();
        const std::int64_t i = key_at - o.keys;
        if (i < 0 || std::uint64_t(i) >= o.capacity || contacts_at != o.contacts + i)
            throw std::runtime_error("item written outside the buffer at " + std::to_string(i));
        if (written[std::size_t(i)]) throw std::runtime_error("item " + std::to_string(i) + " written twice");
        written[std::size_t(i)] = true;
        *key_at = key;
        *contacts_at = n;
    }
};

struct Shape {
    std::uint32_t threads = va::kThreads, tile_h = va::kTileH, table = cd::kAdjTable, chunk = va::kChunk;
    std::uint64_t blocks = 2;    ///< the grid (blocks take tiles from the counter)
    std::uint64_t capacity = 0;  ///< the item buffer's first size (0: one an owned pair, never short)
};

const Shape kTiny{64, 2, 8, 3, 3, 0};     // two warps of one row each, an 8-slot table: spills
const Shape kSmall{64, 8, 64, 2, 4, 0};   // two warps of four rows, a 64-slot table
const Shape kDefault{};                    // the kernel's own launch shape

struct Emulated {
    std::vector<AdjacencyEdge> edges;
    std::uint64_t items = 0, runs = 0;
};

/// What adjacency3d_on_device computes, its kernel run by the executor: the kernel run again into
/// a buffer of the count when the first is short, as edges_of_items does; the items summed by pair.
Emulated emulate(const LabelVolume& v, int conn, bool bg, const Shape& shape, std::uint64_t seed) {
    va::Params p;
    p.labels = v.buf.data();
    p.width = std::uint32_t(v.w), p.height = std::uint32_t(v.h), p.depth = std::uint32_t(v.d);
    p.row_stride = v.rs, p.slice_stride = v.ss;
    p.tiles_x = std::uint32_t((v.w + cd::kAdjTileW - 1) / cd::kAdjTileW);
    p.tiles_y = std::uint32_t((v.h + shape.tile_h - 1) / shape.tile_h);
    p.tiles = std::uint64_t(p.tiles_x) * p.tiles_y * std::uint64_t(v.d);
    p.connectivity = conn;
    p.include_background = bg;
    p.threads = shape.threads, p.tile_h = shape.tile_h, p.table = shape.table, p.chunk = shape.chunk;
    std::uint64_t capacity = shape.capacity ? shape.capacity : std::uint64_t(v.w * v.h * v.d) * 13 + 1;
    Emulated out;
    std::vector<std::uint64_t> keys, contacts;
    cd::AdjTally tally{};
    for (int attempt = 0;; ++attempt) {
        if (attempt == 4) throw std::runtime_error("the items outgrew their buffer four times");
        keys.assign(capacity, 0xA5A5A5A5A5A5A5A5ull);
        contacts.assign(capacity, 0xA5A5A5A5A5A5A5A5ull);
        std::vector<bool> written(capacity, false);
        tally = cd::AdjTally{};
        const cd::AdjOut o{keys.data(), contacts.data(), capacity, &tally};
        struct Block {
            va::Shared s;
            unsigned vote = 0;
        };
        std::map<std::uint64_t, std::unique_ptr<Block>> blocks;
        emu::Executor ex(seed * 7 + std::uint64_t(attempt));
        ex.launch(shape.blocks, shape.threads, 32, [&](emu::EmuOps& e, std::uint32_t t, std::uint64_t b) {
            auto& blk = blocks[b];
            if (!blk) {
                blk = std::make_unique<Block>();
                std::memset(static_cast<void*>(&blk->s), 0xCD, sizeof(va::Shared));  // garbage, as on the GPU
            }
            EmuAdjOps ops{e, t, p, o, written, blk->vote};
            va::block_program(ops, p, o, blk->s, t);
        });
        ++out.runs;
        if (tally.items <= capacity) {
            for (std::uint64_t i = 0; i < tally.items; ++i)
                if (!written[i]) throw std::runtime_error("item " + std::to_string(i) + " counted but never written");
            for (std::uint64_t i = tally.items; i < capacity; ++i)
                if (written[i]) throw std::runtime_error("item " + std::to_string(i) + " written past the count");
            break;
        }
        capacity = tally.items;
    }
    out.items = tally.items;
    std::map<std::uint64_t, std::uint64_t> sum;
    std::uint32_t largest = 0;
    for (std::uint64_t i = 0; i < tally.items; ++i) {
        const std::uint32_t a = std::uint32_t(keys[i] >> 32), b = std::uint32_t(keys[i]);
        if (!(a < b)) throw std::runtime_error("an item's pair is not (smaller, larger)");
        if (contacts[i] == 0) throw std::runtime_error("an item with no contacts");
        largest = std::max(largest, a);
        sum[keys[i]] += contacts[i];
    }
    if (tally.largest_a != largest)
        throw std::runtime_error("largest_a " + std::to_string(tally.largest_a) + ", the items' " + std::to_string(largest));
    for (const auto& [k, n] : sum) out.edges.push_back(AdjacencyEdge{std::uint32_t(k >> 32), std::uint32_t(k), n});
    return out;
}

std::string edges_text(const std::vector<AdjacencyEdge>& e, std::size_t at) {
    if (at >= e.size()) return "(none)";
    return std::to_string(e[at].a) + "-" + std::to_string(e[at].b) + " x" + std::to_string(e[at].contacts);
}

::testing::AssertionResult same_edges(const std::vector<AdjacencyEdge>& got, const std::vector<AdjacencyEdge>& want) {
    const std::size_t n = std::max(got.size(), want.size());
    for (std::size_t i = 0; i < n; ++i)
        if (i >= got.size() || i >= want.size() || got[i].a != want[i].a || got[i].b != want[i].b ||
            got[i].contacts != want[i].contacts)
            return ::testing::AssertionFailure() << "edge " << i << ": emulated " << edges_text(got, i) << ", CPU "
                                                 << edges_text(want, i) << " (" << got.size() << " against "
                                                 << want.size() << " edges)";
    return ::testing::AssertionSuccess();
}

void expect_cpu(const LabelVolume& v, int conn, bool bg, const Shape& shape, std::uint64_t seed, const std::string& what) {
    const auto want = adjacency(v.view(), conn, bg, Backend::Cpu, 2);
    Emulated got;
    try {
        got = emulate(v, conn, bg, shape, seed);
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
        return;
    }
    EXPECT_TRUE(same_edges(got.edges, want)) << what;
}

std::string name(const char* kind, const LabelVolume& v, int conn, bool bg) {
    return std::string(kind) + " " + std::to_string(v.w) + "x" + std::to_string(v.h) + "x" + std::to_string(v.d) +
           " conn " + std::to_string(conn) + (bg ? " bg" : "");
}

TEST(EmuVolumeAdjacency, DirectionsAreTheCpusOwnedNeighbours) {
    // 3, 9 and 13 directions, all distinct, all after the voxel in raster order, 6 the faces, 18
    // the faces and edges: the union of the directions and their opposites is the connectivity.
    for (int conn : {6, 18, 26}) {
        ASSERT_EQ(va::directions(conn), conn / 2);
        std::map<std::tuple<int, int, int>, int> seen;
        for (int d = 0; d < va::directions(conn); ++d) {
            int dx, dy, dz;
            va::direction_offset(va::direction_at(conn, d), dx, dy, dz);
            const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
            EXPECT_TRUE(dz > 0 || (dz == 0 && dy > 0) || (dz == 0 && dy == 0 && dx > 0)) << d;
            EXPECT_LE(nonzero, conn == 6 ? 1 : conn == 18 ? 2 : 3) << conn << " direction " << d;
            EXPECT_EQ(seen[std::make_tuple(dx, dy, dz)]++, 0) << conn << " direction " << d << " twice";
        }
    }
    for (int k = 0; k < 13; ++k) {
        ASSERT_EQ(va::directions(va::kDropDirection + k), 12);
        for (int d = 0; d < 12; ++d) EXPECT_NE(va::direction_at(va::kDropDirection + k, d), k);
    }
}

TEST(EmuVolumeAdjacency, RandomVolumesEveryConnectivity) {
    struct Case {
        std::int64_t w, h, d;
    };
    const Case cases[] = {{5, 4, 3}, {33, 5, 4}, {40, 9, 3}, {64, 3, 2}, {70, 6, 2}};
    std::uint32_t seed = 1;
    for (const Case& c : cases)
        for (std::uint32_t palette : {2u, 6u, 50u})
            for (int conn : {6, 18, 26})
                for (bool bg : {false, true}) {
                    ++seed;
                    const LabelVolume v = random_labels(c.w, c.h, c.d, palette, 0.25, seed, seed % 2 ? 3 : 0,
                                                        seed % 3 ? 5 : 0);
                    expect_cpu(v, conn, bg, seed % 2 ? kTiny : kSmall, seed,
                               name("random", v, conn, bg) + " palette " + std::to_string(palette));
                }
}

TEST(EmuVolumeAdjacency, ThinVolumesAndWarpEdges) {
    // One voxel thin along each axis, single rows, columns and stacks, and widths around the warp
    // (lane 31's neighbour in the next tile, lane 0's in the one before).
    struct Case {
        std::int64_t w, h, d;
    };
    const Case cases[] = {{1, 1, 1},  {1, 1, 40}, {70, 1, 1}, {1, 40, 1}, {23, 9, 1}, {1, 9, 23}, {23, 1, 9},
                          {31, 3, 3}, {32, 3, 3}, {33, 3, 3}, {63, 2, 2}, {65, 2, 2}, {2, 17, 5}};
    std::uint32_t seed = 100;
    for (const Case& c : cases)
        for (int conn : {6, 18, 26})
            for (bool bg : {false, true}) {
                ++seed;
                const LabelVolume v = random_labels(c.w, c.h, c.d, 3, 0.2, seed, seed % 2 ? 1 : 0, seed % 2 ? 0 : 7);
                expect_cpu(v, conn, bg, seed % 3 == 0 ? kSmall : kTiny, seed, name("thin", v, conn, bg));
            }
}

TEST(EmuVolumeAdjacency, VoronoiAndMultilabelVolumes) {
    std::uint32_t seed = 300;
    for (int conn : {6, 18, 26})
        for (bool bg : {false, true}) {
            ++seed;
            const LabelVolume cells = voronoi(45, 20, 6, 12, seed, seed % 2 ? 2 : 0, 0, 7, 1000, 100000);
            expect_cpu(cells, conn, bg, kSmall, seed, name("voronoi", cells, conn, bg));
            expect_cpu(cells, conn, bg, kTiny, seed + 1, name("voronoi (tiny)", cells, conn, bg));
            // Many labels, every voxel its own: every pair distinct, the table floods.
            LabelVolume many(35, 4, 3);
            std::uint32_t next = 1;
            for (std::int64_t z = 0; z < 3; ++z)
                for (std::int64_t y = 0; y < 4; ++y)
                    for (std::int64_t x = 0; x < 35; ++x) many.at(x, y, z) = next++;
            expect_cpu(many, conn, bg, kTiny, seed, name("distinct", many, conn, bg));
        }
}

TEST(EmuVolumeAdjacency, TheKernelsOwnLaunchShape) {
    // 256 threads, 64-row tiles, the full table: several tiles in x, y and z.
    const LabelVolume cells = voronoi(70, 70, 3, 20, 7, 0, 0, 7, 1000, 100000);
    for (int conn : {6, 26}) expect_cpu(cells, conn, false, kDefault, 11, name("voronoi (default shape)", cells, conn, false));
    const LabelVolume noise = random_labels(40, 66, 2, 4, 0.3, 8, 1, 3);
    expect_cpu(noise, 18, true, kDefault, 12, name("random (default shape)", noise, 18, true));
}

TEST(EmuVolumeAdjacency, UniformAndEmptyVolumesHaveNoEdges) {
    for (int conn : {6, 18, 26})
        for (bool bg : {false, true}) {
            LabelVolume one(33, 5, 3);
            for (std::int64_t z = 0; z < 3; ++z)
                for (std::int64_t y = 0; y < 5; ++y)
                    for (std::int64_t x = 0; x < 33; ++x) one.at(x, y, z) = 7;
            const Emulated e = emulate(one, conn, bg, kTiny, 5);
            EXPECT_TRUE(e.edges.empty());
            EXPECT_EQ(e.items, 0u);
            LabelVolume zeros(33, 5, 3);
            EXPECT_TRUE(emulate(zeros, conn, bg, kTiny, 6).edges.empty());
        }
}

TEST(EmuVolumeAdjacency, ASurfaceIsSummedInTheTableNotSentOutVoxelByVoxel) {
    // Two halves split by a plane across z: every voxel of slice 3 touches slice 4 (26: nine
    // times, fewer at the edges), but a warp's row adds one run a direction.
    LabelVolume v(64, 8, 8);
    for (std::int64_t z = 0; z < 8; ++z)
        for (std::int64_t y = 0; y < 8; ++y)
            for (std::int64_t x = 0; x < 64; ++x) v.at(x, y, z) = z < 4 ? 1 : 2;
    for (int conn : {6, 18, 26}) {
        const Emulated e = emulate(v, conn, false, kSmall, 3);
        ASSERT_EQ(e.edges.size(), 1u);
        const std::uint64_t want = adjacency(v.view(), conn, false, Backend::Cpu)[0].contacts;
        EXPECT_EQ(e.edges[0].contacts, want) << conn;
        EXPECT_LE(e.items, 8u) << conn << ": a plane's pairs are one item a table";
    }
}

TEST(EmuVolumeAdjacency, AShortItemBufferRunsTheKernelAgain) {
    const LabelVolume v = random_labels(40, 7, 3, 30, 0.1, 21);
    for (int conn : {6, 26}) {
        Shape s = kTiny;
        s.capacity = 5;
        Emulated e;
        ASSERT_NO_THROW(e = emulate(v, conn, true, s, 4));
        EXPECT_GE(e.runs, 2u);
        EXPECT_TRUE(same_edges(e.edges, adjacency(v.view(), conn, true, Backend::Cpu))) << conn;
    }
}

TEST(EmuVolumeAdjacency, SchedulesAndBlockCountsDoNotChangeTheEdges) {
    const LabelVolume v = voronoi(37, 11, 5, 9, 44, 1, 2, 7, 1000, 100000);
    const auto want = adjacency(v.view(), 26, false, Backend::Cpu);
    for (std::uint64_t seed = 0; seed < 6; ++seed) {
        Shape s = seed % 2 ? kTiny : kSmall;
        s.blocks = 1 + seed;
        EXPECT_TRUE(same_edges(emulate(v, 26, false, s, seed).edges, want)) << "seed " << seed;
    }
}

TEST(EmuVolumeAdjacency, DroppingAnyOneDirectionChangesTheEdges) {
    // The mutation: 26 without owned direction k. A random volume has pairs in every direction, so
    // each mutant must differ from the CPU somewhere (the test has teeth), while the full set
    // agrees on the same volume.
    const LabelVolume v = random_labels(34, 6, 4, 5, 0.0, 77, 2, 3);
    const auto want = adjacency(v.view(), 26, false, Backend::Cpu);
    EXPECT_TRUE(same_edges(emulate(v, 26, false, kTiny, 1).edges, want));
    for (int k = 0; k < 13; ++k) {
        const Emulated mutant = emulate(v, va::kDropDirection + k, false, kTiny, std::uint64_t(k) + 2);
        EXPECT_FALSE(same_edges(mutant.edges, want)) << "26 without direction " << k << " gave the CPU's edges";
    }
}

}  // namespace
}  // namespace cclabel::test
