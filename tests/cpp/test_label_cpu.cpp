// The CPU labeller against the flood-fill reference: random pictures over every format, palette,
// connectivity, background, thread count, size and row padding.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>
#include <tuple>

#include "cclabel/cclabel.hpp"
#include "core/cores.hpp"
#include "core/request.hpp"
#include "cpu/binary_runs.hpp"
#include "cpu/label_cpu.hpp"
#include "label_check.hpp"
#include "reference/flood_fill.hpp"
#include "support/test_image.hpp"

namespace cclabel::test {
namespace {

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

void expect_matches_reference(const TestImage& img, int conn, std::optional<std::uint64_t> bg_index, int threads,
                              const std::string& what) {
    Options o;
    o.connectivity = conn;
    o.threads = threads;
    o.backend = Backend::Cpu;
    if (bg_index && img.format != PixelFormat::Binary8) o.background = background_channels(img.format, *bg_index);
    std::vector<std::uint32_t> out(std::size_t(img.width * img.height) + 1, 0xDEADBEEF);
    const LabelResult res = label(img.view(), out.data(), o);
    std::uint32_t n_ref = 0;
    const auto ref = flood_fill(img.values, img.width, img.height, conn,
                                reference_background(img.format, bg_index), &n_ref);
    ASSERT_EQ(res.count, n_ref) << what;
    ASSERT_EQ(out.back(), 0xDEADBEEFu) << what << ": wrote past the output";
    for (std::size_t i = 0; i < ref.size(); ++i)
        ASSERT_EQ(out[i], ref[i]) << what << " at pixel (" << i % std::size_t(img.width) << ", "
                                  << i / std::size_t(img.width) << ")";
    const VerifyReport v = verify(img.view(), out.data(), o);
    ASSERT_TRUE(v.ok) << what << ": " << v.message;
}

TEST(LabelCpu, RandomImagesAllFormatsPalettesConnectivitiesThreads) {
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1},  {1, 17}, {17, 1},  {31, 5}, {32, 7},
                                                           {33, 9}, {63, 4}, {64, 11}, {65, 13}, {97, 41}};
    const std::uint64_t palettes[] = {2, 3, 16, 256, 0};
    std::uint32_t seed = 1;
    for (PixelFormat f : kFormats)
        for (auto [w, h] : sizes)
            for (std::uint64_t pal : palettes)
                for (int conn : {4, 8})
                    for (int threads : {1, 2, 3, 7}) {
                        const double density = (seed % 3) * 0.3;
                        const auto vals = random_values(w, h, pal, density, seed++);
                        const std::int64_t pad = seed % 4 == 0 ? 3 : 0;
                        const auto img = make_image(w, h, f, vals, pad, seed % 3);
                        for (auto bg : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0}}) {
                            const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                                     std::to_string(h) + " palette " + std::to_string(pal) +
                                                     " conn " + std::to_string(conn) + " threads " +
                                                     std::to_string(threads) + (bg ? " bg" : "") + " seed " +
                                                     std::to_string(seed);
                            expect_matches_reference(img, conn, bg, threads, what);
                        }
                    }
}

TEST(LabelCpu, WidthSweepAroundWarpMultiples) {
    std::uint32_t seed = 100;
    for (std::int64_t w = 1; w <= 70; ++w)
        for (std::int64_t h : {1, 2, 3, 31, 33})
            for (int conn : {4, 8}) {
                const auto img = make_image(w, h, PixelFormat::Gray8, random_values(w, h, 3, 0.0, seed++));
                expect_matches_reference(img, conn, std::nullopt, 3, "width sweep " + std::to_string(w) + "x" +
                                                                         std::to_string(h));
            }
}

TEST(LabelCpu, TallThinAndWideFlat) {
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 5000}, {5000, 1}, {2, 3001}, {3001, 2}})
        for (int conn : {4, 8})
            for (int threads : {1, 7}) {
                const auto img = make_image(w, h, PixelFormat::RGB8, random_values(w, h, 3, 0.2, std::uint32_t(w + h)));
                expect_matches_reference(img, conn, 0, threads, "thin " + std::to_string(w) + "x" + std::to_string(h));
            }
}

