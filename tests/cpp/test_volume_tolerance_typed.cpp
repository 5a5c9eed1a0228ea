// label_volume of typed volumes (I8 to F64) with a tolerance on the CPU, against the flood fill of
// tests/reference/volume_flood_fill.hpp with its own exact compare (integers by their difference in
// 128 bits, floats by value, a NaN only with a NaN, -0 == +0): wandering values whose chains cross
// slices and the threads' slabs, every connectivity, background on and off, thread counts, padded
// rows and slices at an odd address; ramps whose ends differ by far more than the tolerance; the
// 64-bit extremes, whose differences overflow 64-bit arithmetic; the bad tolerances.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/volume.hpp"
#include "reference/typed_volume.hpp"

namespace cclabel::test {
namespace {

using typed_volume::encode;
using typed_volume::is_float;
using typed_volume::reference;
using typed_volume::TypedVolume;
using typed_volume::wandering;

std::string what(const TypedVolume& t, int conn, double tol, std::optional<Scalar> bg, int threads) {
    return std::string(format_name(t.f)) + " " + std::to_string(t.w) + "x" + std::to_string(t.h) + "x" +
           std::to_string(t.d) + " conn " + std::to_string(conn) + " tol " + std::to_string(tol) +
           (bg ? " with background" : "") + " threads " + std::to_string(threads);
}

void expect_reference(const TypedVolume& t, int conn, double tol, std::optional<Scalar> bg, int threads) {
    std::uint32_t n_ref = 0;
    const std::vector<std::uint32_t> ref = reference(t, conn, tol, bg, &n_ref);
    Options o;
    o.connectivity = conn;
    o.tolerance_value = tol;
    o.threads = threads;
    o.backend = Backend::Cpu;  // the GPU: tests/cuda/test_tolerance_volume_cuda.cpp
    o.background_value = bg;
    std::vector<std::uint32_t> got(ref.size() + 1, 0xDEADBEEFu);
    const LabelResult r = label_volume(t.view(), got.data(), o);
    ASSERT_EQ(got.back(), 0xDEADBEEFu) << what(t, conn, tol, bg, threads) << ": wrote past the labels";
    got.pop_back();
    EXPECT_EQ(r.backend, Backend::Cpu);
    ASSERT_EQ(r.count, n_ref) << what(t, conn, tol, bg, threads);
    ASSERT_EQ(got, ref) << what(t, conn, tol, bg, threads);
}

constexpr PixelFormat kTyped[] = {PixelFormat::I8,  PixelFormat::I16, PixelFormat::I32, PixelFormat::I64,
                                  PixelFormat::U64, PixelFormat::F16, PixelFormat::F32, PixelFormat::F64};

TEST(VolumeToleranceTyped, RandomVolumesMatchTheFloodFill) {
    struct Shape {
        std::int64_t w, h, d;
    };
    const Shape shapes[] = {{1, 1, 1}, {1, 1, 13}, {13, 1, 1}, {7, 5, 6}, {17, 9, 11}};
    std::uint32_t seed = 1;
    for (PixelFormat f : kTyped)
        for (const Shape& s : shapes)
            for (int conn : {6, 18, 26})
                for (bool bg : {false, true}) {
                    TypedVolume t = wandering(f, s.w, s.h, s.d, ++seed);
                    encode(t, seed % 3 ? 0 : 3, seed % 2 ? 0 : 5);
                    // Integers: 2.5 means 2 (the exact difference is compared with it).
                    const double tol = f == PixelFormat::I64 ? 2.5 * double(std::int64_t(1) << 30) : is_float(f) ? 1.5 : 2.5;
                    // The background is a value that occurs: 0 (and -0), or U64's start.
                    std::optional<Scalar> b;
                    if (bg)
                        b = f == PixelFormat::U64 ? Scalar((std::uint64_t(1) << 63) + 100000)
                            : is_float(f)         ? Scalar(0.0)
                                                  : Scalar(std::int64_t(0));
                    expect_reference(t, conn, tol, b, 1 + int(seed % 4));
                    if (::testing::Test::HasFailure()) return;
                }
}

TEST(VolumeToleranceTyped, SameLabelsOnEveryThreadCount) {
    // Deep enough that every slab holds several slices and regions cross every slab seam.
    for (PixelFormat f : {PixelFormat::I16, PixelFormat::F32, PixelFormat::I64})
        for (int conn : {6, 26})
            for (int threads : {1, 2, 3, 5, 8}) {
                TypedVolume t = wandering(f, 19, 13, 29, 77);
                encode(t, 0, 0);
                expect_reference(t, conn, f == PixelFormat::I64 ? double(std::int64_t(1) << 31) : 1.0, std::nullopt, threads);
                if (::testing::Test::HasFailure()) return;
            }
}

TEST(VolumeToleranceTyped, ChainWhoseEndsDifferByMoreJoins) {
    // A float ramp 0, 0.5, ..., 50 down the slices of a 2 x 2 column: one region at 0.5, one a
    // slice at 0.25.
    TypedVolume r{2, 2, 101, PixelFormat::F32, {}, {}, {}, 0, 0};
    for (int z = 0; z <= 100; ++z)
        for (int i = 0; i < 4; ++i) r.reals.push_back(z * 0.5);
    encode(r, 0, 0);
    std::vector<std::uint32_t> out(std::size_t(r.voxels()));
    EXPECT_EQ(label_volume(r.view(), out.data(), Options{.connectivity = 6, .tolerance_value = 0.5}).count, 1u);
    EXPECT_EQ(label_volume(r.view(), out.data(), Options{.connectivity = 6, .tolerance_value = 0.25}).count, 101u);
    // Down the diagonal of a cube whose other voxels are far off (the background): only 26 joins it.
    const std::int64_t n = 9;
    TypedVolume c{n, n, n, PixelFormat::I32, std::vector<__int128>(std::size_t(n * n * n), 1000000), {}, {}, 0, 0};
    for (std::int64_t i = 0; i < n; ++i) c.ints[std::size_t((i * n + i) * n + i)] = -7 * i;
    encode(c, 1, 0);
    std::vector<std::uint32_t> cube(std::size_t(c.voxels()));
    Options o26{.connectivity = 26, .tolerance_value = 7};
    o26.background_value = 1000000;
    EXPECT_EQ(label_volume(c.view(), cube.data(), o26).count, 1u);
    for (int conn : {6, 18}) {
        Options o = o26;
        o.connectivity = conn;
        EXPECT_EQ(label_volume(c.view(), cube.data(), o).count, std::uint32_t(n)) << conn;
        expect_reference(c, conn, 7, Scalar(1000000), 2);
    }
}

TEST(VolumeToleranceTyped, SixtyFourBitExtremesWhoseDifferencesOverflow) {
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    // min and max side by side differ by 2^64 - 1, which 64-bit subtraction wraps to -1 (or 1): at
    // tolerance 2 they must stay apart. The ramp min, min + 2^62, ..., max steps by at most 2^62.
    TypedVolume i{2, 1, 6, PixelFormat::I64, {}, {}, {}, 0, 0};
    const std::int64_t q = std::int64_t(1) << 62;
    for (std::int64_t v : {kMin, kMax, kMin + 1, kMax - 1, std::int64_t(-1), std::int64_t(0), kMin, kMin + q, -q,
                           std::int64_t(0), q, kMax})
        i.ints.push_back(__int128(v));
    // Slices: (min, max), (min+1, max-1), (-1, 0), (min, min+q), (-q, 0), (q, max).
    encode(i, 0, 3);
    for (int conn : {6, 18, 26})
        for (double tol : {0.5, 2.0, 1.0, double(q), 4.0 * double(q)}) expect_reference(i, conn, tol, std::nullopt, 1);
    std::vector<std::uint32_t> out(12);
    // Each slice's two voxels join at 2^62 only where their difference is at most 2^62.
    const LabelResult r = label_volume(i.view(), out.data(), Options{.connectivity = 6, .tolerance_value = double(q)});
    EXPECT_EQ(out[0] == out[1], false);  // min, max
    EXPECT_EQ(out[6], out[7]);           // min, min + 2^62
    EXPECT_NE(r.count, 1u);

    TypedVolume u{3, 2, 2, PixelFormat::U64, {}, {}, {}, 0, 0};
    const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
    for (std::uint64_t v : {std::uint64_t(0), top, top - 1, std::uint64_t(1), std::uint64_t(2), top - 2,
                            top, std::uint64_t(0), std::uint64_t(3), std::uint64_t(1) << 63, (std::uint64_t(1) << 63) - 1, top})
        u.ints.push_back(__int128(v));
    encode(u, 5, 0);
    for (int conn : {6, 18, 26})
        for (double tol : {1.0, 2.0, 3.0, 1e19}) expect_reference(u, conn, tol, std::nullopt, 1 + conn % 2);
    expect_reference(u, 26, 1.0, Scalar(top), 1);  // the largest value as the background
}

TEST(VolumeToleranceTyped, NaNNegativeZeroInfinityAndTheirBackgrounds) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
    for (PixelFormat f : {PixelFormat::F16, PixelFormat::F32, PixelFormat::F64}) {
        TypedVolume t{3, 2, 3, f, {}, {nan, nan, 1, -0.0, 0.0, inf, 2, nan, 1.5, inf, inf, -inf, nan, 3, 4.5, -inf, 0.25, -0.0},
                      {}, 0, 0};
        encode(t, 2, 1);
        for (int conn : {6, 18, 26}) {
            expect_reference(t, conn, 1.0, std::nullopt, 1);
            expect_reference(t, conn, 1.0, Scalar(0.0), 2);   // -0.0 is the background too
            expect_reference(t, conn, 1.0, Scalar(-0.0), 1);  // and 0.0 with a background of -0.0
            expect_reference(t, conn, 1.0, Scalar(nan), 3);   // the NaNs are background
            expect_reference(t, conn, 1e300, std::nullopt, 2);  // every finite value joins; inf - inf is NaN
        }
        // A NaN's neighbours: NaN joins NaN (one region of the two at the start), never a number.
        std::vector<std::uint32_t> out(std::size_t(t.voxels()));
        label_volume(t.view(), out.data(), Options{.connectivity = 6, .tolerance_value = 1e300});
        EXPECT_EQ(out[0], out[1]);
        EXPECT_NE(out[1], out[2]);
    }
}

TEST(VolumeToleranceTyped, IntegerToleranceMeansTheSameAndZeroIsExact) {
    TypedVolume t = wandering(PixelFormat::I16, 11, 7, 5, 9);
    encode(t, 0, 0);
    std::vector<std::uint32_t> a(std::size_t(t.voxels())), b(a.size()), exact(a.size());
    const LabelResult ra = label_volume(t.view(), a.data(), Options{.connectivity = 18, .tolerance = 2});
    const LabelResult rb = label_volume(t.view(), b.data(), Options{.connectivity = 18, .tolerance_value = 2.0});
    EXPECT_EQ(ra.count, rb.count);
    EXPECT_EQ(a, b);
    expect_reference(t, 18, 2, std::nullopt, 1);
    // tolerance_value 0 is exact labelling (through the keys), as the flood fill of equal values.
    const LabelResult re = label_volume(t.view(), exact.data(), Options{.connectivity = 18, .tolerance_value = 0.0});
    std::uint32_t n_ref = 0;
    EXPECT_EQ(exact, reference(t, 18, 0, std::nullopt, &n_ref));
    EXPECT_EQ(re.count, n_ref);
}

TEST(VolumeToleranceTyped, BadTolerancesAreErrors) {
    std::vector<float> px(27, 1.0f);
    std::vector<std::uint32_t> out(27);
    const VolumeView v{px.data(), 3, 3, 3, 12, 36, PixelFormat::F32};
    auto expect_error = [&](const VolumeView& view, const Options& o, const std::string& part) {
        try {
            label_volume(view, out.data(), o);
            ADD_FAILURE() << "accepted: " << part;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    expect_error(v, Options{.connectivity = 26, .tolerance_value = -1.0}, "must be a finite number of at least 0");
    expect_error(v, Options{.connectivity = 26, .tolerance_value = std::numeric_limits<double>::quiet_NaN()},
                 "must be a finite number of at least 0");
    expect_error(v, Options{.connectivity = 26, .tolerance_value = HUGE_VAL}, "must be a finite number of at least 0");
    expect_error(v, Options{.connectivity = 26, .tolerance = 1, .tolerance_value = 1.0}, "both set");
    std::vector<std::uint8_t> g(27, 1);
    expect_error(VolumeView{g.data(), 3, 3, 3, 3, 9, PixelFormat::Gray8}, Options{.connectivity = 26, .tolerance_value = 1.0},
                 "tolerance_value is for the typed formats");
    // The statistics of volumes join exact values only.
    EXPECT_THROW(regions_volume(v, out.data(), Options{.connectivity = 26, .tolerance_value = 1.0}), Error);
    // validate_volume takes what label_volume takes.
    EXPECT_NO_THROW(validate_volume(v, out.data(), Options{.connectivity = 26, .tolerance_value = 1.0}));
}

}  // namespace
}  // namespace cclabel::test
