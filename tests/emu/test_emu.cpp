// The CUDA labeller's per-thread programs, run by the CPU executor (fibers, a seeded scheduler
// that switches at every memory operation) and compared label for label with the CPU labeller,
// and certified by verify(). Plus the bit helpers at their edge values and the launch planner at
// its limits. Runs in CI, where there is no GPU.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>

#include "cclabel/cclabel.hpp"
#include "core/request.hpp"
#include "cuda/kernels/bits.cuh"
#include "cuda/launch.hpp"
#include "emu/emu_label.hpp"
#include "reference/tolerance_flood_fill.hpp"
#include "support/adversarial.hpp"
#include "support/channel_image.hpp"
#include "support/test_image.hpp"

namespace cclabel::test {
namespace {

using cuda::LaunchShape;
using cuda::Tuning;
namespace cd = cclabel::cuda::detail;

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

// ---- the bit helpers: the same table runs on the GPU in tests/cuda ------------------------------

TEST(EmuBits, EdgeValues) {
    EXPECT_EQ(cd::clz32(0), 32u);
    EXPECT_EQ(cd::clz32(1), 31u);
    EXPECT_EQ(cd::clz32(0x80000000u), 0u);
    EXPECT_EQ(cd::clz32(0xFFFFFFFFu), 0u);
    EXPECT_EQ(cd::ffs32(0), 0u);
    EXPECT_EQ(cd::ffs32(1), 1u);
    EXPECT_EQ(cd::ffs32(0x80000000u), 32u);
    EXPECT_EQ(cd::ffs32(0xFFFFFFFFu), 1u);
    EXPECT_EQ(cd::popc32(0), 0u);
    EXPECT_EQ(cd::popc32(0xFFFFFFFFu), 32u);
    EXPECT_EQ(cd::mask_below(0), 0u);
    EXPECT_EQ(cd::mask_below(1), 1u);
    EXPECT_EQ(cd::mask_below(31), 0x7FFFFFFFu);
    EXPECT_EQ(cd::mask_below(32), 0xFFFFFFFFu);
    EXPECT_EQ(cd::mask_upto(0), 1u);
    EXPECT_EQ(cd::mask_upto(30), 0x7FFFFFFFu);
    EXPECT_EQ(cd::mask_upto(31), 0xFFFFFFFFu);
    EXPECT_EQ(cd::highest_bit(1), 0u);
    EXPECT_EQ(cd::highest_bit(0x80000001u), 31u);
}

TEST(EmuBits, FastDivisionIsExact) {
    // Divisors of every bit length and their neighbours, against dividends at the edges and random.
    std::vector<std::uint32_t> divisors = {1, 2, 3, 5, 7, 8, 9, 31, 32, 33, 641, 1024, 1025, 4095, 33600, 0x7FFFFFFFu,
                                           0x80000000u, 0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    std::mt19937 rng(7);
    for (int k = 0; k < 200; ++k) divisors.push_back(std::uint32_t(rng()) >> (rng() % 32) | 1u);
    for (std::uint32_t d : divisors) {
        const cd::FastDiv f(d);
        std::vector<std::uint32_t> xs = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, 0x7FFFFFFFu, 0x80000000u,
                                         0xFFFFFFFEu, 0xFFFFFFFFu, 0xFFFFFFFFu - d, 0xFFFFFFFFu / d * d};
        for (int k = 0; k < 2000; ++k) xs.push_back(std::uint32_t(rng()) >> (rng() % 32));
        for (std::uint32_t x : xs) {
            ASSERT_EQ(f.div(x), x / d) << x << " / " << d;
            ASSERT_EQ(f.mod(x), x % d) << x << " % " << d;
        }
    }
}

// ---- the launch planner -------------------------------------------------------------------------

// The pixel pipeline's plans (segment_runs off): the segment plans are checked below.
cd::LaunchPlan pixel_plan(std::uint64_t w, std::uint64_t h, const LaunchShape& s, bool wide, std::uint64_t temp,
                          bool for_gpu = true) {
    cclabel::cuda::Switches sw;
    sw.segment_runs = false;
    return cd::plan_launch(w, h, s, wide, temp, for_gpu, sw);
}

TEST(EmuPlan, SegmentPlansCoverThePicture) {
    const LaunchShape s{};
    for (auto [w, h] : std::array<std::pair<std::uint64_t, std::uint64_t>, 8>{
             {{1, 1}, {31, 7}, {32, 8}, {33, 9}, {33600, 24000}, {65535, 65537}, {0xFFFFFFFFull, 1}, {1, 0xFFFFFFFFull}}}) {
        const auto p = cd::plan_launch(w, h, s, false, 1000);
        ASSERT_TRUE(p.error.empty()) << w << "x" << h << ": " << p.error;
        ASSERT_TRUE(p.segments);
        EXPECT_FALSE(p.wide);  // one path for every size
        EXPECT_GE(p.segs_x * s.seg_w, w);
        EXPECT_LT((p.segs_x - 1) * s.seg_w, w);
        EXPECT_EQ(p.segs, p.segs_x * h);
        EXPECT_EQ(p.scan_items, p.segs + 1);
        EXPECT_GE(p.seg_words, p.segs + 1);
        EXPECT_GE(p.seg_blocks * s.seg_threads * s.seg_rows, p.segs);
        EXPECT_GE(p.seg_strips * s.seg_rows, p.segs);
        EXPECT_LE(p.seg_blocks, cd::kMaxGridX);
        EXPECT_GE(p.workspace_bytes, p.off_scan_temp + 1000);
        EXPECT_GE(p.off_scan_temp, cd::kSegArrays * 4 * p.seg_words);
        // Six words a segment of 32: 0.75 bytes a pixel, plus CUB's scratch and the alignment.
        if (p.pixels > 1000000 && w >= 32) {
            EXPECT_LT(double(p.workspace_bytes - 1000) / double(p.pixels), 0.76) << w << "x" << h;
        }
    }
    EXPECT_FALSE(cd::plan_launch(10, 10, LaunchShape{32, 8, 32, 1024, 4, 4, 33}, false, 0).error.empty());
    EXPECT_FALSE(cd::plan_launch(10, 10, LaunchShape{32, 8, 32, 1024, 4, 4, 32, 100}, false, 0).error.empty());
    EXPECT_TRUE(cd::plan_launch(10, 10, LaunchShape{4, 2, 4, 8, 2, 1, 3, 5}, false, 0, false).error.empty());
    EXPECT_FALSE(cd::plan_launch(10, 10, LaunchShape{32, 8, 32, 1024, 4, 4, 32, 1024}, false, 0).error.empty());
    EXPECT_FALSE(cd::plan_launch(10, 10, LaunchShape{32, 8, 32, 1024, 4, 4, 32, 256, 0}, false, 0).error.empty());
    // Warp carry (the default shape): Start's rows are whole spans of 32 lanes.
    for (auto [w, h] : std::array<std::pair<std::uint64_t, std::uint64_t>, 4>{
             {{33600, 24000}, {33, 9}, {0xFFFFFFFFull, 1}, {1, 0xFFFFFFFFull / 32}}}) {
        const auto p = cd::plan_launch(w, h, s, false, 0);
        ASSERT_TRUE(p.error.empty()) << p.error;
        EXPECT_TRUE(p.warp_carry);
        EXPECT_EQ(p.start_lanes_x % 32, 0u);
        EXPECT_GE(p.start_lanes_x, p.segs_x);
        EXPECT_LT(p.start_lanes_x, p.segs_x + 32);
        EXPECT_GE(p.start_blocks * s.seg_threads, p.start_lanes_x * h);
        EXPECT_EQ(p.quads_x, (w + s.number_px - 1) / s.number_px);
    }
    {
        cuda::Switches off;
        off.seg_warp_carry = false;
        EXPECT_FALSE(cd::plan_launch(100, 10, s, false, 0, true, off).warp_carry);
        LaunchShape strips = s;
        strips.seg_rows = 4;
        EXPECT_FALSE(cd::plan_launch(100, 10, strips, false, 0).warp_carry);
        // A span of lanes a row would pass 2^32 threads: the Carry kernel.
        EXPECT_FALSE(cd::plan_launch(1, 0xFFFFFFFFull, s, false, 0).warp_carry);
        EXPECT_TRUE(cd::plan_launch(1, 0xFFFFFFFFull, s, false, 0).error.empty());
        LaunchShape wide = s;
        wide.number_px = 17;
        EXPECT_FALSE(cd::plan_launch(100, 10, wide, false, 0).error.empty());
    }
    // Strips: seg_rows segments of a column a thread, the last strip short.
    const auto st = cd::plan_launch(100, 37, LaunchShape{32, 8, 32, 1024, 4, 4, 32, 256, 16}, false, 0);
    EXPECT_EQ(st.seg_strips, 4u * 3u);
    EXPECT_EQ(st.seg_blocks, 1u);
}

TEST(EmuPlan, CoversThePictureAndRespectsLimits) {
    const LaunchShape s{};
    for (auto [w, h] : std::array<std::pair<std::uint64_t, std::uint64_t>, 9>{
             {{1, 1}, {31, 7}, {32, 8}, {33, 9}, {33600, 24000}, {65535, 65537}, {0xFFFFFFFFull, 1}, {1, 0xFFFFFFFFull},
              {46341, 46341}}}) {
        const auto p = pixel_plan(w, h, s, false, 1000);
        ASSERT_TRUE(p.error.empty()) << w << "x" << h << ": " << p.error;
        EXPECT_EQ(p.pixels, w * h);
        EXPECT_GE(p.tiles_x * s.tile_w, w);
        EXPECT_LT((p.tiles_x - 1) * s.tile_w, w);
        EXPECT_GE(p.tiles_y * s.tile_h, h);
        EXPECT_GE(p.number_tiles * s.number_tile, p.pixels);
        EXPECT_LE(p.tiles, cd::kMaxGridX);
        EXPECT_LE(p.number_tiles, cd::kMaxGridX);
        EXPECT_EQ(p.wide, p.pixels >= (std::uint64_t(1) << 31));
        EXPECT_GE(p.workspace_bytes, p.off_scan_temp + 1000);
        EXPECT_EQ(p.off_scan_temp % cd::kWorkspaceAlign, 0u);
        if (p.wide) {
            EXPECT_GE(p.mask_words * 32, p.pixels);
        }
        // Memory beyond the labels: counts + done flags + tickets (+ the wide path's root bits).
        const double per_mpx = double(p.workspace_bytes - 1000) / (double(p.pixels) / 1e6);
        if (!p.wide && p.pixels > 1000000) {
            EXPECT_LT(per_mpx, 40000.0) << w << "x" << h;
        }
    }
    // 806 Mpx: the flag path, and 2^31 - 1 is the last flag-path size.
    EXPECT_FALSE(pixel_plan(33600, 24000, s, false, 0).wide);
    EXPECT_FALSE(pixel_plan(0x7FFFFFFFull, 1, s, false, 0).wide);
    EXPECT_TRUE(pixel_plan(0x80000000ull, 1, s, false, 0).wide);
    // More than 2^32 - 1 pixels is refused (65536 x 65536 wraps to 0 in 32 bits).
    EXPECT_FALSE(pixel_plan(65536, 65536, s, false, 0).error.empty());
    EXPECT_FALSE(pixel_plan(65536, 65537, s, false, 0).error.empty());
    EXPECT_TRUE(pixel_plan(65535, 65537, s, false, 0).error.empty());
    // Empty pictures plan nothing.
    EXPECT_EQ(pixel_plan(0, 5, s, false, 0).tiles, 0u);
    // Shapes the GPU cannot run.
    EXPECT_FALSE(pixel_plan(10, 10, LaunchShape{48, 8, 32, 1024, 4}, false, 0).error.empty());
    EXPECT_FALSE(pixel_plan(10, 10, LaunchShape{64, 32, 32, 1024, 4}, false, 0).error.empty());
    EXPECT_FALSE(pixel_plan(10, 10, LaunchShape{32, 8, 32, 1000, 4}, false, 0).error.empty());
    EXPECT_FALSE(pixel_plan(10, 10, LaunchShape{32, 8, 32, 1024, 3}, false, 0).error.empty());
    EXPECT_FALSE(pixel_plan(10, 10, LaunchShape{4, 2, 4, 8, 2}, false, 0).error.empty());
    EXPECT_FALSE(pixel_plan(10, 10, LaunchShape{32, 8, 32, 1024, 4, 9}, false, 0).error.empty());
    // Rows a thread apply to one-warp-wide tiles whose height they divide, else one pixel a thread.
    EXPECT_EQ(pixel_plan(10, 10, LaunchShape{32, 32, 32, 1024, 4, 4}, false, 0).start_threads, 256u);
    EXPECT_EQ(pixel_plan(10, 10, LaunchShape{64, 8, 32, 1024, 4, 4}, false, 0).start_threads, 512u);
    EXPECT_EQ(pixel_plan(10, 10, LaunchShape{32, 6, 32, 1024, 4, 4}, false, 0).start_threads, 192u);
    EXPECT_TRUE(pixel_plan(10, 10, LaunchShape{4, 2, 4, 8, 2}, false, 0, false).error.empty());
}

// ---- the emulated pipeline against the CPU labeller ----------------------------------------------

struct Variant {
    const char* name;
    Tuning tuning;
};

std::vector<Variant> variants() {
    std::vector<Variant> v;
    auto shape = [](std::uint32_t tw, std::uint32_t th, std::uint32_t ww, std::uint32_t nt, std::uint32_t ppt,
                    std::uint32_t rows = 1) { return LaunchShape{tw, th, ww, nt, ppt, rows}; };
    // The segment pipeline (the default): segments of 32 (16-byte loads where aligned), and narrow
    // segments so that small pictures cross many seams; blocks of a few threads.
    auto seg = [](std::uint32_t w, std::uint32_t threads, std::uint32_t rows = 16) {
        Tuning t;
        t.shape.warp_w = 4;
        t.shape.seg_w = w;
        t.shape.seg_threads = threads;
        t.shape.seg_rows = rows;
        return t;
    };
    v.push_back({"segments of 32, 3 a block", seg(32, 3)});
    v.push_back({"segments of 4, 5 a block, strips of 1", seg(4, 5, 1)});
    v.push_back({"segments of 4, 5 a block, strips of 3", seg(4, 5, 3)});
    v.push_back({"segments of 1, 8 a block, strips of 2", seg(1, 8, 2)});
    v.push_back({"segments of 3, 2 a block", seg(3, 2)});
    Tuning sv = seg(5, 4);
    sv.switches.skip_joins = false;
    v.push_back({"segments of 5, skip_joins off", sv});
    sv = seg(2, 4);
    sv.switches.path_halving = false;
    v.push_back({"segments of 2, path_halving off", sv});
    sv = seg(7, 3);
    sv.switches.cached_loads = true;
    v.push_back({"segments of 7, cached_loads on", sv});
    sv = seg(32, 3);
    sv.switches.seg_quad_number = false;
    v.push_back({"segments of 32, seg_quad_number off", sv});
    sv = seg(3, 4, 2);
    sv.switches.seg_quad_number = false;
    v.push_back({"segments of 3, strips of 2, seg_quad_number off", sv});
    // seg_carry (on above, over spans of 32 segments): spans of 1 (nothing carried), 2 and 3, off.
    sv = seg(4, 5, 1);
    sv.shape.seg_span = 3;
    v.push_back({"segments of 4, spans of 3, strips of 1", sv});
    sv = seg(1, 8, 2);
    sv.shape.seg_span = 2;
    v.push_back({"segments of 1, spans of 2, strips of 2", sv});
    sv = seg(3, 4, 1);
    sv.shape.seg_span = 1;
    v.push_back({"segments of 3, spans of 1", sv});
    sv = seg(32, 3, 1);
    sv.switches.seg_carry = false;
    v.push_back({"segments of 32, seg_carry off", sv});
    // seg_warp_carry: spans as wide as the warp (4), one strip row; Start's warps find C. Number
    // takes number_px pixels, in one segment or straddling them.
    auto spans_of_4 = [&](const char* name, std::uint32_t w, std::uint32_t threads, std::uint32_t px, bool warp_carry) {
        Tuning t = seg(w, threads, 1);
        t.shape.seg_span = 4;
        t.shape.number_px = px;
        t.switches.seg_warp_carry = warp_carry;
        v.push_back({name, t});
    };
    spans_of_4("segments of 4, spans of 4 (warp carry), 8 a block, number 3 px", 4, 8, 3, true);
    spans_of_4("segments of 32, spans of 4 (warp carry), number 16 px", 32, 4, 16, true);
    spans_of_4("segments of 2, spans of 4 (warp carry), 12 a block, number 1 px", 2, 12, 1, true);
    spans_of_4("segments of 5, spans of 4, seg_warp_carry off (Carry kernel)", 5, 8, 8, false);
    // seg_carry_labels off: Number follows C to the node's label itself (in a segment, and straddling).
    for (std::uint32_t px : {16u, 3u}) {
        Tuning off = seg(px == 16 ? 32 : 4, px == 16 ? 4 : 8, 1);
        off.shape.seg_span = 4;
        off.shape.number_px = px;
        off.switches.seg_carry_labels = false;
        v.push_back({px == 16 ? "segments of 32, spans of 4, number 16 px, seg_carry_labels off"
                              : "segments of 4, spans of 4, number 3 px, seg_carry_labels off",
                     off});
    }
    // The pixel pipeline and its switches.
    Tuning t;
    t.switches.segment_runs = false;
    t.shape = shape(4, 2, 4, 8, 2);
    v.push_back({"all on, 4x2 warp 4, number 8 (2 a thread)", t});
    t.shape = shape(8, 3, 4, 5, 1);
    v.push_back({"all on, 8x3 warp 4, number 5", t});
    t.shape = shape(4, 3, 4, 12, 4);
    v.push_back({"all on, 4x3 warp 4, number 12 (4 a thread)", t});
    t.switches.fuse_start_connect = true;
    v.push_back({"fused Start+Connect, 4x3", t});
    t.switches.fuse_start_connect = false;
    t.shape = shape(32, 2, 32, 32, 4);
    v.push_back({"all on, 32x2 warp 32", t});
    // Start with several rows a thread (start_tile_rows): thread rows meet inside the tile.
    t.shape = shape(4, 6, 4, 12, 4, 3);
    v.push_back({"rows a thread: 4x6 warp 4, 3 rows", t});
    t.shape = shape(4, 8, 4, 8, 2, 8);
    v.push_back({"rows a thread: 4x8 warp 4, 8 rows (one thread row)", t});
    t.shape = shape(8, 8, 8, 16, 4, 2);
    v.push_back({"rows a thread: 8x8 warp 8, 2 rows", t});
    t.shape = shape(32, 8, 32, 32, 4, 4);
    v.push_back({"rows a thread: 32x8 warp 32, 4 rows", t});
    // The switches below run with 2 rows a thread; those that need one pixel a thread (tile
    // union-find off, fused) fall back to it.
    const LaunchShape small = shape(4, 4, 4, 8, 2, 2);
    for (int k = 0; k < 14; ++k) {
        Tuning o;
        o.switches.segment_runs = false;
        o.shape = small;
        const char* n = "";
        switch (k) {
            case 0: o.switches.up_before_left = false; n = "up_before_left off"; break;
            case 1: o.switches.warp_runs = false; n = "warp_runs off"; break;
            case 2: o.switches.skip_joins = false; n = "skip_joins off"; break;
            case 3: o.switches.path_halving = false; n = "path_halving off"; break;
            case 4: o.switches.background_in_start = false; n = "background_in_start off"; break;
            case 5: o.switches.fuse_start_connect = true; n = "fuse_start_connect on"; break;
            case 6: o.switches.tile_union_find = false; n = "tile_union_find off"; break;
            case 7: o.switches.count_after_connect = true; n = "count_after_connect on"; break;
            case 8: o.switches.cached_loads = true; n = "cached_loads on"; break;
            case 9:
                o.switches.tile_union_find = false;
                o.switches.count_after_connect = false;
                o.switches.cached_loads = false;
                n = "tile_union_find, count_after_connect, cached_loads off (the old kernels)";
                break;
            case 10: o.switches.shared_keys = false; n = "shared_keys off"; break;
            case 11: o.switches.plain_flatten = false; n = "plain_flatten off"; break;
            case 12: o.switches.compress_walks = false; n = "compress_walks off"; break;
            case 13:
                o.switches.shared_keys = o.switches.plain_flatten = o.switches.compress_walks = false;
                n = "shared_keys, plain_flatten, compress_walks off";
                break;
        }
        v.push_back({n, o});
    }
    Tuning w;
    w.switches.segment_runs = false;
    w.shape = small;
    w.force_wide_numbering = true;
    v.push_back({"wide numbering", w});
    w.switches.background_in_start = false;
    v.push_back({"wide numbering, background_in_start off", w});
    w.switches.count_after_connect = false;
    w.switches.tile_union_find = false;
    v.push_back({"wide numbering, background_in_start off, old counting, no tile union-find", w});
    w.switches.count_after_connect = true;
    w.switches.tile_union_find = true;
    v.push_back({"wide numbering, background_in_start off, Count kernel", w});
    Tuning f;
    f.switches.segment_runs = false;
    f.shape = shape(8, 3, 4, 5, 1);
    f.switches.fuse_start_connect = true;
    f.switches.count_after_connect = false;
    v.push_back({"fused 8x3, tile union-find, old counting", f});
    return v;
}

/// The emulated labels of @p r into @p got; an exception fails the test (nullopt).
std::optional<emu::EmuRun> emulate(const cclabel::detail::Request& r, std::uint32_t* got, const Variant& var,
                                   std::uint64_t seed, const std::string& what) {
    try {
        return emu::emu_label(r, got, var.tuning, seed);
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << " [" << var.name << "]: " << e.what();
        return std::nullopt;
    }
}

void expect_emu_matches_cpu(const TestImage& img, int conn, std::optional<std::uint64_t> bg, const Variant& var,
                            std::uint64_t seed, const std::string& what) {
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    if (bg && img.format != PixelFormat::Binary8) o.background = background_channels(img.format, *bg);
    const std::size_t n = std::size_t(img.width * img.height);
    std::vector<std::uint32_t> want(n + 1, 0xDEADBEEF), got(n + 1, 0xDEADBEEF);
    const LabelResult cpu = label(img.view(), want.data(), o);
    const auto r = cclabel::detail::make_request(img.view(), got.data(), o);
    const std::optional<emu::EmuRun> emulated = emulate(r, got.data(), var, seed, what);
    ASSERT_TRUE(emulated.has_value());
    const emu::EmuRun& run = *emulated;
    ASSERT_EQ(run.count, cpu.count) << what << " [" << var.name << "] seed " << seed;
    ASSERT_EQ(got[n], 0xDEADBEEFu) << what << ": wrote past the output";
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], want[i]) << what << " [" << var.name << "] seed " << seed << " at (" << i % std::size_t(img.width)
                                   << ", " << i / std::size_t(img.width) << ")";
    const VerifyReport v = verify(img.view(), got.data(), o);
    ASSERT_TRUE(v.ok) << what << ": " << v.message;
}

