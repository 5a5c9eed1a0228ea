// The per-thread programs of the GPU statistics (src/cuda/kernels/stats_bodies.cuh) run on the
// host: every block's tiles and phases in turn (Clear, Stage, Runs, Chain, Flush, separated by the
// kernel's barriers), every thread of a phase in a shuffled order (a phase must not depend on the
// order of its threads), plain memory standing in for shared memory and atomics. The rows must
// equal the CPU statistics (cclabel::regions on the CPU) bit for bit, so CI checks the GPU logic
// without a GPU: runs across thread, row and tile ends, blocks of one and several tiles, the table
// flushed between tiles or overflowing to the global rows, label images not from the labeller, and
// a row cap below N.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>

#include "cclabel/cclabel.hpp"
#include "cclabel/stats.hpp"
#include "cuda/kernels/stats_bodies.cuh"
#include "support/test_image.hpp"

namespace cclabel::test {
namespace {

using namespace cclabel::cuda::detail;

/// Sequential stand-ins for the GPU's atomics. Accesses go through memcpy: the 32-bit halves of a
/// row word are written through uint32_t pointers into 64-bit storage.
struct HostStatsOps {
    template <typename T>
    static T get(const T* p) {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    template <typename T>
    static void put(T* p, T v) {
        std::memcpy(p, &v, sizeof v);
    }
    std::uint32_t ld_label(const std::uint32_t* p) { return get(p); }
    std::uint32_t ld(const std::uint32_t* p) { return get(p); }
    std::uint32_t cas(std::uint32_t* p, std::uint32_t c, std::uint32_t v) {
        const std::uint32_t o = get(p);
        if (o == c) put(p, v);
        return o;
    }
    void add32(std::uint32_t* p, std::uint32_t v) { put(p, get(p) + v); }
    void add64(unsigned long long* p, std::uint64_t v) { put(p, get(p) + v); }
    void min32(std::uint32_t* p, std::uint32_t v) { put(p, std::min(get(p), v)); }
    void max32(std::uint32_t* p, std::uint32_t v) { put(p, std::max(get(p), v)); }
    void min64(unsigned long long* p, std::uint64_t v) { put(p, std::min<unsigned long long>(get(p), v)); }
    void max64(unsigned long long* p, std::uint64_t v) { put(p, std::max<unsigned long long>(get(p), v)); }
};

/// Flushes of a full table between tiles seen by emulate (the overflow test wants some).
std::uint64_t flushes_between_tiles = 0;

/// What regions_device computes, with the kernels' loops run on the host: blocks of
/// @p tiles_per_block tiles. @p count: N as the device would read it (null: rows = capacity).
std::vector<RegionStats> emulate(const TestImage& img, const std::vector<std::uint32_t>& labels, int conn,
                                 const std::uint32_t* count, std::uint64_t capacity, std::uint32_t seed,
                                 std::uint64_t tiles_per_block) {
    StatsParams g;
    g.labels = labels.data();
    g.width = std::uint32_t(img.width);
    g.height = std::uint32_t(img.height);
    g.pixels = std::uint64_t(img.width) * std::uint64_t(img.height);
    g.connectivity = conn;
    g.count = count;
    g.capacity = capacity;
    std::vector<unsigned long long> rows(capacity * kRowWords, 0xA5A5A5A5A5A5A5A5ull);  // garbage, as cudaMalloc
    g.rows = rows.data();
    const ImageView view = img.view();
    g.img = static_cast<const std::uint8_t*>(view.data);
    g.stride = view.row_bytes();
    g.format = view.format;

    HostStatsOps ops;
    const std::uint64_t n_rows = stats_rows(g);
    for (std::uint64_t l = 0; l < n_rows; ++l) row_init(g.rows + l * kRowWords);
    auto shared = std::make_unique<StatsShared>();
    std::memset(shared.get(), 0xCD, sizeof(StatsShared));  // shared memory starts as garbage
    std::vector<std::uint32_t> order(kStatsThreads);
    std::iota(order.begin(), order.end(), 0u);
    std::mt19937 rng(seed);
    std::vector<StatsEnds> ends(kStatsThreads);
    std::vector<std::uint32_t> prefix(kStatsThreads), mark_before(kStatsThreads);
    auto phase = [&](auto&& fn) {
        std::shuffle(order.begin(), order.end(), rng);
        for (std::uint32_t t : order) fn(t);
    };
    const std::uint64_t tiles = (g.pixels + kStatsTile - 1) / kStatsTile;
    for (std::uint64_t first = 0; first < tiles; first += tiles_per_block) {  // one block
        StatsShared& s = *shared;
        const std::uint64_t last = std::min(tiles, first + tiles_per_block);
        phase([&](std::uint32_t t) { stats_clear(g, s, t); });
        for (std::uint64_t b = first; b < last; ++b) {
            phase([&](std::uint32_t t) { stats_stage(ops, g, s, t, b); });
            phase([&](std::uint32_t t) {
                ends[t] = stats_runs(ops, g, s, t, b);
                stats_chain_head(s, t, ends[t]);
            });
            // the kernel's block scans, done directly
            std::uint32_t sum = 0, mark = 0;
            for (std::uint32_t t = 0; t < kStatsThreads; ++t) {
                mark_before[t] = mark;
                sum += chain_piece_perim(ends[t]);
                mark = std::max(mark, chain_head_mark(ends[t], t));
                prefix[t] = sum;
            }
            phase([&](std::uint32_t t) { stats_chain_prefix(s, t, prefix[t]); });
            phase([&](std::uint32_t t) { stats_chain_close(ops, g, s, ends[t], prefix[t], mark_before[t]); });
            if (b + 1 == last) {
                phase([&](std::uint32_t t) { stats_flush(ops, g, s, t); });
            } else if (s.used > kStatsFlushAt) {
                ++flushes_between_tiles;
                phase([&](std::uint32_t t) { stats_flush(ops, g, s, t); });
                phase([&](std::uint32_t t) { stats_clear(g, s, t); });
            }
        }
    }
    for (std::uint64_t l = 0; l < n_rows; ++l) stats_finish_row(g, l);
    std::vector<RegionStats> out(n_rows);
    std::memcpy(static_cast<void*>(out.data()), rows.data(), n_rows * sizeof(RegionStats));
    // Rows beyond N + 1 are not written.
    for (std::uint64_t w = n_rows * kRowWords; w < rows.size(); ++w)
        EXPECT_EQ(rows[w], 0xA5A5A5A5A5A5A5A5ull) << "row " << w / kRowWords << " written";
    return out;
}

void expect_same_rows(const std::vector<RegionStats>& got, const std::vector<RegionStats>& want,
                      const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t l = 0; l < want.size(); ++l) {
        const std::string at = what + " label " + std::to_string(l);
        ASSERT_EQ(got[l].area, want[l].area) << at;
        ASSERT_EQ(got[l].perimeter, want[l].perimeter) << at;
        ASSERT_EQ(got[l].x, want[l].x) << at;
        ASSERT_EQ(got[l].y, want[l].y) << at;
        ASSERT_EQ(got[l].width, want[l].width) << at;
        ASSERT_EQ(got[l].height, want[l].height) << at;
        // Bit for bit, NaN of empty rows included.
        ASSERT_EQ(0, std::memcmp(&got[l].cx, &want[l].cx, 8)) << at << ": cx " << got[l].cx << " vs " << want[l].cx;
        ASSERT_EQ(0, std::memcmp(&got[l].cy, &want[l].cy, 8)) << at << ": cy " << got[l].cy << " vs " << want[l].cy;
        ASSERT_EQ(got[l].value, want[l].value) << at;
    }
}

std::vector<RegionStats> cpu_rows(const TestImage& img, const std::vector<std::uint32_t>& labels, int conn) {
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    return regions(img.view(), labels.data(), o);
}

void check_image(const TestImage& img, const std::vector<std::uint32_t>& labels, const std::string& what,
                 std::uint32_t seed) {
    std::uint32_t n = 0;
    for (auto l : labels) n = std::max(n, l);
    for (int conn : {4, 8}) {
        const auto want = cpu_rows(img, labels, conn);
        const std::string w = what + " conn " + std::to_string(conn);
        // N from the device (the labeller's count) with spare capacity; N unknown (capacity = N + 1).
        // One tile a block and several (the table kept across tiles).
        expect_same_rows(emulate(img, labels, conn, &n, std::uint64_t(n) + 7, seed, 1), want, w + " count");
        expect_same_rows(emulate(img, labels, conn, nullptr, std::uint64_t(n) + 1, seed + 1, 3), want, w + " capacity");
    }
}

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

TEST(StatsBodies, LabelledRandomImagesEveryFormat) {
    // Widths below, at and above a thread's 8 pixels and a block's 2048, so runs cross thread,
    // row and block ends in every way; heights give several blocks.
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1},   {1, 300}, {7, 50},  {8, 33},  {9, 40},
                                                           {64, 70}, {255, 9}, {2047, 3}, {2049, 4}, {3000, 2}};
    std::uint32_t seed = 11;
    for (PixelFormat f : kFormats)
        for (auto [w, h] : sizes)
            for (std::uint64_t pal : {2ull, 0ull}) {
                const auto img = make_image(w, h, f, random_values(w, h, pal, 0.2, seed), seed % 2 ? 5 : 0);
                Options o;
                o.connectivity = seed % 2 ? 4 : 8;
                o.backend = Backend::Cpu;
                if (seed % 3 == 0 && f != PixelFormat::Binary8) o.background = background_channels(f, 0);
                const Labels lab = label(img.view(), o);
                check_image(img, lab.data,
                            std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h) +
                                " pal " + std::to_string(pal),
                            seed);
                ++seed;
            }
}

