// Tolerance labelling (Options::tolerance) against the tolerance flood fill: random pictures of
// every format near the ends of their channel ranges, both connectivities, background on and off,
// several thread counts and row paddings; chains that must join; cc3d 4.1.1's 8-connected `delta`
// case; the range checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <string>

#include "cclabel/cclabel.hpp"
#include "reference/bfs_labels.hpp"
#include "reference/tolerance_flood_fill.hpp"
#include "support/channel_image.hpp"

namespace cclabel::test {
namespace {

/// Labels @p img and compares with the reference value for value.
void expect_reference(const ChannelImage& img, int conn, std::uint32_t tol,
                      const std::optional<std::vector<std::uint64_t>>& bg, int threads, const std::string& what) {
    Options o;
    o.connectivity = conn;
    o.tolerance = tol;
    o.threads = threads;
    o.backend = Backend::Cpu;
    o.background = bg;
    std::vector<std::uint32_t> out(std::size_t(img.width * img.height) + 1, 0xDEADBEEF);
    const LabelResult res = label(img.view(), out.data(), o);
    std::uint32_t n_ref = 0;
    const auto ref = tolerance_flood_fill(img.channels, channels(img.format), img.width, img.height, conn, tol, bg, &n_ref);
    ASSERT_EQ(res.count, n_ref) << what;
    ASSERT_EQ(out.back(), 0xDEADBEEFu) << what << ": wrote past the output";
    for (std::size_t i = 0; i < ref.size(); ++i)
        ASSERT_EQ(out[i], ref[i]) << what << " at pixel (" << i % std::size_t(img.width) << ", "
                                  << i / std::size_t(img.width) << ")";
}

constexpr PixelFormat kFormats[] = {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8,
                                    PixelFormat::RGBA8};

TEST(Tolerance, RandomPicturesMatchFloodFill) {
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1}, {1, 23}, {23, 1}, {7, 5}, {33, 9}, {64, 17}, {97, 41}};
    std::uint32_t seed = 1;
    for (PixelFormat f : kFormats)
        for (auto [w, h] : sizes)
            for (int conn : {4, 8})
                for (int threads : {1, 2, 3, 7})
                    for (std::uint64_t step : {std::uint64_t(1), std::uint64_t(7)}) {
                        const int nch = channels(f);
                        const std::uint64_t max = channel_max(f);
                        // Colour pictures get fewer values a channel, so that all channels being
                        // close is not too rare.
                        const std::uint64_t spread = nch > 1 ? 3 : 8;
                        const ChannelImage img(w, h, f, random_channels(w * h, nch, max, step, spread, seed++), seed % 3);
                        const std::vector<std::uint64_t> bg(std::size_t(nch), 0);
                        for (std::uint32_t tol : {std::uint32_t(step), std::uint32_t(2 * step), std::uint32_t(3 * step)})
                            for (auto b : {std::optional<std::vector<std::uint64_t>>{}, std::optional{bg}})
                                expect_reference(img, conn, tol, b, threads,
                                                 std::string(format_name(f)) + " " + std::to_string(w) + "x" +
                                                     std::to_string(h) + " conn " + std::to_string(conn) + " threads " +
                                                     std::to_string(threads) + " tol " + std::to_string(tol) +
                                                     (b ? " bg" : "") + " seed " + std::to_string(seed));
                    }
}

TEST(Tolerance, LargePicturesSameForEveryThreadCount) {
    // Tall enough that every band holds many rows, with regions crossing every seam.
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8})
        for (int conn : {4, 8}) {
            const ChannelImage img(211, 389, f, random_channels(211 * 389, channels(f), 255, 1, 4, 77), 1);
            for (int threads : {1, 2, 4, 5, 8, 16})
                expect_reference(img, conn, 1, std::nullopt, threads,
                                 std::string(format_name(f)) + " threads " + std::to_string(threads));
        }
}