TEST(Emu, RandomImagesEveryVariant) {
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {1, 9}, {9, 1}, {5, 3}, {17, 9}, {13, 7}, {33, 5}};
    std::uint32_t seed = 1;
    for (const Variant& var : variants())
        for (auto [w, h] : sizes)
            for (int conn : {4, 8})
                for (std::uint64_t pal : {2u, 3u, 0u}) {
                    const PixelFormat f = kFormats[seed % 6];
                    const auto vals = random_values(w, h, pal, (seed % 3) * 0.3, seed);
                    const auto img = make_image(w, h, f, vals, seed % 2 ? 3 : 0, seed % 4);
                    const std::optional<std::uint64_t> bg =
                        seed % 2 ? std::optional<std::uint64_t>{0} : std::optional<std::uint64_t>{};
                    expect_emu_matches_cpu(img, conn, bg, var, seed,
                                           std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                               std::to_string(h) + " pal " + std::to_string(pal) + " conn " +
                                               std::to_string(conn) + (bg ? " bg" : ""));
                    ++seed;
                }
}

TEST(Emu, AdversarialSmall) {
    std::vector<Case> cs;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy) cs.push_back(neighbour_probe(dx, dy));
    for (std::int64_t w : {3, 5, 9}) cs.push_back(wrap_probe(w, 1));
    cs.push_back(runs_across_rows(9));
    cs.push_back(checkerboard(9, 7));
    cs.push_back(max_labels(7, 5));
    cs.push_back(x_crossings(4, false));
    cs.push_back(x_crossings(4, true));
    cs.push_back(staircase(13, 9, false));
    cs.push_back(staircase(13, 9, true));
    cs.push_back(tile_corners(4, 2, 4));
    cs.push_back(skip_join_traps(24, 9, 0));
    cs.push_back(skip_join_traps(24, 9, 1));
    cs.push_back(spiral(17, 15));
    cs.push_back(comb(21, 9, 0));
    cs.push_back(comb(13, 17, 1));
    cs.push_back(late_merge());
    cs.push_back(uniform(19, 11, 1));
    cs.push_back(uniform_plus_one(19, 11, 0));
    cs.push_back(uniform_plus_one(19, 11, 19 * 11 - 1));
    cs.push_back(percolation(24, 20, 0.5927, 3));
    cs.push_back(seam_lines(4, 2));
    cs.push_back(run_boundaries(4));
    cs.push_back(stripes_on_seams(17, 13, 3));
    cs.push_back(rings(17));
    const auto vars = variants();
    std::uint64_t seed = 100;
    for (const Case& c : cs) {
        if (c.width * c.height > 2000) continue;  // keeps the suite fast; the GPU tests take the big ones
        for (const Variant& var : vars)
            for (int conn : {4, 8}) {
                const PixelFormat f = c.binary && seed % 3 == 0 ? PixelFormat::Binary8 : kFormats[1 + seed % 5];
                const auto img = make_image(c.width, c.height, f, c.v, seed % 2, seed % 3);
                const std::optional<std::uint64_t> bg =
                    seed % 3 == 1 ? std::optional<std::uint64_t>{0} : std::optional<std::uint64_t>{};
                expect_emu_matches_cpu(img, conn, bg, var, seed, c.name + " conn " + std::to_string(conn));
                ++seed;
            }
    }
}

