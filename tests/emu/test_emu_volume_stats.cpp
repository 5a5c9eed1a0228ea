// The GPU statistics of label volumes (src/cuda/kernels/volume_stats_bodies.cuh) run by the CPU
// executor: every thread a fiber, every shared and global access a yield point (so two threads
// really race for one hash slot), blocks at their barriers, blocks started in a random order. The
// rows must equal cclabel::regions_volume on the CPU bit for bit (centroids by their bits, the
// value at the first voxel, the surface over the 6 face neighbours), for random, thin, single-slice,
// single-row and single-column volumes, every format, every connectivity, label volumes not from
// the labeller, tiny launch shapes (many tiles a block, a table that overflows to the global rows)
// and a row cap below N. Nothing here needs a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/volume_stats.hpp"
#include "cuda/kernels/volume_stats_bodies.cuh"
#include "emu/executor.hpp"
#include "support/volume_data.hpp"

namespace cclabel::test {
namespace {

namespace vs = cclabel::cuda::detail::vstats;

/// The Ops of volume_stats_bodies.cuh on the executor: a yield before every access, label reads
/// checked against the label volume, global row writes against the rows this call may write.
struct EmuStatsOps {
    emu::EmuOps& e;
    const std::uint32_t* labels;
    std::uint64_t voxels;
    const unsigned long long* rows;
    std::uint64_t row_words;
    const vs::Shared* shared;

    std::uint32_t ld_label(const std::uint32_t* p) {
        e.pause();
        if (p < labels || p >= labels + voxels)
            throw std::runtime_error("label read outside the volume at offset " + std::to_string(p - labels));
        return *p;
    }
    std::uint32_t ld(const std::uint32_t* p) { return e.pause(), *p; }
    std::uint64_t ld64(const unsigned long long* p) { return e.pause(), *p; }
    void st(std::uint32_t* p, std::uint32_t v) { e.pause(), *p = v; }
    void st64(unsigned long long* p, std::uint64_t v) { e.pause(), *p = v; }
    std::uint32_t cas(std::uint32_t* p, std::uint32_t c, std::uint32_t v) {
        e.pause();
        const std::uint32_t o = *p;
        if (o == c) *p = v;
        return o;
    }
    void add32(std::uint32_t* p, std::uint32_t v) { e.pause(), *p += v; }
    void min32(std::uint32_t* p, std::uint32_t v) { e.pause(), *p = std::min(*p, v); }
    void max32(std::uint32_t* p, std::uint32_t v) { e.pause(), *p = std::max(*p, v); }
    void add64(unsigned long long* p, std::uint64_t v) { e.pause(), check(p), *p += v; }
    void min64(unsigned long long* p, std::uint64_t v) { e.pause(), check(p), *p = std::min<unsigned long long>(*p, v); }
    void max64(unsigned long long* p, std::uint64_t v) { e.pause(), check(p), *p = std::max<unsigned long long>(*p, v); }
    void sync() { e.sync(); }