TEST(LabelCpu, LabelsIdenticalForEveryThreadCount) {
    const auto img = make_image(301, 257, PixelFormat::RGB8, random_values(301, 257, 4, 0.1, 7));
    Options o;
    o.threads = 1;
    const Labels one = label(img.view(), o);
    for (int t : {2, 3, 5, 7, 16, 64, 300}) {
        o.threads = t;
        const Labels many = label(img.view(), o);
        ASSERT_EQ(many.count, one.count) << t;
        ASSERT_EQ(many.data, one.data) << t;
    }
}

/// Random colour indices stretched into runs: cell (x / @p run_w, y / @p run_h) of a random picture,
/// each row shifted by a few pixels, so that runs overlap the row above in every way (same ends,
/// one end, diagonal touches). Mean runs are long enough that the CPU labeller takes its
/// run-length path (Switches::run_length).
std::vector<std::uint64_t> blocky_values(std::int64_t w, std::int64_t h, std::uint64_t palette, std::int64_t run_w,
                                         std::int64_t run_h, std::uint32_t seed) {
    const std::int64_t cw = w / run_w + 2, ch = h / run_h + 1;
    const auto cells = random_values(cw, ch, palette, 0.2, seed);
    std::mt19937 rng(seed ^ 0x5bd1e995u);
    std::vector<std::uint64_t> v(std::size_t(w * h));
    for (std::int64_t y = 0; y < h; ++y) {
        const std::int64_t shift = (rng() % 4 == 0) ? std::int64_t(rng() % std::uint32_t(run_w)) : 0;
        for (std::int64_t x = 0; x < w; ++x)
            v[std::size_t(y * w + x)] = cells[std::size_t((y / run_h) * cw + (x + shift) / run_w)];
    }
    return v;
}

/// Whether the CPU labeller takes its run-length path for @p img (the tests above and below mean to
/// exercise one path or the other; this says they do).
bool takes_run_length_path(const TestImage& img, const cpu::Switches& sw = {}) {
    std::uint32_t sink = 0;  // validation wants an output; nothing is written
    return cpu::uses_run_length(detail::make_request(img.view(), &sink, Options{}), sw);
}

TEST(LabelCpu, RunLengthPathBlockyPictures) {
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{16, 3}, {17, 40}, {23, 9}, {64, 64}, {65, 33},
                                                           {71, 120}, {130, 7}, {301, 97}};
    std::uint32_t seed = 499;
    for (PixelFormat f : kFormats)
        for (auto [w, h] : sizes)
            for (std::uint64_t pal : {2, 3, 5, 0})
                for (int conn : {4, 8}) {
                    ++seed;
                    const std::int64_t run_w = 4 + seed % 9, run_h = 1 + seed % 3;
                    const auto img = make_image(w, h, f, blocky_values(w, h, pal, run_w, run_h, seed), seed % 4 == 0 ? 5 : 0);
                    ASSERT_TRUE(takes_run_length_path(img))
                        << "blocky " << format_name(f) << " " << w << "x" << h << " seed " << seed;
                    for (auto bg : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0}}) {
                        std::uint32_t n_ref = 0;
                        const auto ref = flood_fill(img.values, img.width, img.height, conn,
                                                    reference_background(img.format, bg), &n_ref);
                        for (int threads : {1, 2, 3, 7}) {
                            const std::string what = "blocky " + std::string(format_name(f)) + " " + std::to_string(w) +
                                                     "x" + std::to_string(h) + " palette " + std::to_string(pal) +
                                                     " conn " + std::to_string(conn) + " threads " +
                                                     std::to_string(threads) + (bg ? " bg" : "") + " seed " +
                                                     std::to_string(seed);
                            expect_labels(img, make_options(img, conn, bg, threads), ref, n_ref, what);
                        }
                    }
                }
}