// Many schedules of one contended picture: every pixel joins one region (A24), checkerboard (A11).
TEST(Emu, ManySchedulesOfContendedPictures) {
    Variant var = variants()[0];
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const auto u = make_image(12, 8, PixelFormat::Gray8, uniform(12, 8, 7).v);
        expect_emu_matches_cpu(u, seed % 2 ? 8 : 4, std::nullopt, var, seed, "uniform 12x8");
        expect_emu_matches_cpu(u, seed % 2 ? 8 : 4, std::nullopt, variants()[1], seed, "uniform 12x8");
        const auto p = make_image(11, 9, PixelFormat::RGB8, percolation(11, 9, 0.5927, std::uint32_t(seed)).v);
        expect_emu_matches_cpu(p, 8, std::nullopt, var, seed * 7, "percolation 11x9");
    }
}

// Batches: B images stacked into one picture, labelled in one set of launches with the image-top
// rule and per-image numbering; each image must equal the CPU labeller on that image alone.
void expect_emu_batch_matches_cpu(const TestImage& stack, std::int64_t image_h, int conn,
                                  std::optional<std::uint64_t> bg, const Variant& var, std::uint64_t seed,
                                  const std::string& what) {
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    if (bg && stack.format != PixelFormat::Binary8) o.background = background_channels(stack.format, *bg);
    const std::size_t n = std::size_t(stack.width * stack.height);
    std::vector<std::uint32_t> got(n + 1, 0xDEADBEEF);
    const auto r = cclabel::detail::make_request(stack.view(), got.data(), o);
    std::vector<std::uint32_t> counts;
    try {
        emu::emu_label(r, got.data(), var.tuning, seed, std::uint32_t(image_h), &counts);
    } catch (const std::exception& e) {
        FAIL() << what << " [" << var.name << "]: " << e.what();
    }
    ASSERT_EQ(got[n], 0xDEADBEEFu) << what << ": wrote past the output";
    const std::int64_t images = stack.height / image_h;
    ASSERT_EQ(counts.size(), std::size_t(images));
    const ImageView whole = stack.view();
    const std::size_t per = std::size_t(stack.width * image_h);
    for (std::int64_t b = 0; b < images; ++b) {
        ImageView one = whole;
        one.data = static_cast<const std::uint8_t*>(whole.data) + b * image_h * whole.stride;
        one.height = image_h;
        std::vector<std::uint32_t> want(per);
        const LabelResult cpu = label(one, want.data(), o);
        ASSERT_EQ(counts[std::size_t(b)], cpu.count) << what << " [" << var.name << "] image " << b << " seed " << seed;
        for (std::size_t i = 0; i < per; ++i)
            ASSERT_EQ(got[std::size_t(b) * per + i], want[i])
                << what << " [" << var.name << "] image " << b << " seed " << seed << " at (" << i % std::size_t(stack.width)
                << ", " << i / std::size_t(stack.width) << ")";
    }
}

