// Region statistics and filtering against brute-force references written here: a plain loop over
// the pixels for area, bounding box, centroid and value; the perimeter by looking at every
// neighbour of every pixel; filtering by counting, for each region, how many regions beat it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "cclabel/cclabel.hpp"
#include "cclabel/stats.hpp"
#include "support/test_image.hpp"

namespace cclabel::test {
namespace {

using LabelImage = std::vector<std::uint32_t>;

struct RefRow {
    std::uint64_t area = 0, sx = 0, sy = 0, perim = 0;
    std::int64_t x0 = 0, y0 = 0, x1 = -1, y1 = -1;
    std::int64_t first = -1;
};

std::vector<RefRow> brute_regions(const LabelImage& lab, std::int64_t w, std::int64_t h, int conn) {
    std::uint32_t n = 0;
    for (auto l : lab) n = std::max(n, l);
    std::vector<RefRow> rows(std::size_t(n) + 1);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            const std::uint32_t l = lab[std::size_t(y * w + x)];
            RefRow& r = rows[l];
            if (r.area == 0) {
                r.first = y * w + x;
                r.x0 = r.x1 = x;
                r.y0 = r.y1 = y;
            }
            ++r.area;
            r.sx += std::uint64_t(x);
            r.sy += std::uint64_t(y);
            r.x0 = std::min(r.x0, x);
            r.x1 = std::max(r.x1, x);
            r.y0 = std::min(r.y0, y);
            r.y1 = std::max(r.y1, y);
            bool boundary = false;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if ((dx == 0 && dy == 0) || (conn == 4 && dx != 0 && dy != 0)) continue;
                    const std::int64_t nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h || lab[std::size_t(ny * w + nx)] != l) boundary = true;
                }
            r.perim += boundary;
        }
    return rows;
}

/// The channels of pixel class @p c in format @p f (as the test picture encodes it).
std::array<std::uint32_t, 4> class_channels(PixelFormat f, std::uint64_t c) {
    switch (f) {
        case PixelFormat::RGB8: return {std::uint32_t(c & 0xFF), std::uint32_t((c >> 8) & 0xFF), std::uint32_t((c >> 16) & 0xFF), 0};
        case PixelFormat::RGBA8:
            return {std::uint32_t(c & 0xFF), std::uint32_t((c >> 8) & 0xFF), std::uint32_t((c >> 16) & 0xFF),
                    std::uint32_t((c >> 24) & 0xFF)};
        default: return {std::uint32_t(c), 0, 0, 0};
    }
}

void expect_stats(const TestImage& img, const LabelImage& lab, int conn, int threads, const std::string& what) {
    Options o;
    o.connectivity = conn;
    o.threads = threads;
    const auto got = regions(img.view(), lab.data(), o);
    const auto ref = brute_regions(lab, img.width, img.height, conn);
    ASSERT_EQ(got.size(), ref.size()) << what;
    for (std::size_t l = 0; l < ref.size(); ++l) {
        const RefRow& r = ref[l];
        const RegionStats& s = got[l];
        const std::string at = what + " label " + std::to_string(l);
        ASSERT_EQ(s.area, r.area) << at;
        ASSERT_EQ(s.perimeter, r.perim) << at;
        if (r.area == 0) {
            ASSERT_TRUE(std::isnan(s.cx) && std::isnan(s.cy)) << at;
            ASSERT_EQ(s.x, 0) << at;
            ASSERT_EQ(s.width, 0) << at;
            continue;
        }
        ASSERT_EQ(s.x, r.x0) << at;
        ASSERT_EQ(s.y, r.y0) << at;
        ASSERT_EQ(s.width, r.x1 - r.x0 + 1) << at;
        ASSERT_EQ(s.height, r.y1 - r.y0 + 1) << at;
        ASSERT_EQ(s.cx, double(r.sx) / double(r.area)) << at;
        ASSERT_EQ(s.cy, double(r.sy) / double(r.area)) << at;
        ASSERT_EQ(s.value, class_channels(img.format, img.values[std::size_t(r.first)])) << at;
    }
}

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