TEST(Tolerance, ChainWhoseEndsDifferByMoreJoins) {
    // A ramp 0, 3, 6, ... 255: each step is 3, the ends differ by 255.
    std::vector<std::uint64_t> ramp;
    for (std::uint64_t v = 0; v <= 255; v += 3) ramp.push_back(v);
    const auto w = std::int64_t(ramp.size());
    for (int conn : {4, 8}) {
        const ChannelImage img(w, 1, PixelFormat::Gray8, ramp);
        const Labels joined = label(img.view(), Options{.connectivity = conn, .backend = Backend::Cpu, .tolerance = 3});
        EXPECT_EQ(joined.count, 1u);
        const Labels split = label(img.view(), Options{.connectivity = conn, .backend = Backend::Cpu, .tolerance = 2});
        EXPECT_EQ(split.count, std::uint32_t(w));
        expect_reference(img, conn, 3, std::nullopt, 1, "ramp");
    }
    // The same ramp along a diagonal on a far-off background: one region with 8-connectivity only.
    const std::int64_t n = 20;
    std::vector<std::uint64_t> diag(std::size_t(n * n), 200);
    for (std::int64_t i = 0; i < n; ++i) diag[std::size_t(i * n + i)] = std::uint64_t(i * 5);
    const ChannelImage img(n, n, PixelFormat::Gray8, diag);
    const Options o8{.connectivity = 8, .background = std::vector<std::uint64_t>{200}, .backend = Backend::Cpu, .tolerance = 5};
    EXPECT_EQ(label(img.view(), o8).count, 1u);
    Options o4 = o8;
    o4.connectivity = 4;
    EXPECT_EQ(label(img.view(), o4).count, std::uint32_t(n));
}

TEST(Tolerance, WholeRangeAtTheEnds) {
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32}) {
        const std::uint64_t max = channel_max(f);
        const ChannelImage img(4, 1, f, {0, max, 0, max});
        for (int conn : {4, 8}) {
            Options o{.connectivity = conn, .backend = Backend::Cpu, .tolerance = std::uint32_t(max)};
            EXPECT_EQ(label(img.view(), o).count, 1u) << format_name(f);
            o.tolerance = std::uint32_t(max - 1);
            EXPECT_EQ(label(img.view(), o).count, 4u) << format_name(f);
            expect_reference(img, conn, std::uint32_t(max), std::nullopt, 1, std::string(format_name(f)));
        }
    }
}

TEST(Tolerance, ColourComparesEveryChannel) {
    // Neighbours 3 apart in red only, in green only, then in all three: tolerance 2 joins none, 3 all.
    const ChannelImage img(4, 1, PixelFormat::RGB8, {10, 10, 10, 13, 10, 10, 13, 13, 10, 16, 16, 13});
    EXPECT_EQ(label(img.view(), Options{.backend = Backend::Cpu, .tolerance = 2}).count, 4u);
    EXPECT_EQ(label(img.view(), Options{.backend = Backend::Cpu, .tolerance = 3}).count, 1u);
    // One channel far apart keeps two pixels apart, however close the others are.
    const ChannelImage rgba(2, 1, PixelFormat::RGBA8, {0, 0, 0, 0, 0, 0, 0, 255});
    EXPECT_EQ(label(rgba.view(), Options{.backend = Backend::Cpu, .tolerance = 254}).count, 2u);
    EXPECT_EQ(label(rgba.view(), Options{.backend = Backend::Cpu, .tolerance = 255}).count, 1u);
}

TEST(Tolerance, BackgroundJoinsNothing) {
    // 4 and 6 are both within 1 of the background 5, but not of each other.
    const ChannelImage img(3, 1, PixelFormat::Gray8, {4, 5, 6});
    Options o{.background = std::vector<std::uint64_t>{5}, .backend = Backend::Cpu, .tolerance = 1};
    const Labels l = label(img.view(), o);
    EXPECT_EQ(l.count, 2u);
    EXPECT_EQ(l.data, (std::vector<std::uint32_t>{1, 0, 2}));
    o.tolerance = 2;
    EXPECT_EQ(label(img.view(), o).count, 2u);  // 4 and 6 touch only through the background
}

TEST(Tolerance, RegressionCc3dEightConnectedDeltaJoinsTooFar) {
    // cc3d 4.1.1 with delta 4 and 8-connectivity puts the 9 with the 2 (they differ by 7); the flood
    // fill joins 11, 10 and 9 (steps of 1) and leaves the 2 alone.
    const ChannelImage img(2, 2, PixelFormat::Gray8, {11, 2, 10, 9});
    const Labels l = label(img.view(), Options{.connectivity = 8, .backend = Backend::Cpu, .tolerance = 4});
    EXPECT_EQ(l.data, (std::vector<std::uint32_t>{1, 2, 1, 1}));
    expect_reference(img, 8, 4, std::nullopt, 1, "cc3d case");
}

TEST(Tolerance, ZeroIsExactLabelling) {
    const ChannelImage img(37, 23, PixelFormat::Gray8, random_channels(37 * 23, 1, 255, 1, 2, 5));
    for (int conn : {4, 8}) {
        const Options o{.connectivity = conn, .backend = Backend::Cpu};
        expect_reference(img, conn, 0, std::nullopt, 1, "tolerance 0");
        EXPECT_EQ(label(img.view(), o).data, label(img.view(), Options{.connectivity = conn, .backend = Backend::Cpu,
                                                                        .tolerance = 0}).data);
    }
}