TEST(Emu, BatchesOfStackedImagesEveryVariant) {
    // Heights that are and are not multiples of the tiles' and Number tiles' sizes, one-row and
    // one-column images, one image.
    const std::array<std::array<std::int64_t, 3>, 8> shapes = {
        {{5, 3, 4}, {8, 4, 3}, {1, 7, 3}, {9, 1, 6}, {7, 5, 1}, {13, 2, 5}, {16, 8, 2}, {3, 3, 9}}};
    std::uint32_t seed = 7;
    for (const Variant& var : variants()) {
        if (var.tuning.force_wide_numbering) continue;  // batches run on the flag path
        for (const auto& [w, h, b] : shapes)
            for (int conn : {4, 8}) {
                const PixelFormat f = kFormats[seed % 6];
                // Few colours, so that regions touch the images' first and last rows and would
                // run on into the next image without the rule.
                const auto vals = random_values(w, h * b, seed % 2 ? 2 : 3, (seed % 3) * 0.3, seed);
                const auto img = make_image(w, h * b, f, vals, seed % 2 ? 3 : 0, seed % 4);
                const std::optional<std::uint64_t> bg =
                    seed % 3 == 0 ? std::optional<std::uint64_t>{0} : std::optional<std::uint64_t>{};
                expect_emu_batch_matches_cpu(img, h, conn, bg, var, seed,
                                             std::string(format_name(f)) + " " + std::to_string(b) + " x " +
                                                 std::to_string(w) + "x" + std::to_string(h) + " conn " +
                                                 std::to_string(conn) + (bg ? " bg" : ""));
                ++seed;
            }
    }
}