TEST(Stats, RandomImagesAgainstBruteForce) {
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {17, 5}, {40, 33}, {70, 61}};
    std::uint32_t seed = 7;
    for (PixelFormat f : kFormats)
        for (auto [w, h] : sizes)
            for (std::uint64_t pal : {2ull, 5ull, 0ull})
                for (int conn : {4, 8}) {
                    const auto img = make_image(w, h, f, random_values(w, h, pal, (seed % 3) * 0.3, seed), seed % 2 ? 3 : 0);
                    ++seed;
                    Options o;
                    o.connectivity = conn;
                    o.backend = Backend::Cpu;
                    for (bool bg : {false, true}) {
                        if (bg && f != PixelFormat::Binary8) o.background = background_channels(f, 0);
                        const Labels lab = label(img.view(), o);
                        // (These images are below one band of 16 Ki pixels: threads are tested below.)
                        for (int stats_conn : {4, 8})  // the perimeter's neighbourhood need not be the labelling's
                            expect_stats(img, lab.data, stats_conn, 3,
                                         std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                             std::to_string(h) + " pal " + std::to_string(pal) + " conn " +
                                             std::to_string(conn) + "/" + std::to_string(stats_conn) +
                                             (bg ? " bg" : ""));
                    }
                }
}

TEST(Stats, ThreadedBandsAndMergeOnLargerImages) {
    // Large enough for several bands (16 Ki pixels a band) and a parallel merge (many labels).
    for (auto [pal, threads] : {std::pair<std::uint64_t, int>{3, 2}, {0, 7}}) {
        const std::int64_t w = 301, h = 433;
        const auto img = make_image(w, h, PixelFormat::RGB8, random_values(w, h, pal, 0.1, std::uint32_t(pal + threads)));
        Options o;
        o.background = std::vector<std::uint64_t>{0, 0, 0};
        const Labels lab = label(img.view(), o);
        expect_stats(img, lab.data, 8, threads, "large pal " + std::to_string(pal) + " threads " + std::to_string(threads));
        expect_stats(img, lab.data, 4, threads, "large conn 4");
    }
}

TEST(Stats, LabelImagesNotFromTheLabeller) {
    // Gaps in the numbering, labels out of raster order, one label on several blobs: rows still
    // describe each label value, missing labels get area 0.
    std::mt19937 rng(3);
    for (int round = 0; round < 20; ++round) {
        const std::int64_t w = 1 + rng() % 40, h = 1 + rng() % 40;
        const auto img = make_image(w, h, PixelFormat::Gray8, random_values(w, h, 4, 0.0, rng()));
        LabelImage lab(std::size_t(w * h));
        const std::uint32_t top = std::uint32_t(std::min<std::int64_t>(w * h, 1 + rng() % 12));
        for (auto& l : lab) l = rng() % 3 == 0 ? 0 : std::uint32_t(rng() % (top + 1));
        for (int threads : {1, 4}) expect_stats(img, lab, round % 2 ? 4 : 8, threads, "arbitrary " + std::to_string(round));
    }
}

TEST(Stats, EdgeCases) {
    // Empty images: one row (the background), area 0.
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, 5}, {5, 0}}) {
        const auto s = regions(make_view(nullptr, w, h, PixelFormat::Gray8), nullptr);
        ASSERT_EQ(s.size(), 1u);
        EXPECT_EQ(s[0].area, 0u);
    }
    // One pixel.
    const std::uint8_t px[3] = {10, 20, 30};
    const LabelImage one = {1};
    auto s = regions(make_view(px, 1, 1, PixelFormat::RGB8), one.data());
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].area, 0u);
    EXPECT_EQ(s[1].area, 1u);
    EXPECT_EQ(s[1].perimeter, 1u);
    EXPECT_EQ(s[1].width, 1);
    EXPECT_EQ(s[1].cx, 0.0);
    EXPECT_EQ(s[1].value, (std::array<std::uint32_t, 4>{10, 20, 30, 0}));
    // One region covering the picture: every border pixel is on the perimeter.
    std::vector<std::uint16_t> flat(7 * 5, 4242);
    const Labels fl = label(make_view(flat.data(), 7, 5, PixelFormat::Gray16));
    s = regions(make_view(flat.data(), 7, 5, PixelFormat::Gray16), fl.data.data());
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[1].area, 35u);
    EXPECT_EQ(s[1].perimeter, 2u * 7 + 2u * 5 - 4);
    EXPECT_EQ(s[1].cx, 3.0);
    EXPECT_EQ(s[1].cy, 2.0);
    EXPECT_EQ(s[1].value[0], 4242u);
    // All background.
    std::vector<std::uint8_t> zeros(6 * 4, 0);
    const LabelImage zl(zeros.size(), 0);
    s = regions(make_view(zeros.data(), 6, 4, PixelFormat::Binary8), zl.data());
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].area, 24u);
    EXPECT_EQ(s[0].x, 0);
    EXPECT_EQ(s[0].width, 6);
    EXPECT_EQ(s[0].height, 4);
    EXPECT_EQ(s[0].cx, 2.5);
    EXPECT_EQ(s[0].cy, 1.5);
}