    /// A 64-bit word is the block's shared table or one of the rows this call writes.
    void check(const unsigned long long* p) {
        const auto* b = reinterpret_cast<const unsigned char*>(p);
        const auto* s = reinterpret_cast<const unsigned char*>(shared);
        if (b >= s && b < s + sizeof(vs::Shared)) return;
        if (p < rows || p >= rows + row_words)
            throw std::runtime_error("64-bit write outside the shared table and the rows (row " +
                                     std::to_string((p - rows) / std::int64_t(vs::kRowWords)) + ", " +
                                     std::to_string(row_words / vs::kRowWords) + " rows)");
    }
};

struct Shape {
    std::uint32_t threads = vs::kThreads, ppt = vs::kPpt, table = vs::kTable, tiles_per_block = 1, warp = 32;
};

/// What regions_volume_device computes, its kernels run by the executor. @p count: N as the device
/// reads it (null: the largest label, as the device finds it).
std::vector<VolumeRegionStats> emulate(const VolumeView& view, const std::vector<std::uint32_t>& labels,
                                       std::uint64_t capacity, const std::uint32_t* count, const Shape& shape,
                                       std::uint64_t seed) {
    vs::Params g;
    g.labels = labels.data();
    g.width = std::uint32_t(view.width), g.height = std::uint32_t(view.height), g.depth = std::uint32_t(view.depth);
    g.voxels = view.voxels();
    std::uint32_t largest = 0;
    for (std::uint32_t l : labels) largest = std::max(largest, l);
    g.count = count ? count : &largest;
    g.capacity = capacity;
    g.threads = shape.threads, g.ppt = shape.ppt, g.table = shape.table, g.tiles_per_block = shape.tiles_per_block;
    std::vector<unsigned long long> rows(capacity * vs::kRowWords, 0xA5A5A5A5A5A5A5A5ull);  // as cudaMalloc
    g.rows = rows.data();
    const std::int64_t bpp = bytes_per_pixel(view.format);
    g.data = static_cast<const std::uint8_t*>(view.data);
    g.row_stride = view.row_stride ? view.row_stride : view.width * bpp;
    g.slice_stride = view.slice_stride ? view.slice_stride : view.height * g.row_stride;
    g.format = view.format;

    const std::uint64_t n_rows = vs::rows_of(g);
    for (std::uint64_t l = 0; l < n_rows; ++l) vs::row_init(g.rows + l * vs::kRowWords);
    if (g.voxels != 0) {
        emu::Executor ex(seed);
        std::map<std::uint64_t, std::unique_ptr<vs::Shared>> shared;  // a block's shared memory
        const std::uint64_t tiles = vs::tiles_of(g);
        const std::uint64_t blocks = (tiles + g.tiles_per_block - 1) / g.tiles_per_block;
        ex.launch(blocks, g.threads, shape.warp, [&](emu::EmuOps& e, std::uint32_t t, std::uint64_t b) {
            auto& s = shared[b];
            if (!s) {
                s = std::make_unique<vs::Shared>();
                std::memset(static_cast<void*>(s.get()), 0xCD, sizeof(vs::Shared));  // garbage, as on the GPU
            }
            EmuStatsOps ops{e, labels.data(), g.voxels, g.rows, n_rows * vs::kRowWords, s.get()};
            vs::block_program(ops, g, *s, t, b);
        });
    }
    for (std::uint64_t l = 0; l < n_rows; ++l) vs::finish_row(g, l);
    for (std::uint64_t w = n_rows * vs::kRowWords; w < rows.size(); ++w)
        EXPECT_EQ(rows[w], 0xA5A5A5A5A5A5A5A5ull) << "row " << w / vs::kRowWords << " written";
    std::vector<VolumeRegionStats> out(n_rows);
    std::memcpy(static_cast<void*>(out.data()), rows.data(), n_rows * sizeof(VolumeRegionStats));
    return out;
}

void expect_same_rows(const std::vector<VolumeRegionStats>& got, const std::vector<VolumeRegionStats>& want,
                      const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t l = 0; l < want.size(); ++l) {
        const std::string at = what + " label " + std::to_string(l);
        ASSERT_EQ(got[l].voxels, want[l].voxels) << at;
        ASSERT_EQ(got[l].surface, want[l].surface) << at;
        ASSERT_EQ(got[l].x, want[l].x) << at;
        ASSERT_EQ(got[l].y, want[l].y) << at;
        ASSERT_EQ(got[l].z, want[l].z) << at;
        ASSERT_EQ(got[l].width, want[l].width) << at;
        ASSERT_EQ(got[l].height, want[l].height) << at;
        ASSERT_EQ(got[l].depth, want[l].depth) << at;
        ASSERT_EQ(0, std::memcmp(&got[l].cx, &want[l].cx, 8)) << at << ": cx " << got[l].cx << " vs " << want[l].cx;
        ASSERT_EQ(0, std::memcmp(&got[l].cy, &want[l].cy, 8)) << at << ": cy " << got[l].cy << " vs " << want[l].cy;
        ASSERT_EQ(0, std::memcmp(&got[l].cz, &want[l].cz, 8)) << at << ": cz " << got[l].cz << " vs " << want[l].cz;
        ASSERT_EQ(got[l].value, want[l].value) << at;
    }
}

std::vector<std::uint32_t> label_of(const VolumeView& v, int conn, bool background) {
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    if (background) o = background_zero(v.format, o);
    std::vector<std::uint32_t> lab(std::size_t(v.voxels()));
    label_volume(v, lab.data(), o);
    return lab;
}

std::vector<VolumeRegionStats> cpu_rows(const VolumeView& v, const std::vector<std::uint32_t>& lab, int conn) {
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    o.threads = 3;
    return regions_volume(v, lab.empty() ? nullptr : lab.data(), o);
}

/// The labeller's labels of @p v, emulated under @p shape, against the CPU statistics.
void expect_cpu(const VolumeView& v, int conn, bool background, const Shape& shape, std::uint64_t seed,
                const std::string& what) {
    const auto lab = label_of(v, conn, background);
    std::uint32_t n = 0;
    for (std::uint32_t l : lab) n = std::max(n, l);
    expect_same_rows(emulate(v, lab, std::uint64_t(n) + 1, &n, shape, seed), cpu_rows(v, lab, conn), what);
}

const Shape kTiny{8, 2, 4, 3, 4};      // 16-voxel tiles, 3 a block, a 4-entry table: flushes and overflow
const Shape kSmall{32, 4, 16, 2, 32};  // warps of 32, tiles of 128 voxels
const Shape kDefault{};                 // the kernel's own launch shape

TEST(EmuVolumeStats, RandomVolumesEveryConnectivityAndFormat) {
    const PixelFormat formats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32,
                                   PixelFormat::RGB8,    PixelFormat::RGBA8, PixelFormat::I8,     PixelFormat::I16,
                                   PixelFormat::I32,     PixelFormat::I64,   PixelFormat::U64,    PixelFormat::F16,
                                   PixelFormat::F32,     PixelFormat::F64};
    std::uint32_t seed = 0;
    for (PixelFormat f : formats)
        for (int conn : {6, 18, 26})
            for (bool background : {false, true}) {
                Volume v = random_volume(11, 7, 5, f == PixelFormat::Binary8 ? 2 : 4, 0.4, ++seed);
                // Padding between rows and slices: the value must be read through the strides.
                const VolumeView& view = v.as(f, seed % 2 ? 3 : 0, seed % 3 ? 5 : 0, seed);
                expect_cpu(view, conn, background, seed % 2 ? kTiny : kSmall, seed,
                           "format " + std::to_string(int(f)) + " conn " + std::to_string(conn) +
                               (background ? " bg" : ""));
            }
}