TEST(Emu, BatchOfOneColourImagesKeepsThemApart) {
    // Every image one region of the same colour: the stack would be one region without the rule,
    // and diagonals (8-conn) would cross the seams too.
    for (const Variant& var : variants()) {
        if (var.tuning.force_wide_numbering) continue;
        for (std::int64_t h : {1, 2, 5}) {
            const auto img = make_image(6, h * 5, PixelFormat::Gray8, uniform(6, h * 5, 3).v);
            expect_emu_batch_matches_cpu(img, h, 8, std::nullopt, var, std::uint64_t(h), "uniform 5 x 6x" + std::to_string(h));
            const auto d = make_image(6, h * 4, PixelFormat::RGB8, checkerboard(6, h * 4).v);
            expect_emu_batch_matches_cpu(d, h, 8, std::nullopt, var, std::uint64_t(h) + 9,
                                         "checkerboard 4 x 6x" + std::to_string(h));
        }
    }
}

// The segment pipeline's 16-byte loads (whole, aligned segments of 32) give PixelTraits' keys.
TEST(EmuSegments, WordLoadsGiveTheSameKeysAsPixelLoads) {
    for (PixelFormat f : kFormats) {
        const auto img = make_image(70, 3, f, random_values(70, 3, 0, 0.2, 9), 16 - (70 * bytes_per_pixel(f)) % 16);
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(img.storage.data()) % 16, 0u);
        cd::Params g;
        g.img = static_cast<const std::uint8_t*>(img.view().data);
        g.stride = img.view().stride;
        g.width = 70;
        cclabel::detail::dispatch_format(f, [&]<PixelFormat F>() {
            for (std::uint32_t y = 0; y < 3; ++y) {
                std::uint32_t fast[32], one[32];
                cd::load_seg_keys<F>(g, 32, y, 32, fast);  // 16-byte aligned: the word path
                for (std::uint32_t k = 0; k < 32; ++k) one[k] = cd::key_at<F>(g, 32 + k, y);
                for (std::uint32_t k = 0; k < 32; ++k) EXPECT_EQ(fast[k], one[k]) << format_name(f) << " pixel " << k;
            }
        });
    }
}