TEST(Stats, HandWorkedPerimeterAndOpenCvSemantics) {
    // A 3 x 3 block without its top-left corner, at (2..4, 1..3) in a 7 x 5 binary picture:
    //   . . . . . . .
    //   . . . # # . .
    //   . . # # # . .
    //   . . # # # . .
    //   . . . . . . .
    // OpenCV's connectedComponentsWithStats gives for label 1: LEFT 2, TOP 1, WIDTH 3, HEIGHT 3,
    // AREA 8, centroid (sum x / 8, sum y / 8) = (25/8, 17/8) = (3.125, 2.125).
    // Perimeter: under 4-connectivity the centre (3, 2) has all four edge neighbours inside, so 7
    // of the 8 pixels are boundary; under 8-connectivity the centre also sees the missing corner.
    std::vector<std::uint8_t> img(7 * 5, 0);
    for (int y = 1; y <= 3; ++y)
        for (int x = 2; x <= 4; ++x)
            if (!(x == 2 && y == 1)) img[std::size_t(y * 7 + x)] = 255;
    const auto view = make_view(img.data(), 7, 5, PixelFormat::Binary8);
    for (int conn : {4, 8}) {
        Options o;
        o.connectivity = conn;
        const Labels lab = label(view, o);
        ASSERT_EQ(lab.count, 1u);
        const auto s = regions(view, lab.data.data(), o);
        ASSERT_EQ(s.size(), 2u);
        EXPECT_EQ(s[1].x, 2);
        EXPECT_EQ(s[1].y, 1);
        EXPECT_EQ(s[1].width, 3);
        EXPECT_EQ(s[1].height, 3);
        EXPECT_EQ(s[1].area, 8u);
        EXPECT_EQ(s[1].cx, 3.125);
        EXPECT_EQ(s[1].cy, 2.125);
        EXPECT_EQ(s[1].perimeter, conn == 4 ? 7u : 8u);
        EXPECT_EQ(s[1].value, (std::array<std::uint32_t, 4>{1, 0, 0, 0}));  // Binary8 reads 0/1
        // The background: 27 pixels; those next to the block or on the border are its perimeter.
        EXPECT_EQ(s[0].area, 27u);
        EXPECT_EQ(s[0].width, 7);
        EXPECT_EQ(s[0].height, 5);
    }
}

TEST(Stats, Errors) {
    std::vector<std::uint8_t> img(4 * 3, 1);
    LabelImage lab(img.size(), 1);
    const auto view = make_view(img.data(), 4, 3, PixelFormat::Gray8);
    EXPECT_THROW(regions(view, nullptr), Error);
    Options bad;
    bad.connectivity = 6;
    EXPECT_THROW(regions(view, lab.data(), bad), Error);
    EXPECT_THROW(regions(make_view(img.data(), -1, 3, PixelFormat::Gray8), lab.data()), Error);
    EXPECT_THROW(regions(make_view(img.data(), 4, 3, PixelFormat::Gray8, 2), lab.data()), Error);  // stride < row
    lab[5] = 13;  // 12 pixels cannot hold label 13
    EXPECT_THROW(regions(view, lab.data()), Error);
    EXPECT_THROW(remove_small(lab.data(), 4, 3, 2), Error);
    EXPECT_THROW(keep_largest(lab.data(), 4, 3, 2), Error);
    lab[5] = 12;
    EXPECT_NO_THROW(regions(view, lab.data()));
    EXPECT_THROW(remove_small(nullptr, 4, 3, 2), Error);
    EXPECT_THROW(keep_largest(nullptr, 4, 3, 2), Error);
    EXPECT_THROW(remove_small(lab.data(), -4, 3, 2), Error);
    EXPECT_THROW(keep_largest(lab.data(), 4, -3, 2), Error);
    EXPECT_THROW(remove_small(lab.data(), 65536, 65537, 2), Error);  // more than 2^32 - 1 pixels
    EXPECT_THROW(keep_largest(lab.data(), 65536, 65537, 2), Error);
    EXPECT_EQ(remove_small(nullptr, 0, 3, 2), 0u);
    EXPECT_EQ(keep_largest(nullptr, 3, 0, 2), 0u);
}