TEST(EmuVolumeStats, ThinSingleSliceSingleRowAndSingleColumnVolumes) {
    struct Case {
        std::int64_t w, h, d;
    };
    const Case cases[] = {{1, 1, 1}, {1, 1, 70}, {70, 1, 1}, {1, 40, 1}, {23, 9, 1}, {1, 9, 23}, {5, 1, 17},
                          {33, 2, 2}, {2, 33, 2}, {2, 2, 33}, {17, 3, 1}};
    std::uint32_t seed = 100;
    for (const Case& c : cases)
        for (int conn : {6, 26}) {
            Volume v = random_volume(c.w, c.h, c.d, 3, 0.35, ++seed);
            const VolumeView& view = v.as(PixelFormat::Gray8);
            const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + "x" + std::to_string(c.d);
            for (const Shape& s : {kTiny, kSmall}) expect_cpu(view, conn, true, s, seed, what);
        }
}

TEST(EmuVolumeStats, TheKernelsOwnShapeOnALargerVolume) {
    // 2 tiles of 2048 voxels and a bit: runs across thread, row, slice and tile ends.
    Volume v = random_volume(37, 19, 7, 3, 0.3, 7);
    for (int conn : {6, 18, 26}) expect_cpu(v.as(PixelFormat::U32), conn, true, kDefault, std::uint64_t(conn), "default shape");
}

