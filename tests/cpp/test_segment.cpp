// Segmentation on the CPU against the plain references of segment_reference.hpp: Otsu against the
// textbook between-class variance, masks against a direct loop, K-means against Lloyd's algorithm
// written from the header's definition; thread counts; errors.
#include <gtest/gtest.h>

#include <string>

#include "cclabel/cclabel.hpp"
#include "cpp/segment_reference.hpp"

namespace cclabel::test {
namespace {

using segref::Pic;
using segref::random_pic;

constexpr PixelFormat kThresholdFormats[] = {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32,
                                             PixelFormat::RGB8, PixelFormat::RGBA8};
constexpr PixelFormat kOtsuFormats[] = {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::RGB8, PixelFormat::RGBA8};
constexpr PixelFormat kKMeansFormats[] = {PixelFormat::RGB8, PixelFormat::RGBA8, PixelFormat::Gray8};

SegmentOptions cpu(int threads = 1) {
    SegmentOptions o;
    o.backend = Backend::Cpu;
    o.threads = threads;
    return o;
}

template <class Fn>
void expect_error(Fn&& fn, const std::string& part) {
    try {
        fn();
        ADD_FAILURE() << "no error; expected one containing '" << part << "'";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
}

TEST(Segment, LuminanceIsOpenCvsIntegerConversion) {
    EXPECT_EQ(luminance(0, 0, 0), 0u);
    EXPECT_EQ(luminance(255, 255, 255), 255u);  // the weights sum to 2^14
    for (std::uint32_t r = 0; r < 256; r += 17)
        for (std::uint32_t g = 0; g < 256; g += 13)
            for (std::uint32_t b = 0; b < 256; b += 11) EXPECT_EQ(luminance(r, g, b), segref::luma(r, g, b));
}

TEST(Segment, OtsuOfTwoValuesIsTheLowerOne) {
    // Every t in [10, 199] splits {10} | {200} alike: the smallest wins, so foreground is the 200s.
    std::vector<std::uint8_t> img(64, 10);
    for (std::size_t i = 0; i < img.size(); i += 3) img[i] = 200;
    EXPECT_EQ(otsu_threshold(make_view(img.data(), 8, 8, PixelFormat::Gray8), cpu()), 10u);
}

TEST(Segment, OtsuWithoutASplitIsZero) {
    std::vector<std::uint8_t> img(30, 77);
    EXPECT_EQ(otsu_threshold(make_view(img.data(), 5, 6, PixelFormat::Gray8), cpu()), 0u);
    EXPECT_EQ(otsu_threshold(make_view(nullptr, 0, 6, PixelFormat::Gray8), cpu()), 0u);
}

TEST(Segment, OtsuEqualsTheTextbookVariance) {
    int seed = 0;
    for (PixelFormat f : kOtsuFormats)
        for (auto [w, h] : {std::pair{1, 1}, {2, 1}, {17, 9}, {64, 33}, {301, 257}})
            for (int levels : {3, 16, 256}) {
                const Pic p = random_pic(w, h, f, std::uint32_t(++seed), 5, 3, levels);
                EXPECT_EQ(otsu_threshold(p.view(), cpu()), segref::otsu(p))
                    << format_name(f) << " " << w << "x" << h << " levels " << levels;
            }
}

TEST(Segment, OtsuOfABimodalPictureSeparatesTheModes) {
    // Two noisy modes around 60 and 180: the threshold lies between them.
    std::mt19937 rng(5);
    std::vector<std::uint8_t> img(200 * 100);
    for (std::size_t i = 0; i < img.size(); ++i) img[i] = std::uint8_t((i % 200 < 70 ? 60 : 180) + int(rng() % 21) - 10);
    const std::uint32_t t = otsu_threshold(make_view(img.data(), 200, 100, PixelFormat::Gray8), cpu());
    EXPECT_GE(t, 70u);
    EXPECT_LT(t, 170u);
    Pic p;
    p.w = 200, p.h = 100, p.stride = 200, p.bytes = img;
    EXPECT_EQ(t, segref::otsu(p));
}

TEST(Segment, ThresholdEqualsADirectLoop) {
    int seed = 100;
    for (PixelFormat f : kThresholdFormats)
        for (auto [w, h] : {std::pair{1, 1}, {3, 1}, {1, 5}, {19, 7}, {300, 280}})
            for (std::uint32_t t : {0u, 1u, 127u, 254u, 255u, 40000u, 0xFFFFFFFEu}) {
                const Pic p = random_pic(w, h, f, std::uint32_t(++seed));
                std::vector<std::uint8_t> mask(std::size_t(w * h) + 1, 0xEE);
                threshold(p.view(), t, mask.data(), cpu(2));
                ASSERT_EQ(mask.back(), 0xEE) << "wrote past the mask";
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        ASSERT_EQ(mask[std::size_t(y * w + x)], segref::value(p, x, y) > t ? 1 : 0)
                            << format_name(f) << " t " << t << " at " << x << "," << y;
            }
}

TEST(Segment, MaskIsReadyToLabel) {
    const Pic p = random_pic(50, 40, PixelFormat::Gray8, 9);
    std::vector<std::uint8_t> mask(2000);
    threshold(p.view(), otsu_threshold(p.view(), cpu()), mask.data(), cpu());
    const Labels l = label(make_view(mask.data(), 50, 40, PixelFormat::Binary8));
    EXPECT_GT(l.count, 0u);
    for (std::size_t i = 0; i < mask.size(); ++i) EXPECT_EQ(l.data[i] != 0, mask[i] != 0);
}

TEST(Segment, ResultsDoNotDependOnThreads) {
    // Several 64 Ki-pixel chunks, so the threads share the work.
    const Pic p = random_pic(1000, 333, PixelFormat::RGB8, 3, 1, 0, 7);
    const std::uint32_t t1 = otsu_threshold(p.view(), cpu(1));
    std::vector<std::uint8_t> m1(333000), m2(333000);
    threshold(p.view(), t1, m1.data(), cpu(1));
    KMeansOptions ko;
    ko.backend = Backend::Cpu;
    ko.k = 5;
    ko.threads = 1;
    std::vector<std::uint32_t> c1(333000), c2(333000);
    const KMeansResult r1 = kmeans(p.view(), c1.data(), ko);
    for (int threads : {2, 3, 7}) {
        EXPECT_EQ(otsu_threshold(p.view(), cpu(threads)), t1);
        threshold(p.view(), t1, m2.data(), cpu(threads));
        EXPECT_EQ(m1, m2);
        ko.threads = threads;
        const KMeansResult r2 = kmeans(p.view(), c2.data(), ko);
        EXPECT_EQ(c1, c2);
        EXPECT_EQ(r1.centres, r2.centres);
        EXPECT_EQ(r1.iterations, r2.iterations);
    }
}

void expect_kmeans_equals_reference(const Pic& p, int k, int iters, std::uint64_t seed, int threads) {
    KMeansOptions o;
    o.k = k;
    o.max_iterations = iters;
    o.seed = seed;
    o.backend = Backend::Cpu;
    o.threads = threads;
    const std::size_t n = std::size_t(p.w * p.h);
    std::vector<std::uint32_t> got(n + 1, 0xABCDEF01u);
    const KMeansResult r = kmeans(p.view(), got.data(), o);
    const segref::KMeansRef want = segref::kmeans(p, k, iters, seed);
    const std::string what = std::string(format_name(p.f)) + " " + std::to_string(p.w) + "x" + std::to_string(p.h) +
                             " k " + std::to_string(k) + " iters " + std::to_string(iters) + " seed " + std::to_string(seed);
    ASSERT_EQ(got[n], 0xABCDEF01u) << what << ": wrote past the clusters";
    got.pop_back();
    ASSERT_EQ(r.centres.size(), std::size_t(k)) << what;
    for (int c = 0; c < k; ++c)
        for (int j = 0; j < 3; ++j) EXPECT_EQ(r.centres[std::size_t(c)][std::size_t(j)] * 16.0f, float(want.centres[std::size_t(3 * c + j)])) << what;
    EXPECT_EQ(r.iterations, want.iterations) << what;
    EXPECT_EQ(r.converged, want.converged) << what;
    EXPECT_EQ(got, n ? want.clusters : std::vector<std::uint32_t>{}) << what;
    EXPECT_EQ(r.backend, Backend::Cpu);
}

TEST(Segment, KMeansEqualsLloydsReference) {
    int seed = 0;
    for (PixelFormat f : kKMeansFormats)
        for (auto [w, h] : {std::pair{1, 1}, {3, 2}, {45, 46}, {130, 70}})
            for (int k : {1, 2, 5, 16})
                for (int levels : {4, 256}) {
                    ++seed;
                    expect_kmeans_equals_reference(random_pic(w, h, f, std::uint32_t(seed), 2, 1, levels), k, 6,
                                                   std::uint64_t(seed) * 7919, 2);
                }
}

TEST(Segment, KMeansRunsToConvergenceAndStops) {
    // Four flat colour quadrants: converges at once to the four colours, whatever the seed.
    Pic p;
    p.w = 64, p.h = 64, p.f = PixelFormat::RGB8, p.stride = 64 * 3;
    p.bytes.resize(64 * 64 * 3);
    const std::uint8_t col[4][3] = {{250, 10, 10}, {10, 250, 10}, {10, 10, 250}, {128, 128, 128}};
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x)
            for (int c = 0; c < 3; ++c) p.bytes[std::size_t((y * 64 + x) * 3 + c)] = col[(y / 32) * 2 + x / 32][c];
    for (std::uint64_t seed : {0ull, 1ull, 99ull}) {
        expect_kmeans_equals_reference(p, 4, 50, seed, 1);
        KMeansOptions o;
        o.k = 4, o.max_iterations = 50, o.seed = seed, o.backend = Backend::Cpu;
        std::vector<std::uint32_t> cl(64 * 64);
        const KMeansResult r = kmeans(p.view(), cl.data(), o);
        EXPECT_TRUE(r.converged);
        EXPECT_LT(r.iterations, 50u);
        // Every quadrant is one cluster, and the centres are the colours.
        for (int q = 0; q < 4; ++q) {
            const std::uint32_t c = cl[std::size_t((q / 2) * 32 * 64 + (q % 2) * 32)];
            for (int j = 0; j < 3; ++j) EXPECT_EQ(r.centres[c][std::size_t(j)], float(col[q][j])) << "seed " << seed;
        }
    }
    for (int iters : {0, 1, 2}) expect_kmeans_equals_reference(random_pic(40, 30, PixelFormat::RGB8, 4), 3, iters, 5, 1);
}

TEST(Segment, KMeansClustersAreNearestToTheirCentres) {
    const Pic p = random_pic(333, 200, PixelFormat::RGBA8, 12, 0, 0, 256);
    KMeansOptions o;
    o.k = 8, o.max_iterations = 4, o.seed = 3, o.backend = Backend::Cpu, o.threads = 2;
    std::vector<std::uint32_t> cl(333 * 200);
    const KMeansResult r = kmeans(p.view(), cl.data(), o);
    for (int y = 0; y < 200; ++y)
        for (int x = 0; x < 333; ++x) {
            const std::uint8_t* q = p.px(x, y);
            auto d = [&](std::size_t c) {
                double s = 0;
                for (int j = 0; j < 3; ++j) s += (q[j] - double(r.centres[c][std::size_t(j)])) * (q[j] - double(r.centres[c][std::size_t(j)]));
                return s;
            };
            const std::uint32_t mine = cl[std::size_t(y * 333 + x)];
            for (std::size_t c = 0; c < 8; ++c) ASSERT_TRUE(d(mine) < d(c) || (d(mine) == d(c) && mine <= c));
        }
}

TEST(Segment, KMeansOfAnEmptyImage) {
    KMeansOptions o;
    o.k = 3;
    const KMeansResult r = kmeans(make_view(nullptr, 0, 0, PixelFormat::RGB8), nullptr, o);
    EXPECT_EQ(r.centres.size(), 3u);
    EXPECT_EQ(r.iterations, 0u);
}

TEST(Segment, BadInputsRaiseClearErrors) {
    std::vector<std::uint8_t> img(64, 1), mask(64);
    std::vector<std::uint32_t> cl(64);
    const ImageView g = make_view(img.data(), 8, 8, PixelFormat::Gray8);
    expect_error([&] { otsu_threshold(make_view(img.data(), 8, 8, PixelFormat::Binary8)); }, "otsu_threshold: binary8 images are not supported");
    expect_error([&] { otsu_threshold(make_view(img.data(), 4, 4, PixelFormat::U32)); }, "u32 images are not supported");
    expect_error([&] { threshold(make_view(img.data(), 8, 8, PixelFormat::Binary8), 0, mask.data()); }, "threshold: binary8");
    expect_error([&] { threshold(g, 0, nullptr); }, "threshold: mask is null");
    expect_error([&] { threshold(make_view(img.data(), -1, 8, PixelFormat::Gray8), 0, mask.data()); }, "must not be negative");
    expect_error([&] { threshold(make_view(img.data(), 8, 8, PixelFormat::Gray8, 4), 0, mask.data()); }, "smaller than a row");
    expect_error([&] { threshold(make_view(nullptr, 8, 8, PixelFormat::Gray8), 0, mask.data()); }, "image data is null");
    SegmentOptions so;
    so.threads = -2;
    expect_error([&] { otsu_threshold(g, so); }, "thread count must not be negative");
    so.threads = 0;
    so.backend = Backend(7);
    expect_error([&] { otsu_threshold(g, so); }, "unknown backend");
    KMeansOptions ko;
    expect_error([&] { kmeans(make_view(img.data(), 4, 4, PixelFormat::Gray16), cl.data(), ko); }, "kmeans: gray16 images are not supported");
    expect_error([&] { kmeans(g, nullptr, ko); }, "kmeans: cluster buffer is null");
    ko.k = 0;
    expect_error([&] { kmeans(g, cl.data(), ko); }, "k must be 1..256 (got 0)");
    ko.k = 257;
    expect_error([&] { kmeans(g, cl.data(), ko); }, "(got 257)");
    ko.k = 2;
    ko.max_iterations = -1;
    expect_error([&] { kmeans(g, cl.data(), ko); }, "max_iterations must not be negative");
    if (!cuda_available()) {
        so.backend = Backend::Cuda;
        // A build without CUDA says so; a CUDA build on a machine without a GPU says there is no device.
        expect_error([&] { otsu_threshold(g, so); }, "backend cuda");
        expect_error([&] { threshold(g, 3, mask.data(), so); }, "backend cuda");
        ko.max_iterations = 2;
        ko.backend = Backend::Cuda;
        expect_error([&] { kmeans(g, cl.data(), ko); }, "backend cuda");
    }
}

}  // namespace
}  // namespace cclabel::test