// ---- filtering -----------------------------------------------------------------------------

/// Zeroes labels for which keep() is false, renumbers the rest by first appearance.
template <typename Keep>
std::pair<LabelImage, std::uint32_t> brute_filter(const LabelImage& lab, Keep keep) {
    std::map<std::uint32_t, std::uint32_t> to;
    LabelImage out(lab.size());
    std::uint32_t m = 0;
    for (std::size_t i = 0; i < lab.size(); ++i) {
        const std::uint32_t l = lab[i];
        if (l == 0 || !keep(l)) continue;
        auto it = to.find(l);
        if (it == to.end()) it = to.emplace(l, ++m).first;
        out[i] = it->second;
    }
    return {out, m};
}

std::vector<LabelImage> filter_inputs(std::int64_t& w, std::int64_t& h, std::uint32_t seed) {
    std::mt19937 rng(seed);
    w = 1 + rng() % 50;
    h = 1 + rng() % 50;
    std::vector<LabelImage> out;
    // From the labeller (raster order, 1..N) ...
    const auto img = make_image(w, h, PixelFormat::Gray8, random_values(w, h, 1 + rng() % 4, 0.2, rng()));
    Options o;
    o.background = std::vector<std::uint64_t>{0};
    o.connectivity = seed % 2 ? 4 : 8;
    out.push_back(label(img.view(), o).data);
    // ... and arbitrary: gaps, out of order, many equal areas.
    LabelImage arb(std::size_t(w * h));
    const std::uint32_t top = std::uint32_t(std::min<std::int64_t>(w * h, 1 + rng() % 20));
    for (auto& l : arb) l = std::uint32_t(rng() % (top + 1));
    out.push_back(arb);
    return out;
}

TEST(Filter, RemoveSmallAgainstBruteForce) {
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        std::int64_t w, h;
        for (const LabelImage& lab : filter_inputs(w, h, seed))
            for (std::uint64_t min_area : {0ull, 1ull, 2ull, 3ull, 5ull, 17ull, 100000ull}) {
                std::map<std::uint32_t, std::uint64_t> area;
                for (auto l : lab) ++area[l];
                const auto [want, m] = brute_filter(lab, [&](std::uint32_t l) { return area[l] >= min_area; });
                LabelImage got = lab;
                ASSERT_EQ(remove_small(got.data(), w, h, min_area), m) << seed << " " << min_area;
                ASSERT_EQ(got, want) << seed << " " << min_area;
            }
    }
}

TEST(Filter, KeepLargestAgainstBruteForce) {
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        std::int64_t w, h;
        for (const LabelImage& lab : filter_inputs(w, h, seed)) {
            std::map<std::uint32_t, std::uint64_t> area;
            std::map<std::uint32_t, std::size_t> first;
            for (std::size_t i = 0; i < lab.size(); ++i)
                if (lab[i] != 0) {
                    ++area[lab[i]];
                    first.emplace(lab[i], i);
                }
            // Region l is kept when fewer than k regions beat it (larger, or as large and first earlier).
            std::map<std::uint32_t, std::uint64_t> beaten_by;
            for (auto [l, al] : area)
                for (auto [o, a] : area)
                    if (a > al || (a == al && first[o] < first[l])) ++beaten_by[l];
            for (std::uint32_t k : {0u, 1u, 2u, 3u, 7u, 1000u, 0xFFFFFFFFu}) {
                auto keep = [&](std::uint32_t l) { return beaten_by[l] < k; };
                const auto [want, m] = brute_filter(lab, keep);
                ASSERT_EQ(m, std::min<std::uint64_t>(k, area.size()));
                LabelImage got = lab;
                ASSERT_EQ(keep_largest(got.data(), w, h, k), m) << seed << " " << k;
                ASSERT_EQ(got, want) << seed << " " << k;
            }
        }
    }
}