TEST(Tolerance, Binary8IgnoresIt) {
    const ChannelImage img(5, 1, PixelFormat::Binary8, {1, 0, 255, 7, 0});
    const Labels l = label(img.view(), Options{.backend = Backend::Cpu, .tolerance = 255});
    EXPECT_EQ(l.data, (std::vector<std::uint32_t>{1, 0, 2, 2, 0}));
}

TEST(Tolerance, OutOfRangeIsAnErrorNamingIt) {
    const std::uint8_t px[4] = {};
    struct Case {
        PixelFormat f;
        std::uint32_t tol;
    };
    for (Case c : {Case{PixelFormat::Gray8, 256}, Case{PixelFormat::RGB8, 256}, Case{PixelFormat::RGBA8, 1000},
                   Case{PixelFormat::Gray16, 65536}, Case{PixelFormat::Binary8, 256}}) {
        std::uint32_t out = 0;
        try {
            label(ImageView{px, 1, 1, 0, c.f}, &out, Options{.tolerance = c.tol});
            ADD_FAILURE() << "no error for tolerance " << c.tol << " on " << format_name(c.f);
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("tolerance " + std::to_string(c.tol)), std::string::npos) << e.what();
        }
    }
    std::uint32_t out = 0;
    EXPECT_NO_THROW(label(ImageView{px, 1, 1, 0, PixelFormat::U32}, &out, Options{.tolerance = 0xFFFFFFFFu}));
    EXPECT_NO_THROW(label(ImageView{px, 1, 1, 0, PixelFormat::Gray16}, &out, Options{.tolerance = 65535}));
}

TEST(Tolerance, CudaBackendWithoutADeviceIsAnError) {
    // With a device, tests/cuda/test_tolerance_cuda.cpp checks the GPU's labels.
    if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
    const std::uint8_t px[1] = {};
    std::uint32_t out = 0;
    EXPECT_THROW(label(ImageView{px, 1, 1, 0, PixelFormat::Gray8}, &out, Options{.backend = Backend::Cuda, .tolerance = 3}),
                 Error);
}

TEST(Tolerance, VerifyRefusesItRatherThanAnswerWrongly) {
    // verify certifies exact-value regions: with a tolerance it would report correct labels broken.
    const ChannelImage img(9, 7, PixelFormat::Gray8, random_channels(9 * 7, 1, 255, 1, 2, 5));
    std::vector<std::uint32_t> out(9 * 7);
    const Options o{.backend = Backend::Cpu, .tolerance = 2};
    label(img.view(), out.data(), o);
    try {
        verify(img.view(), out.data(), o);
        ADD_FAILURE() << "verify accepted a tolerance";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tolerance 2"), std::string::npos) << e.what();
    }
}

TEST(Tolerance, TilesJoinAcrossTheirSeamsAsTheWholePicture) {
    // Tiles of every shape down to 1 x 1 (every pixel's joins are seams), uint32 and uint64
    // labels, against the flood fill; the ramp case puts a chain of close steps across many seams.
    std::uint32_t seed = 40;
    for (PixelFormat f : kFormats)
        for (int conn : {4, 8})
            for (auto [tw, th] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {3, 2}, {5, 7}, {16, 3}, {64, 64}}) {
                const std::int64_t w = 23, h = 19;
                const int nch = channels(f);
                const std::uint64_t step = f == PixelFormat::Gray16 ? 7 : 1;
                const ChannelImage img(w, h, f, random_channels(w * h, nch, channel_max(f), step, nch > 1 ? 3 : 8, seed++), 2);
                const std::vector<std::uint64_t> bg(std::size_t(nch), 0);
                for (auto b : {std::optional<std::vector<std::uint64_t>>{}, std::optional{bg}}) {
                    const std::uint32_t tol = std::uint32_t(2 * step);
                    std::uint32_t n_ref = 0;
                    const auto ref = tolerance_flood_fill(img.channels, nch, w, h, conn, tol, b, &n_ref);
                    const Options o{.connectivity = conn, .background = b, .backend = Backend::Cpu, .tolerance = tol};
                    const std::string what = std::string(format_name(f)) + " conn " + std::to_string(conn) + " tiles " +
                                             std::to_string(tw) + "x" + std::to_string(th) + (b ? " bg" : "");
                    std::vector<std::uint32_t> out(std::size_t(w * h));
                    ASSERT_EQ(label_tiled(img.view(), out.data(), o, tw, th).count, n_ref) << what;
                    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(out[i], ref[i]) << what << " at " << i;
                    std::vector<std::uint64_t> wide(std::size_t(w * h));
                    ASSERT_EQ(label_tiled(img.view(), wide.data(), o, tw, th).count, n_ref) << what << " (uint64)";
                    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(wide[i], ref[i]) << what << " (uint64) at " << i;
                }
            }
    std::vector<std::uint64_t> ramp;
    for (std::uint64_t v = 0; v <= 255; v += 3) ramp.push_back(v);
    const ChannelImage line(std::int64_t(ramp.size()), 1, PixelFormat::Gray8, ramp);
    std::vector<std::uint32_t> out(ramp.size());
    EXPECT_EQ(label_tiled(line.view(), out.data(), Options{.backend = Backend::Cpu, .tolerance = 3}, 4, 1).count, 1u);
    EXPECT_EQ(label_tiled(line.view(), out.data(), Options{.backend = Backend::Cpu, .tolerance = 2}, 4, 1).count,
              std::uint32_t(ramp.size()));
}