TEST(StatsBodies, OneHugeRegionAndLongRuns) {
    // One label everywhere (every thread's run chained across the whole block), and stripes
    // whose runs end exactly at thread and block ends.
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{4096, 3}, {1000, 11}, {2048, 2}}) {
        const auto img = make_image(w, h, PixelFormat::Gray8, std::vector<std::uint64_t>(std::size_t(w * h), 7));
        std::vector<std::uint32_t> lab(std::size_t(w * h), 1);
        check_image(img, lab, "uniform " + std::to_string(w), 3);
        for (std::int64_t period : {8, 16, 2048}) {
            std::vector<std::uint64_t> v(std::size_t(w * h));
            for (std::int64_t i = 0; i < w * h; ++i) v[std::size_t(i)] = std::uint64_t((i % w) / period % 2);
            const auto stripes = make_image(w, h, PixelFormat::Gray8, v);
            check_image(stripes, label(stripes.view()).data, "stripes " + std::to_string(period), 4);
        }
    }
}

TEST(StatsBodies, TableOverflowAndManyTinyRegions) {
    // Every pixel its own label: 2048 labels a block against a 256-entry table, so most runs go
    // to the global rows directly; and a checkerboard (tiny regions in both connectivities).
    const std::int64_t w = 301, h = 40;
    std::vector<std::uint64_t> v(std::size_t(w * h));
    std::iota(v.begin(), v.end(), 0ull);
    const auto distinct = make_image(w, h, PixelFormat::U32, v);
    flushes_between_tiles = 0;
    check_image(distinct, label(distinct.view()).data, "all distinct", 5);
    EXPECT_GT(flushes_between_tiles, 0u) << "a table over half full is flushed between tiles";
    for (std::int64_t i = 0; i < w * h; ++i) v[std::size_t(i)] = std::uint64_t(((i % w) + (i / w)) % 2);
    const auto board = make_image(w, h, PixelFormat::Binary8, v);
    Options four;
    four.connectivity = 4;
    check_image(board, label(board.view(), four).data, "checkerboard", 6);
}