TEST(Filter, TiesGoToRasterOrder) {
    // Three regions of area 2; keeping 2 keeps the first two in raster order.
    LabelImage lab = {1, 1, 0, 2, 2, 0, 3, 3};
    EXPECT_EQ(keep_largest(lab.data(), 8, 1, 2), 2u);
    EXPECT_EQ(lab, (LabelImage{1, 1, 0, 2, 2, 0, 0, 0}));
    // Out-of-order labels: raster order of first pixels decides, and renumbering follows it.
    lab = {5, 5, 0, 2, 2, 7, 7, 7};
    EXPECT_EQ(keep_largest(lab.data(), 4, 2, 2), 2u);
    EXPECT_EQ(lab, (LabelImage{1, 1, 0, 0, 0, 2, 2, 2}));
    lab = {5, 5, 0, 2, 2, 7, 7, 7};
    EXPECT_EQ(remove_small(lab.data(), 4, 2, 3), 1u);
    EXPECT_EQ(lab, (LabelImage{0, 0, 0, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace cclabel::test

namespace cclabel::test {
namespace {

TEST(Stats, LabelWithStatisticsEqualsTheTwoCalls) {
    // The one-call overload gives the labels of label() and the rows of regions() of them.
    std::uint32_t seed = 40;
    for (PixelFormat f : kFormats)
        for (int conn : {4, 8}) {
            const std::int64_t w = 181, h = 97;
            const auto img = make_image(w, h, f, random_values(w, h, 4, 0.2, seed++), 1);
            Options o;
            o.connectivity = conn;
            o.threads = 2;
            o.backend = Backend::Cpu;
            if (f != PixelFormat::Binary8) o.background = background_channels(f, 0);
            LabelImage lab(std::size_t(w * h), 0xDEADBEEF);
            std::vector<RegionStats> st(3);  // replaced, not appended to
            const LabelResult r = label(img.view(), lab.data(), o, st);
            const Labels want = label(img.view(), o);
            ASSERT_EQ(r.count, want.count);
            ASSERT_EQ(r.backend, Backend::Cpu);
            ASSERT_EQ(lab, want.data);
            ASSERT_EQ(st.size(), std::size_t(want.count) + 1);
            expect_stats(img, lab, conn, 2, std::string("fused ") + std::string(format_name(f)));
            const auto sep = regions(img.view(), want.data.data(), o);
            for (std::size_t l = 0; l < st.size(); ++l) {
                ASSERT_EQ(st[l].area, sep[l].area);
                ASSERT_EQ(st[l].perimeter, sep[l].perimeter);
                ASSERT_EQ(st[l].cx, sep[l].cx);
                ASSERT_EQ(st[l].value, sep[l].value);
            }
        }
    // Empty image: N = 0 and the background row; bad arguments throw as label() does.
    std::vector<RegionStats> st;
    std::uint32_t dummy = 0;
    EXPECT_EQ(label(make_view(nullptr, 0, 4, PixelFormat::Gray8), &dummy, Options{}, st).count, 0u);
    ASSERT_EQ(st.size(), 1u);
    EXPECT_EQ(st[0].area, 0u);
    std::vector<std::uint8_t> img(12, 1);
    Options bad;
    bad.connectivity = 5;
    EXPECT_THROW(label(make_view(img.data(), 4, 3, PixelFormat::Gray8), &dummy, bad, st), Error);
    EXPECT_THROW(label(make_view(img.data(), 4, 3, PixelFormat::Gray8), nullptr, Options{}, st), Error);
}

TEST(Stats, CudaBackendWithoutDeviceIsAClearError) {
    if (cuda_available()) GTEST_SKIP() << "a CUDA device is present (tests/cuda compares the backends)";
    std::vector<std::uint8_t> img(4 * 3, 1);
    LabelImage lab(img.size(), 1);
    const auto view = make_view(img.data(), 4, 3, PixelFormat::Gray8);
    Options o;
    o.backend = Backend::Cuda;
    for (auto call : {+[](const ImageView& v, LabelImage& l, const Options& opt) { (void)regions(v, l.data(), opt); },
                      +[](const ImageView& v, LabelImage& l, const Options& opt) {
                          std::vector<RegionStats> s;
                          (void)label(v, l.data(), opt, s);
                      },
                      +[](const ImageView&, LabelImage& l, const Options&) {
                          (void)remove_small(l.data(), 4, 3, 2, Backend::Cuda);
                      },
                      +[](const ImageView&, LabelImage& l, const Options&) {
                          (void)keep_largest(l.data(), 4, 3, 2, Backend::Cuda);
                      }}) {
        try {
            call(view, lab, o);
            ADD_FAILURE() << "no error for backend cuda without a device";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
        }
    }
    // Auto falls back to the CPU with the same result.
    o.backend = Backend::Auto;
    EXPECT_EQ(regions(view, lab.data(), o).size(), 2u);
    EXPECT_EQ(remove_small(lab.data(), 4, 3, 2, Backend::Auto), 1u);
}

}  // namespace
}  // namespace cclabel::test
