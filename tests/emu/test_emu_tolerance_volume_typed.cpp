// Typed volumes (I8 to F64) with a tolerance on the GPU, run by the CPU executor: the volume
// programs with CloseValues (kernels/close_values.cuh) reading the values where they lie, as
// label_volume_device does for them (volume_cuda.cu: no key map). Compared voxel for voxel with
// the tolerance flood fill of tests/reference/typed_volume.hpp and with the CPU labeller: wandering
// values whose chains cross tiles, 64-bit extremes whose differences overflow, NaN, -0 and
// infinities, every connectivity, background on and off, tiny tiles (most voxels on a face) and
// several voxels a thread. The mutation test turns on the shortcuts of an equivalence (cover,
// prelink, covered_by_left) and sees a ramp's labels change, so these volumes can catch them.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "core/volume_request.hpp"
#include "emu/emu_volume.hpp"
#include "reference/typed_volume.hpp"

namespace cclabel::test {
namespace {

namespace cd = cclabel::cuda::detail;
using cd::VolumeShape;
using typed_volume::encode;
using typed_volume::is_float;
using typed_volume::reference;
using typed_volume::TypedVolume;
using typed_volume::wandering;

/// Tiny tiles, several voxels a thread, and the default shape of a deep volume.
const VolumeShape kShapes[] = {{4, 2, 2, 32, 32, 1}, {3, 3, 2, 64, 32, 1}, {8, 1, 3, 32, 32, 1},
                               {4, 2, 4, 32, 32, 2}, {3, 3, 4, 64, 32, 4}, VolumeShape{}};

Options options_of(int conn, double tol, std::optional<Scalar> bg) {
    Options o;
    o.connectivity = conn;
    o.tolerance_value = tol;
    o.threads = 1;
    o.backend = Backend::Cpu;
    o.background_value = bg;
    return o;
}

std::string describe(const TypedVolume& t, int conn, double tol, bool bg, const VolumeShape& s, std::uint64_t seed) {
    return std::string(format_name(t.f)) + " " + std::to_string(t.w) + "x" + std::to_string(t.h) + "x" +
           std::to_string(t.d) + " conn " + std::to_string(conn) + " tol " + std::to_string(tol) + (bg ? " bg" : "") +
           " tile " + std::to_string(s.tile_x) + "x" + std::to_string(s.tile_y) + "x" + std::to_string(s.tile_z) + "/" +
           std::to_string(s.per_thread) + " seed " + std::to_string(seed);
}

/// The emulated GPU labels of @p t; @p Shortcuts: the mutants (emu_label_volume).
template <bool Shortcuts = false>
std::vector<std::uint32_t> emulated(const TypedVolume& t, const Options& o, const VolumeShape& s, std::uint64_t seed,
                                    std::uint32_t* n) {
    std::vector<std::uint32_t> out(std::size_t(t.voxels()) + 1, 0xC0FFEEu);
    const cclabel::detail::VolumeRequest r = cclabel::detail::make_volume_request(t.view(), out.data(), o, true);
    *n = emu::emu_label_volume<0, Shortcuts>(r, out.data(), s, seed);
    EXPECT_EQ(out.back(), 0xC0FFEEu) << "wrote past the labels";
    out.pop_back();
    return out;
}

void expect_volume(const TypedVolume& t, int conn, double tol, std::optional<Scalar> bg, std::uint64_t seed,
                   bool every_shape = true) {
    std::uint32_t n_ref = 0;
    const std::vector<std::uint32_t> ref = reference(t, conn, tol, bg, &n_ref);
    const Options o = options_of(conn, tol, bg);
    std::vector<std::uint32_t> cpu(ref.size());
    ASSERT_EQ(label_volume(t.view(), cpu.data(), o).count, n_ref) << describe(t, conn, tol, bg.has_value(), {}, seed);
    ASSERT_EQ(cpu, ref) << "the CPU: " << describe(t, conn, tol, bg.has_value(), {}, seed);
    for (const VolumeShape& s : kShapes) {
        const VolumeShape shape = every_shape ? s : kShapes[seed % std::size(kShapes)];
        std::uint32_t n = 0;
        const std::vector<std::uint32_t> got = emulated(t, o, shape, seed, &n);
        ASSERT_EQ(n, n_ref) << describe(t, conn, tol, bg.has_value(), shape, seed);
        ASSERT_EQ(got, ref) << describe(t, conn, tol, bg.has_value(), shape, seed);
        if (!every_shape) break;
    }
}

TEST(EmuTypedVolumeTolerance, RandomVolumesMatchTheFloodFillAndTheCpu) {
    std::uint32_t seed = 100;
    for (PixelFormat f : {PixelFormat::I8, PixelFormat::I16, PixelFormat::I32, PixelFormat::I64, PixelFormat::U64,
                          PixelFormat::F16, PixelFormat::F32, PixelFormat::F64})
        for (auto [w, h, d] : {std::array<std::int64_t, 3>{9, 7, 5}, {1, 1, 11}, {13, 2, 3}})
            for (int conn : {6, 18, 26})
                for (bool bg : {false, true}) {
                    TypedVolume t = wandering(f, w, h, d, ++seed);
                    encode(t, seed % 3 ? 0 : 3, seed % 2 ? 0 : 5);
                    const double tol = f == PixelFormat::I64 ? 2.5 * double(std::int64_t(1) << 30) : is_float(f) ? 1.5 : 2.5;
                    std::optional<Scalar> b;
                    if (bg)
                        b = f == PixelFormat::U64 ? Scalar((std::uint64_t(1) << 63) + 100000)
                            : is_float(f)         ? Scalar(0.0)
                                                  : Scalar(std::int64_t(0));
                    // Every shape on the first of each format's shapes, one (by seed) on the rest.
                    expect_volume(t, conn, tol, b, seed, w == 9 && conn == 26);
                    if (::testing::Test::HasFailure()) return;
                }
}

TEST(EmuTypedVolumeTolerance, SixtyFourBitExtremesNaNZeroAndInfinity) {
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    const std::int64_t q = std::int64_t(1) << 62;
    // min beside max differ by 2^64 - 1, which 64-bit subtraction wraps to 1 (CloseValues' unsigned
    // difference must not); a ramp of steps up to 2^62 from min to max.
    TypedVolume i{2, 1, 6, PixelFormat::I64, {}, {}, {}, 0, 0};
    for (std::int64_t v : {kMin, kMax, kMin + 1, kMax - 1, std::int64_t(-1), std::int64_t(0), kMin, kMin + q, -q,
                           std::int64_t(0), q, kMax})
        i.ints.push_back(__int128(v));
    encode(i, 0, 3);
    for (int conn : {6, 18, 26})
        for (double tol : {2.0, double(q), 4.0 * double(q)}) expect_volume(i, conn, tol, std::nullopt, 1);
    TypedVolume u{3, 2, 2, PixelFormat::U64, {}, {}, {}, 0, 0};
    const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
    for (std::uint64_t v : {std::uint64_t(0), top, top - 1, std::uint64_t(1), std::uint64_t(2), top - 2, top,
                            std::uint64_t(0), std::uint64_t(3), std::uint64_t(1) << 63, (std::uint64_t(1) << 63) - 1, top})
        u.ints.push_back(__int128(v));
    encode(u, 5, 0);
    for (int conn : {6, 26}) {
        expect_volume(u, conn, 2.0, std::nullopt, 2);
        expect_volume(u, conn, 1e19, Scalar(top), 3);
    }
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
    for (PixelFormat f : {PixelFormat::F16, PixelFormat::F32, PixelFormat::F64}) {
        TypedVolume t{3, 2, 3, f, {}, {nan, nan, 1, -0.0, 0.0, inf, 2, nan, 1.5, inf, inf, -inf, nan, 3, 4.5, -inf, 0.25, -0.0},
                      {}, 0, 0};
        encode(t, 2, 1);
        for (int conn : {6, 18, 26}) {
            expect_volume(t, conn, 1.0, std::nullopt, 4);
            expect_volume(t, conn, 1.0, Scalar(0.0), 5);  // -0.0 is the background too
            expect_volume(t, conn, 1.0, Scalar(nan), 6);  // the NaNs are background
            expect_volume(t, conn, 1e300, std::nullopt, 7);
        }
    }
}

/// The traps of test_emu_tolerance_volume.cpp in typed values (scaled by @p unit): X, 3 from both
/// of L (its left) and N (above it), which are 6 apart, and a far-off voxel a: 2 regions, 3 with
/// covered_by_left. 2 x 2 x 1 [a N / L X]; cover's: 2 x 1 x 2, slice 0 [A K], slice 1 [J X].
TypedVolume trap(PixelFormat f, double unit, std::int64_t w, std::int64_t h, std::int64_t d) {
    TypedVolume t{w, h, d, f, {}, {}, {}, 0, 0};
    for (double v : {100.0, 6.0, 0.0, 3.0}) {
        if (is_float(f)) t.reals.push_back(v * unit - 50);
        else t.ints.push_back(__int128(std::int64_t(v * unit)) - (__int128(1) << 62));
    }
    encode(t, 0, 0);
    return t;
}

template <bool Shortcuts>
std::uint32_t count_of(const TypedVolume& t, int conn, double tol, bool cover, const VolumeShape& shape) {
    VolumeShape s = shape;
    s.switches.cover = cover;
    std::uint32_t n = 0;
    (void)emulated<Shortcuts>(t, options_of(conn, tol, std::nullopt), s, 1, &n);
    return n;
}

TEST(EmuTypedVolumeTolerance, MutationTheShortcutsOfEqualValuesSplitRegions) {
    const VolumeShape in_tile{4, 2, 2, 32, 32, 1}, rows_apart{4, 1, 2, 32, 32, 1}, slices_apart{4, 2, 1, 32, 32, 1};
    // F32 in shared words; I64 read from the volume (not kShared), at values near -2^62.
    for (auto [f, unit] : {std::pair{PixelFormat::F32, 0.25}, std::pair{PixelFormat::I64, double(std::int64_t(1) << 40)}}) {
        const TypedVolume left = trap(f, unit, 2, 2, 1), cover = trap(f, unit, 2, 1, 2);
        const double tol = 3 * unit;
        for (int conn : {18, 26}) {
            for (const VolumeShape& s : {in_tile, rows_apart, slices_apart}) {
                EXPECT_EQ(count_of<false>(left, conn, tol, false, s), 2u) << conn;
                EXPECT_EQ(count_of<false>(cover, conn, tol, false, s), 2u) << conn;
            }
            EXPECT_EQ(count_of<true>(left, conn, tol, false, in_tile), 3u) << conn;
            EXPECT_EQ(count_of<true>(left, conn, tol, false, rows_apart), 3u) << conn;
            EXPECT_EQ(count_of<true>(cover, conn, tol, true, in_tile), 3u) << conn;
            EXPECT_EQ(count_of<true>(cover, conn, tol, true, slices_apart), 3u) << conn;
        }
    }
}

}  // namespace
}  // namespace cclabel::test