TEST(StatsBodies, LabelImagesNotFromTheLabeller) {
    // Gaps in the numbering, labels out of raster order, one label on many blobs, the largest
    // possible label.
    std::mt19937 rng(9);
    for (int round = 0; round < 12; ++round) {
        const std::int64_t w = 1 + rng() % 700, h = 1 + rng() % 30;
        const auto img = make_image(w, h, PixelFormat::RGB8, random_values(w, h, 4, 0.0, rng()));
        std::vector<std::uint32_t> lab(std::size_t(w * h));
        const std::uint32_t top = std::uint32_t(std::min<std::int64_t>(w * h, 1 + rng() % 50));
        for (auto& l : lab) l = rng() % 3 == 0 ? 0 : std::uint32_t(rng() % (top + 1));
        lab[rng() % lab.size()] = std::uint32_t(w * h);
        check_image(img, lab, "arbitrary " + std::to_string(round), 100 + std::uint32_t(round));
    }
}

TEST(StatsBodies, RowCapBelowN) {
    // capacity < N + 1: rows 0..capacity-1 are exactly the CPU's (the other labels' pixels are
    // counted nowhere, but still border the counted regions), and nothing beyond is written.
    const std::int64_t w = 97, h = 61;
    const auto img = make_image(w, h, PixelFormat::Gray8, random_values(w, h, 3, 0.1, 77));
    const Labels lab = label(img.view());
    ASSERT_GT(lab.count, 20u);
    for (int conn : {4, 8}) {
        const auto want = cpu_rows(img, lab.data, conn);
        const std::uint64_t cap = 20;
        const auto got = emulate(img, lab.data, conn, &lab.count, cap, 1, 2);
        expect_same_rows(got, std::vector<RegionStats>(want.begin(), want.begin() + std::ptrdiff_t(cap)), "cap 20");
    }
}

}  // namespace
}  // namespace cclabel::test