TEST(LabelCpu, RunLengthPathLargeLabelImages) {
    // A picture beyond the caches (33.6 MB of labels), one and several bands.
    for (int conn : {4, 8}) {
        const std::int64_t w = 4100, h = 2050;
        const auto img = make_image(w, h, PixelFormat::RGB8, blocky_values(w, h, 3, 9, 2, std::uint32_t(conn)));
        ASSERT_TRUE(takes_run_length_path(img));
        std::uint32_t n_ref = 0;
        const auto ref = flood_fill(img.values, img.width, img.height, conn, std::nullopt, &n_ref);
        for (int threads : {1, 3})
            expect_labels(img, make_options(img, conn, std::nullopt, threads), ref, n_ref,
                          "large blocky conn " + std::to_string(conn) + " threads " + std::to_string(threads));
    }
}

TEST(LabelCpu, LargeBinaryNoise) {
    // Switches::binary_runs on noise whose labels (18 MB) are written with streaming stores.
    for (int conn : {4, 8}) {
        const std::int64_t w = 4100, h = 1100;
        const auto img = make_image(w, h, PixelFormat::Binary8, random_values(w, h, 2, conn == 8 ? 0.35 : 0.55, 7 + std::uint32_t(conn)));
        ASSERT_TRUE(takes_run_length_path(img));
        std::uint32_t n_ref = 0;
        const auto ref = flood_fill(img.values, img.width, img.height, conn, reference_background(img.format, {}), &n_ref);
        for (int threads : {1, 3})
            expect_labels(img, make_options(img, conn, std::nullopt, threads), ref, n_ref,
                          "large binary noise conn " + std::to_string(conn) + " threads " + std::to_string(threads));
    }
}

// The run path's portable scans (what a CPU without AVX2 runs) against the dispatched ones (AVX2
// here): the same runs, start bits, parents and seam rows, for the general scan and the mask scan.
template <PixelFormat F, int Conn>
void expect_portable_scan_equal(const TestImage& img, bool binary) {
    std::uint32_t sink = 0;
    const detail::Request r = detail::make_request(img.view(), &sink, Options{});
    cpu::runs::Band a, b;
    a.y0 = b.y0 = 0;
    a.y1 = b.y1 = r.height;
    const cpu::Switches sw;
    if (binary) {
        cpu::runs::scan_binary<Conn>(r, a, 16);
        cpu::runs::scan_binary_body<Conn, false>(r, b, 16);
    } else {
        cpu::runs::scan<F, Conn>(r, sw, a, 16);
        cpu::runs::scan_body<F, Conn, false>(r, sw, b, 16);
    }
    const std::string what = std::string(format_name(F)) + " " + std::to_string(img.width) + "x" +
                             std::to_string(img.height) + " conn " + std::to_string(Conn) + (binary ? " mask scan" : "");
    ASSERT_EQ(a.row_first, b.row_first) << what;
    const std::uint32_t runs = a.row_first.back();
    EXPECT_TRUE(std::equal(a.parent.data(), a.parent.data() + runs, b.parent.data())) << what;
    for (std::int64_t y = 0; y < r.height; ++y)
        for (std::int64_t x = 0; x < r.width; ++x) {
            const std::size_t byte = std::size_t(y) * a.bit_stride + std::size_t(x / 8);
            ASSERT_EQ(a.bits[byte] >> (x % 8) & 1, b.bits[byte] >> (x % 8) & 1) << what << " bit " << x << "," << y;
        }
    EXPECT_EQ(a.block_roots, b.block_roots) << what;
    EXPECT_EQ(a.first_starts, b.first_starts) << what;
    EXPECT_EQ(a.first_keys, b.first_keys) << what;
    EXPECT_EQ(a.last_starts, b.last_starts) << what;
    EXPECT_EQ(a.last_keys, b.last_keys) << what;
}