// Pictures wider than a segment of 32, with rows aligned to 16 bytes (the word loads) and not.
TEST(EmuSegments, WideRowsAlignedAndNot) {
    Tuning t;
    t.shape.warp_w = 4;
    t.shape.seg_threads = 5;
    std::uint32_t seed = 300;
    for (std::int64_t w : {64, 96, 70, 33})
        for (PixelFormat f : kFormats)
            for (int conn : {4, 8}) {
                const int bpp = bytes_per_pixel(f);
                const bool aligned = seed % 2 == 0;
                const std::int64_t pad = aligned ? (16 - (w * bpp) % 16) % 16 : 3;
                const auto vals = random_values(w, 6, seed % 3 == 0 ? 0 : 2 + seed % 2, (seed % 3) * 0.25, seed);
                const auto img = make_image(w, 6, f, vals, pad, aligned ? 0 : 1);
                const std::optional<std::uint64_t> bg =
                    seed % 4 == 1 ? std::optional<std::uint64_t>{0} : std::optional<std::uint64_t>{};
                expect_emu_matches_cpu(img, conn, bg, Variant{"segments of 32", t}, seed,
                                       std::string(format_name(f)) + " " + std::to_string(w) + "x6 conn " +
                                           std::to_string(conn) + (aligned ? " aligned" : " unaligned"));
                ++seed;
            }
}

// seg_number_transpose: widths that are multiples of 8 (a warp's groups contiguous), warps of 4,
// blocks of 4, 8 and 12, segments of 8 and 32, with and without warp carry; the last warp of the
// grid partly past the picture.
TEST(EmuSegments, TransposedNumberOnWidthsOfEight) {
    std::uint32_t seed = 900;
    for (std::int64_t w : {8, 16, 24, 40, 64})
        for (std::int64_t h : {1, 3, 5})
            for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::Binary8}) {
                Tuning t;
                t.shape.warp_w = 4;
                t.shape.seg_w = seed % 2 ? 8 : 32;
                t.shape.seg_threads = 4 * (1 + seed % 3);
                t.shape.seg_rows = 1;
                if (seed % 4 == 0) t.shape.seg_span = 4;  // warp carry
                ASSERT_EQ(t.shape.number_px, 8u);
                t.switches.seg_number_transpose = true;
                const auto vals = random_values(w, h, seed % 3 == 0 ? 0 : 2 + seed % 3, (seed % 4) * 0.2, seed);
                const auto img = make_image(w, h, f, vals, 0, 0);
                const int conn = seed % 2 ? 8 : 4;
                const std::optional<std::uint64_t> bg =
                    seed % 5 == 1 ? std::optional<std::uint64_t>{0} : std::optional<std::uint64_t>{};
                expect_emu_matches_cpu(img, conn, bg, Variant{"transposed Number", t}, seed,
                                       std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h));
                ++seed;
            }
}

// seg_uniform_warps: the word test says "one value over both rows" for uniform rows and never for
// rows that differ or that repeat every 2 or 4 pixels without being uniform; misaligned rows take the
// comparing path.
TEST(EmuSegments, UniformSegmentTest) {
    for (PixelFormat f : kFormats) {
        const int bpp = bytes_per_pixel(f);
        const std::int64_t w = 64, pad = (16 - (w * bpp) % 16) % 16;
        auto check = [&](const std::vector<std::uint64_t>& vals, std::int64_t offset, bool want0, bool want1,
                         const char* what) {
            const auto img = make_image(w, 2, f, vals, pad, offset);
            cd::Params g;
            g.img = static_cast<const std::uint8_t*>(img.view().data);
            g.stride = img.view().stride;
            g.width = std::uint32_t(w);
            cclabel::detail::dispatch_format(f, [&]<PixelFormat F>() {
                for (std::uint32_t x0 : {0u, 32u}) {
                    std::uint32_t v = 0xDEADu;
                    const bool got = cd::seg_uniform_with_above<F>(g, x0, 1, v);
                    EXPECT_EQ(got, x0 == 0 ? want0 : want1) << format_name(f) << " " << what << " x0 " << x0;
                    if (got) {
                        EXPECT_EQ(v, cd::key_at<F>(g, x0, 1)) << format_name(f) << " " << what;
                    }
                }
            });
        };
        std::vector<std::uint64_t> u(std::size_t(2 * w), 0x5A3C71u);
        check(u, 0, true, true, "uniform");
        check(u, 4, false, false, "uniform, rows not 16-byte aligned");
        for (std::int64_t k : {32, 33, 47, 63}) {
            auto d = u;
            d[std::size_t(w + k)] = 0x10203u;  // this row
            check(d, 0, true, false, "one pixel differs");
            d = u;
            d[std::size_t(k)] = 0x10203u;  // the row above (for Binary8 the same key, other bytes: the test
            check(d, 0, true, false, "one pixel above differs");  // compares bytes, so still false)
        }
        for (std::int64_t period : {2, 4}) {
            auto d = u;
            for (std::int64_t i = 0; i < 2 * w; ++i)
                if (i % period == 1) d[std::size_t(i)] = 0x10203u;
            // Binary8: both bytes (0xF1, 0x83) are 1, so the rows are uniform in keys after all.
            const bool keys_equal = f == PixelFormat::Binary8;
            check(d, 0, keys_equal, keys_equal, "repeating every 2 or 4 pixels");
        }
    }
}