TEST(EmuVolumeStats, ManySchedulesRaceForTheSameSlots) {
    // Few labels, many threads per tile: the same keys are claimed concurrently in every schedule.
    Volume v = random_volume(16, 8, 4, 3, 0.2, 11);
    const VolumeView& view = v.as(PixelFormat::Gray8);
    for (std::uint64_t seed = 1; seed <= 12; ++seed) expect_cpu(view, 26, false, kSmall, seed, "seed " + std::to_string(seed));
}

TEST(EmuVolumeStats, BoxAndCavitySurfaceAsDocumented) {
    // A 5 × 4 × 3 box of value 1 with a 1-voxel cavity of value 2, in a volume of 0: the box's
    // a·b·c − (a−2)(b−2)(c−2) = 54, plus the 3 of the cavity's face neighbours that were inside.
    Volume v(9, 8, 7);
    for (int z = 2; z < 5; ++z)
        for (int y = 2; y < 6; ++y)
            for (int x = 2; x < 7; ++x) v.at(x, y, z) = 1;
    v.at(4, 3, 3) = 2;
    const VolumeView& view = v.as(PixelFormat::Gray8);
    const auto lab = label_of(view, 6, true);
    const auto rows = emulate(view, lab, 3, nullptr, kTiny, 5);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1].voxels, 59u);
    EXPECT_EQ(rows[1].surface, 57u);
    EXPECT_EQ(rows[2].voxels, 1u);
    EXPECT_EQ(rows[2].surface, 1u);
    EXPECT_EQ(rows[1].x, 2);
    EXPECT_EQ(rows[1].y, 2);
    EXPECT_EQ(rows[1].z, 2);
    EXPECT_EQ(rows[1].width, 5);
    EXPECT_EQ(rows[1].height, 4);
    EXPECT_EQ(rows[1].depth, 3);
    expect_same_rows(rows, cpu_rows(view, lab, 6), "box");
}

TEST(EmuVolumeStats, LabelVolumesNotFromTheLabellerGapsAndBackground) {
    // Arbitrary label values with gaps (labels with no voxel get empty rows: NaN centroids, value 0)
    // and one label scattered in pieces across the volume.
    Volume v = random_volume(13, 6, 5, 5, 0.2, 21);
    const VolumeView& view = v.as(PixelFormat::Gray16);
    std::vector<std::uint32_t> lab(std::size_t(view.voxels()));
    std::mt19937 rng(3);
    for (auto& l : lab) l = rng() % 4 == 0 ? 0u : 3u * (rng() % 9);
    std::uint32_t n = *std::max_element(lab.begin(), lab.end());
    for (const Shape& s : {kTiny, kSmall})
        expect_same_rows(emulate(view, lab, n + 1, &n, s, 9), cpu_rows(view, lab, 18), "gaps");
    std::vector<std::uint32_t> zeros(lab.size(), 0);  // all background: one row
    std::uint32_t zero = 0;
    expect_same_rows(emulate(view, zeros, 1, &zero, kTiny, 1), cpu_rows(view, zeros, 26), "all background");
}

TEST(EmuVolumeStats, RowCapBelowNWritesOnlyTheCappedRows) {
    Volume v = random_volume(12, 5, 4, 6, 0.1, 31);
    const VolumeView& view = v.as(PixelFormat::Gray8);
    const auto lab = label_of(view, 6, true);
    std::uint32_t n = *std::max_element(lab.begin(), lab.end());
    ASSERT_GT(n, 6u);
    const auto want = cpu_rows(view, lab, 6);
    const auto got = emulate(view, lab, 5, &n, kTiny, 2);  // rows 0..4 only; the buffer holds 5
    ASSERT_EQ(got.size(), 5u);
    expect_same_rows(got, std::vector<VolumeRegionStats>(want.begin(), want.begin() + 5), "cap 5");
}

TEST(EmuVolumeStats, EmptyVolumeGivesTheBackgroundRowOnly) {
    Volume v(0, 3, 2);
    const VolumeView& view = v.as(PixelFormat::Gray8);
    std::vector<std::uint32_t> none;
    std::uint32_t zero = 0;
    expect_same_rows(emulate(view, none, 1, &zero, kTiny, 1), cpu_rows(view, none, 26), "empty");
}

}  // namespace
}  // namespace cclabel::test