TEST(LabelCpu, PortableRunScansEqualTheDispatchedOnes) {
    std::uint32_t seed = 900;
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{16, 5}, {33, 20}, {100, 31}, {257, 9}}) {
        ++seed;
        const auto blocky = [&](PixelFormat f) { return make_image(w, h, f, blocky_values(w, h, 3, 5, 2, seed)); };
        expect_portable_scan_equal<PixelFormat::Gray8, 8>(blocky(PixelFormat::Gray8), false);
        expect_portable_scan_equal<PixelFormat::RGB8, 8>(blocky(PixelFormat::RGB8), false);
        expect_portable_scan_equal<PixelFormat::U32, 4>(blocky(PixelFormat::U32), false);
        for (double zeros : {0.1, 0.5, 0.9}) {
            const auto mask = make_image(w, h, PixelFormat::Binary8, random_values(w, h, 2, zeros, seed));
            expect_portable_scan_equal<PixelFormat::Binary8, 8>(mask, false);
            expect_portable_scan_equal<PixelFormat::Binary8, 8>(mask, true);
            expect_portable_scan_equal<PixelFormat::Binary8, 4>(mask, true);
        }
    }
}

TEST(LabelCpu, BinaryNoiseTakesTheRunPath) {
    const auto img = make_image(301, 97, PixelFormat::Binary8, random_values(301, 97, 2, 0.5, 12));
    EXPECT_TRUE(takes_run_length_path(img));
    cpu::Switches off;
    off.binary_runs = false;
    EXPECT_FALSE(takes_run_length_path(img, off));
}

TEST(LabelCpu, AutoThreadsFollowPictureSize) {
    const int cores = detail::usable_cores();
    auto threads = [](std::int64_t w, std::int64_t h, int asked) {
        std::vector<std::uint8_t> px(std::size_t(w * h), 1);
        std::uint32_t sink = 0;
        Options o;
        o.threads = asked;
        return detail::make_request(make_view(px.data(), w, h, PixelFormat::Binary8), &sink, o).threads;
    };
    EXPECT_EQ(threads(100, 100, 0), 1);
    EXPECT_EQ(threads(512, 512, 0), std::min(cores, 8));
    EXPECT_EQ(threads(4096, 4096, 0), std::min(cores, 512));
    EXPECT_EQ(threads(100, 100, 5), 5) << "an explicit count is kept";
}

TEST(LabelCpu, NoiseTakesThePixelPath) {
    // Runs of one or two pixels: the run arrays would cost more than they save.
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::U32}) {
        const auto img = make_image(301, 97, f, random_values(301, 97, 256, 0.0, 11));
        EXPECT_FALSE(takes_run_length_path(img)) << format_name(f);
        const auto blocky = make_image(301, 97, f, blocky_values(301, 97, 5, 8, 2, 3));
        EXPECT_TRUE(takes_run_length_path(blocky)) << format_name(f);
        cpu::Switches off;
        off.run_length = false;
        EXPECT_FALSE(takes_run_length_path(blocky, off)) << format_name(f);
    }
}

TEST(LabelCpu, EmptyImagesGiveZeroRegions) {
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, 7}, {7, 0}}) {
        std::uint32_t sentinel = 0x12345678;
        const LabelResult r = label(make_view(nullptr, w, h, PixelFormat::RGB8), &sentinel);
        EXPECT_EQ(r.count, 0u);
        EXPECT_EQ(sentinel, 0x12345678u) << "an empty image must not write";
        const Labels l = label(make_view(nullptr, w, h, PixelFormat::Gray8));
        EXPECT_EQ(l.count, 0u);
        EXPECT_TRUE(l.data.empty());
    }
}

TEST(LabelCpu, SinglePixel) {
    for (std::uint8_t v : {0, 255}) {
        std::uint32_t out = 99;
        EXPECT_EQ(label(make_view(&v, 1, 1, PixelFormat::Gray8), &out).count, 1u);
        EXPECT_EQ(out, 1u);
        Options o;
        o.background = std::vector<std::uint64_t>{v};
        EXPECT_EQ(label(make_view(&v, 1, 1, PixelFormat::Gray8), &out, o).count, 0u);
        EXPECT_EQ(out, 0u);
        EXPECT_EQ(label(make_view(&v, 1, 1, PixelFormat::Binary8), &out).count, v ? 1u : 0u);
    }
}

}  // namespace
}  // namespace cclabel::test