// Warps of 4 lanes, each a span of 4 segments, 8 threads a block: a small picture crosses many warps.
Tuning four_lane_spans() {
    Tuning t;
    t.shape.warp_w = 4;
    t.shape.seg_span = 4;
    t.shape.seg_threads = 8;
    return t;
}

// The picture of @p vals with rows padded to 16 bytes (so Start's 16-byte loads run), both
// connectivities, without a background and with @p bg, against the CPU.
void expect_aligned_rows_match(std::int64_t w, std::int64_t h, PixelFormat f, const std::vector<std::uint64_t>& vals,
                               std::uint64_t bg, const Variant& v, std::uint32_t seed, const std::string& kind) {
    const auto img = make_image(w, h, f, vals, (16 - (w * bytes_per_pixel(f)) % 16) % 16);
    for (int conn : {4, 8})
        for (bool with_bg : {false, true})
            expect_emu_matches_cpu(img, conn, with_bg ? std::optional<std::uint64_t>{bg} : std::nullopt, v, seed + conn,
                                   std::string(format_name(f)) + kind + std::to_string(w) + "x" + std::to_string(h));
}

// seg_uniform_warps end to end: drawing-like pictures (one paper value, short lines and dots of
// others, some on segment edges), rows aligned so that the word test runs, warps of 4 segments of
// 32 (128 pixels, so some warps see only paper and some do not), the switch on and off.
TEST(EmuSegments, UniformRowsAgainstTheCpu) {
    std::uint32_t seed = 1200;
    for (std::int64_t w : {128, 200, 256})
        for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::RGBA8})
            for (bool on : {true, false}) {
                std::mt19937 rng(seed);
                const std::int64_t h = 8;
                const std::uint64_t paper = f == PixelFormat::Binary8 ? 1u : 0xF0E0D0u;
                std::vector<std::uint64_t> vals(std::size_t(w * h), paper);
                for (int k = 0; k < 6; ++k) {
                    const std::int64_t y = std::int64_t(rng() % h), x = std::int64_t(rng() % w);
                    const std::int64_t len = 1 + std::int64_t(rng() % 5);
                    const std::uint64_t ink = rng() % 3;
                    for (std::int64_t j = 0; j < len; ++j) {
                        if (k % 2) vals[std::size_t(y * w + std::min(w - 1, x + j))] = ink;
                        else vals[std::size_t(std::min(h - 1, y + j) * w + x)] = ink;
                    }
                }
                for (std::int64_t x : {31, 32, 63, 64})
                    if (x < w) vals[std::size_t((1 + seed % 4) * w + x)] = 2;
                // Below, vertical stripes as wide as a segment, of three values in turn: every segment
                // uniform but none like its left neighbour (a warp's lanes hold different values).
                for (std::int64_t y = h / 2; y < h; ++y)
                    for (std::int64_t x = 0; x < w; ++x) vals[std::size_t(y * w + x)] = x / 32 % 3 == 0 ? paper : x / 32 % 3;
                Tuning t = four_lane_spans();
                t.switches.seg_uniform_warps = on;
                expect_aligned_rows_match(w, h, f, vals, paper, Variant{on ? "uniform warps on" : "uniform warps off", t},
                                          seed, " drawing ");
                ++seed;
            }
}

// seg_start_halves: random pictures of few values (runs, stretches above, corners on both sides of
// the half seam at pixel 15/16 and at segment edges), rows on 16 bytes so that the halves run on
// every full segment below the top row, against the CPU with the switch on and off; the last
// segment of a row is full or partial (widths 96, 100, 160).
TEST(EmuSegments, StartHalvesAgainstTheCpu) {
    std::uint32_t seed = 1700;
    for (std::int64_t w : {96, 100, 160})
        for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32,
                              PixelFormat::RGB8, PixelFormat::RGBA8})
            for (bool on : {true, false}) {
                const std::int64_t h = 7;
                const auto vals = random_values(w, h, 3 + seed % 2, (seed % 3) * 0.3, seed);
                Tuning t = four_lane_spans();
                t.switches.seg_start_halves = on;
                expect_aligned_rows_match(w, h, f, vals, 1, Variant{on ? "start halves on" : "start halves off", t}, seed,
                                          " random ");
                ++seed;
            }
}