TEST(Tolerance, SeamsOfTilesLabelledDifferentlyAreAnError) {
    const ChannelImage img(8, 2, PixelFormat::Gray8, random_channels(16, 1, 255, 1, 4, 3));
    std::vector<std::uint32_t> la(8), lb(8);
    const ImageView top = tile_view(img.view(), TileRect{0, 0, 8, 1}), bottom = tile_view(img.view(), TileRect{0, 1, 8, 1});
    const TileInfo a = label_tile(top, 0, 0, 8, la.data(), Options{.tolerance = 2});
    const TileInfo b = label_tile(bottom, 0, 1, 8, lb.data(), Options{.tolerance = 3});
    EXPECT_THROW(seam_equivalences(a, b, 8), Error);
    const TileInfo b2 = label_tile(bottom, 0, 1, 8, lb.data(), Options{.tolerance = 2});
    EXPECT_NO_THROW(seam_equivalences(a, b2, 8));
}

}  // namespace
}  // namespace cclabel::test

namespace cclabel::test {
namespace {

/// A typed picture (I8 to F64) of values that wander by small steps, with NaN, -0 and +0 among the
/// floats and the type's extremes among the integers, labelled with a tolerance against a flood
/// fill that compares the values themselves.
template <typename T>
void expect_typed_tolerance(PixelFormat f, double step, double tol, std::uint32_t seed) {
    const std::int64_t w = 37, h = 23;
    std::mt19937 rng(seed);
    std::vector<T> v(std::size_t(w * h));
    double cur = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        cur += (double(rng() % 5) - 2) * step;
        if (rng() % 25 == 0) cur = (double(rng() % 9) - 4) * 10 * step;
        T x = T(cur);
        if constexpr (std::is_floating_point_v<T>) {
            if (rng() % 30 == 0) x = std::numeric_limits<T>::quiet_NaN();
            if (rng() % 30 == 0) x = -T(0);
        } else {
            if (rng() % 40 == 0) x = std::numeric_limits<T>::max();
            if (rng() % 40 == 0) x = std::numeric_limits<T>::min();
        }
        v[i] = x;
    }
    for (int conn : {4, 8})
        for (bool bg : {false, true}) {
            const auto value = [&](std::int64_t p) { return v[std::size_t(p)]; };
            const auto close = [&](std::int64_t p, std::int64_t q) {
                const T a = value(p), b = value(q);
                if constexpr (std::is_floating_point_v<T>) {
                    if (a != a || b != b) return a != a && b != b;
                    return std::fabs(double(a) - double(b)) <= tol;
                } else {
                    const auto d = a > b ? std::uint64_t(a) - std::uint64_t(b) : std::uint64_t(b) - std::uint64_t(a);
                    return double(d) <= tol;
                }
            };
            const auto is_bg = [&](std::int64_t p) { return bg && value(p) == T(0); };
            std::uint32_t n_ref = 0;
            const auto ref = bfs_labels(w, h, conn, is_bg, close, &n_ref);
            Options o{.connectivity = conn, .backend = Backend::Cpu, .threads = int(seed % 3) + 1};
            o.tolerance_value = tol;
            if (bg) o.background_value = 0;
            std::vector<std::uint32_t> out(v.size() + 1, 0xDEADBEEFu);
            const LabelResult r = label(ImageView{v.data(), w, h, 0, f}, out.data(), o);
            const std::string what = std::string(format_name(f)) + " conn " + std::to_string(conn) + (bg ? " bg" : "");
            ASSERT_EQ(out.back(), 0xDEADBEEFu) << what;
            out.pop_back();
            EXPECT_EQ(r.backend, Backend::Cpu);
            ASSERT_EQ(r.count, n_ref) << what;
            ASSERT_EQ(out, ref) << what;
        }
}

TEST(Tolerance, TypedPicturesJoinByValue) {
    expect_typed_tolerance<std::int8_t>(PixelFormat::I8, 1, 2, 1);
    expect_typed_tolerance<std::int16_t>(PixelFormat::I16, 50, 100, 2);
    expect_typed_tolerance<std::int32_t>(PixelFormat::I32, 1000, 2000, 3);
    expect_typed_tolerance<std::int64_t>(PixelFormat::I64, 1e12, 2e12, 4);
    expect_typed_tolerance<std::uint64_t>(PixelFormat::U64, 1e12, 2e12, 5);
    expect_typed_tolerance<float>(PixelFormat::F32, 0.25, 0.5, 6);
    expect_typed_tolerance<double>(PixelFormat::F64, 0.1, 0.25, 7);
}

TEST(Tolerance, HalfFloatsJoinByValue) {
    // binary16 bits of 0, 0.5, 1.0, 1.5, 2.5, two NaNs, -0, +inf: with tolerance 0.5 the first
    // four chain, 2.5 is 1.0 from 1.5, a NaN joins only a NaN, -0 and +inf join neither.
    const std::uint16_t px[] = {0x0000, 0x3800, 0x3C00, 0x3E00, 0x4100, 0x7E00, 0x7E01, 0x8000, 0x7C00};
    std::vector<std::uint32_t> out(9);
    Options o{.connectivity = 4, .backend = Backend::Cpu};
    o.tolerance_value = 0.5;
    EXPECT_EQ(label(ImageView{px, 9, 1, 0, PixelFormat::F16}, out.data(), o).count, 5u);
    EXPECT_EQ(out, (std::vector<std::uint32_t>{1, 1, 1, 1, 2, 3, 3, 4, 5}));
}

TEST(Tolerance, TypedToleranceErrorsNameTheProblem) {
    const float px[4] = {0, 1, 2, 3};
    std::uint32_t out[4];
    auto expect_error = [&](const Options& o, PixelFormat f, const std::string& part) {
        try {
            label(ImageView{px, 4, 1, 0, f}, out, o);
            ADD_FAILURE() << "accepted: " << part;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    Options o;
    o.tolerance_value = -1;
    expect_error(o, PixelFormat::F32, "tolerance_value -1 must be a finite number of at least 0");
    o.tolerance_value = std::numeric_limits<double>::infinity();
    expect_error(o, PixelFormat::F32, "must be a finite number");
    o.tolerance_value = 0.5;
    o.tolerance = 1;
    expect_error(o, PixelFormat::F32, "both set");
    o.tolerance = 0;
    expect_error(o, PixelFormat::Gray8, "tolerance_value is for the typed formats");
    o.backend = Backend::Cuda;  // the GPU takes it (tests/cuda/test_tolerance_cuda.cpp); without one it says why
    if (!cuda_available()) expect_error(o, PixelFormat::F32, "backend cuda");
    // The keyed paths (batches) join exact values only: refused, not answered wrongly.
    o.backend = Backend::Cpu;
    std::vector<std::uint32_t> bout(8);
    try {
        label_batch(BatchView{px, 2, 2, 1, 0, 0, PixelFormat::F32}, bout.data(), o);
        ADD_FAILURE() << "label_batch accepted a typed tolerance";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("label() takes it on the CPU"), std::string::npos) << e.what();
    }
    // A tolerance_value of 0 is exact labelling, also through the keyed paths (batches).
    Options zero{.connectivity = 4, .backend = Backend::Cpu};
    zero.tolerance_value = 0.0;
    const float two[4] = {1, 1, 2, 2};
    std::vector<std::uint32_t> zout(4);
    ASSERT_NO_THROW(label_batch(BatchView{two, 2, 2, 1, 0, 0, PixelFormat::F32}, zout.data(), zero));
    EXPECT_EQ(zout, (std::vector<std::uint32_t>{1, 1, 1, 1}));
    EXPECT_EQ(label(ImageView{two, 4, 1, 0, PixelFormat::F32}, zout.data(), zero).count, 2u);
    // An integer tolerance is a tolerance_value for a typed format.
    Options oi{.connectivity = 4, .backend = Backend::Cpu, .tolerance = 1};
    EXPECT_EQ(label(ImageView{px, 4, 1, 0, PixelFormat::F32}, out, oi).count, 1u);
}

}  // namespace
}  // namespace cclabel::test