// seg_start_zeroes: drawing-like pictures (paper, lines of a few values, whole paper segments and
// segments with one ink pixel) and random ones, with the paper as background and without, widths
// that are multiples of 8 with the last segment of a row full or partial (64, 88, 136), warps of 4
// spans of 4 segments of 32 whose groups of 8 Number transposes; the switch on and off. The output
// starts as poison, so a segment that Number skips and Start did not zero is caught (a Start that
// zeroes nothing fails 38 checks here, a Number that takes the skip from the wrong lane fails too).
TEST(EmuSegments, StartZeroesAgainstTheCpu) {
    std::uint32_t seed = 2100;
    for (std::int64_t w : {64, 88, 136})
        for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::U32})
            for (bool on : {true, false})
                for (bool drawing : {true, false}) {
                    std::mt19937 rng(seed);
                    const std::int64_t h = 9;
                    const std::uint64_t paper = f == PixelFormat::Binary8 ? 0u : 0xD0u;
                    std::vector<std::uint64_t> vals;
                    if (drawing) {
                        vals.assign(std::size_t(w * h), paper);
                        for (int k = 0; k < 5; ++k) {
                            const std::int64_t y = std::int64_t(rng() % h), x = std::int64_t(rng() % w);
                            const std::int64_t len = 1 + std::int64_t(rng() % 12);
                            const std::uint64_t ink = 1 + rng() % 3;
                            for (std::int64_t j = 0; j < len; ++j) {
                                if (k % 2) vals[std::size_t(y * w + std::min(w - 1, x + j))] = ink;
                                else vals[std::size_t(std::min(h - 1, y + j) * w + x)] = ink;
                            }
                        }
                        vals[std::size_t((h - 1) * w + w - 1)] = 2;  // the last, perhaps partial, segment
                    } else {
                        vals.resize(std::size_t(w * h));
                        for (auto& v : vals) v = rng() % 4 == 0 ? 1 + rng() % 2 : paper;
                    }
                    const auto img = make_image(w, h, f, vals, (16 - (w * bytes_per_pixel(f)) % 16) % 16);
                    Tuning t = four_lane_spans();
                    ASSERT_EQ(t.shape.number_px, 8u);
                    t.switches.seg_start_zeroes = on;
                    for (int conn : {4, 8})
                        for (bool with_bg : {true, false})
                            expect_emu_matches_cpu(img, conn, with_bg ? std::optional<std::uint64_t>{paper} : std::nullopt,
                                                   Variant{on ? "start zeroes on" : "start zeroes off", t}, seed + conn,
                                                   std::string(format_name(f)) + (drawing ? " drawing " : " random ") +
                                                       std::to_string(w) + "x" + std::to_string(h));
                    ++seed;
                }
}

// ---- tolerance: the pixel pipeline with `joins` (for_tolerance) --------------------------------

/// The emulated GPU labels of @p img with @p tol against the tolerance flood fill.
void expect_emu_tolerance(const ChannelImage& img, int conn, std::uint32_t tol, bool bg, const Variant& var,
                          std::uint64_t seed, const std::string& what) {
    Options o;
    o.connectivity = conn;
    o.tolerance = tol;
    const int nch = channels(img.format);
    std::optional<std::vector<std::uint64_t>> b;
    if (bg) b = std::vector<std::uint64_t>(std::size_t(nch), 0);
    o.background = b;
    const std::size_t n = std::size_t(img.width * img.height);
    std::vector<std::uint32_t> got(n + 1, 0xDEADBEEF);
    const auto r = cclabel::detail::make_request(img.view(), got.data(), o);
    const std::optional<emu::EmuRun> emulated = emulate(r, got.data(), var, seed, what);
    ASSERT_TRUE(emulated.has_value());
    const emu::EmuRun& run = *emulated;
    std::uint32_t n_ref = 0;
    const auto ref = tolerance_flood_fill(img.channels, nch, img.width, img.height, conn, tol, b, &n_ref);
    ASSERT_EQ(run.count, n_ref) << what << " [" << var.name << "] seed " << seed;
    ASSERT_EQ(got[n], 0xDEADBEEFu) << what << ": wrote past the output";
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], ref[i]) << what << " [" << var.name << "] seed " << seed << " at ("
                                  << i % std::size_t(img.width) << ", " << i / std::size_t(img.width) << ")";
}

TEST(EmuTolerance, RandomPicturesMatchFloodFill) {
    // Every variant, whatever its switches: emu_label applies for_tolerance as label_cuda.cu does
    // (segment variants become the default pixel pipeline at their shapes).
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {1, 9}, {9, 1}, {13, 7}, {33, 5}, {17, 12}};
    constexpr PixelFormat formats[] = {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8,
                                       PixelFormat::RGBA8};
    std::uint32_t seed = 1;
    for (const Variant& var : variants())
        for (auto [w, h] : sizes)
            for (int conn : {4, 8}) {
                const PixelFormat f = formats[seed % 5];
                const int nch = channels(f);
                const std::uint64_t step = seed % 2 ? 1 : 5;
                const ChannelImage img(w, h, f, random_channels(w * h, nch, channel_max(f), step, nch > 1 ? 3 : 6, seed),
                                       seed % 3);
                const std::uint32_t tol = std::uint32_t(step * (1 + seed % 3));
                expect_emu_tolerance(img, conn, tol, seed % 4 == 1, var, seed,
                                     std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h) +
                                         " conn " + std::to_string(conn) + " tol " + std::to_string(tol));
                ++seed;
            }
}

TEST(EmuTolerance, ChainsAndBackgroundAcrossWarpsAndTiles) {
    // A ramp 0, 2, 4, ... along a serpentine path through the picture: each step within tolerance
    // 2, the ends 250 apart, so it is one region only through the chain; with tolerance 1 every
    // pixel is its own region. Background 0 pixels (every 7th) cut the chain only where the path
    // runs through them, and a close value (1, 2) next to the background never joins it.
    const std::int64_t w = 37, h = 11;
    std::vector<std::uint64_t> v(std::size_t(w * h));
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            const std::int64_t k = y * w + (y % 2 ? w - 1 - x : x);
            v[std::size_t(y * w + x)] = std::uint64_t((2 * k) % 251);
        }
    for (std::size_t i = 0; i < v.size(); i += 7) v[i] = 0;
    const ChannelImage img(w, h, PixelFormat::Gray8, v, 2);
    std::uint64_t seed = 7;
    for (const Variant& var : variants())
        for (int conn : {4, 8})
            for (std::uint32_t tol : {1u, 2u, 3u})
                for (bool bg : {false, true})
                    expect_emu_tolerance(img, conn, tol, bg, var, seed++, "serpentine ramp");
}

TEST(Emu, EmptyPictureLaunchesNothing) {
    Options o;
    const auto img = make_image(0, 0, PixelFormat::Gray8, {});
    std::uint32_t dummy = 0;
    const auto r = cclabel::detail::make_request(img.view(), &dummy, o);
    EXPECT_EQ(emu::emu_label(r, &dummy, Tuning{}, 1).count, 0u);
}

}  // namespace
}  // namespace cclabel::test
