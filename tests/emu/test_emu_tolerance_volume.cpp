// Tolerance joining on the GPU, run by the CPU executor: the volume programs' tolerance
// instantiations (kernels/volume_bodies.cuh with CloseKeys / CloseValues of close_values.cuh) for
// untyped volumes, and for typed pictures labelled as volumes of one slice (volume_plan.hpp's
// typed_picture, as label_device does for I8 to F64 with a tolerance). Compared voxel for voxel
// with a flood fill of the tolerance (tests/reference) and with the CPU labeller: chains whose ends
// differ by far more than the tolerance, 0/255 edges, NaN, -0, infinities, every connectivity,
// shapes and tiny tiles that put most voxels on tile faces. The mutation tests turn on the
// shortcuts that hold for equal values only (cover, prelink, covered_by_left) and see these
// cases fail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "core/request.hpp"
#include "core/volume_request.hpp"
#include "emu/emu_volume.hpp"
#include "reference/bfs_labels.hpp"
#include "reference/volume_flood_fill.hpp"

namespace cclabel::test {
namespace {

namespace cd = cclabel::cuda::detail;
using cd::VolumeShape;

/// Tiny tiles (most voxels on a face), several voxels a thread, the public shapes.
const VolumeShape kTolShapes[] = {{4, 2, 2, 32, 32, 1}, {3, 3, 2, 64, 32, 1}, {8, 1, 3, 32, 32, 1},
                                  {4, 2, 4, 32, 32, 2}, {3, 3, 4, 64, 32, 4}, {32, 4, 4, 256, 32, 1}};

int channels_of(PixelFormat f) { return f == PixelFormat::RGB8 ? 3 : f == PixelFormat::RGBA8 ? 4 : 1; }
int bytes_of(PixelFormat f) { return f == PixelFormat::Gray16 ? 2 : f == PixelFormat::U32 ? 4 : channels_of(f); }
std::uint64_t max_of(PixelFormat f) {
    return f == PixelFormat::Gray16 ? 0xFFFF : f == PixelFormat::U32 ? 0xFFFFFFFFull : 0xFF;
}

/// A volume given as channel values per voxel (x fastest), with its bytes.
struct ChannelVolume {
    std::int64_t w = 0, h = 0, d = 0;
    PixelFormat f = PixelFormat::Gray8;
    std::vector<std::uint64_t> ch;
    std::vector<std::uint8_t> bytes;
    std::int64_t row = 0;

    void encode(std::int64_t pad) {
        const int nch = channels_of(f), bpp = bytes_of(f);
        row = w * bpp + pad;
        bytes.assign(std::size_t(row * h * d), 0xAB);
        for (std::int64_t r = 0; r < h * d; ++r)
            for (std::int64_t x = 0; x < w; ++x) {
                std::uint8_t* p = bytes.data() + r * row + x * bpp;
                const std::size_t i = std::size_t((r * w + x) * nch);
                if (f == PixelFormat::Gray16) {
                    const auto v = std::uint16_t(ch[i]);
                    std::memcpy(p, &v, 2);
                } else if (f == PixelFormat::U32) {
                    const auto v = std::uint32_t(ch[i]);
                    std::memcpy(p, &v, 4);
                } else {
                    for (int c = 0; c < nch; ++c) p[c] = std::uint8_t(ch[i + std::size_t(c)]);
                }
            }
    }
    VolumeView view() const { return VolumeView{bytes.data(), w, h, d, row, row * h, f}; }
};

/// Values that wander by small steps from the voxel before, above or behind (chains of close
/// voxels whose ends drift far apart), with jumps and, where asked, values pinned at 0 and max.
ChannelVolume wandering(std::int64_t w, std::int64_t h, std::int64_t d, PixelFormat f, std::uint64_t unit,
                        std::uint32_t seed, std::int64_t pad = 0) {
    ChannelVolume v{w, h, d, f, {}, {}, 0};
    const int nch = channels_of(f);
    const std::uint64_t max = max_of(f);
    std::mt19937 rng(seed);
    const std::int64_t n = w * h * d;
    v.ch.resize(std::size_t(n * nch));
    for (std::int64_t p = 0; p < n; ++p)
        for (int c = 0; c < nch; ++c) {
            const int pick = int(rng() % 3);
            const std::int64_t from = pick == 0 && p >= w * h ? p - w * h : pick == 1 && p >= w ? p - w : p - 1;
            const std::int64_t base = from >= 0 ? std::int64_t(v.ch[std::size_t(from * nch + c)]) : std::int64_t(rng() % (max + 1));
            std::int64_t nv = base + (std::int64_t(rng() % 7) - 3) * std::int64_t(unit);
            if (rng() % 31 == 0) nv = std::int64_t(rng() % (max + 1));
            if (rng() % 53 == 0) nv = rng() % 2 ? 0 : std::int64_t(max);  // the edges of the range
            v.ch[std::size_t(p * nch + c)] = std::uint64_t(std::clamp<std::int64_t>(nv, 0, std::int64_t(max)));
        }
    v.encode(pad);
    return v;
}

/// The tolerance flood fill of @p v (background: every channel 0 when @p bg).
std::vector<std::uint32_t> reference(const ChannelVolume& v, int conn, std::uint64_t tol, bool bg, std::uint32_t* n) {
    const int nch = channels_of(v.f);
    auto is_bg = [&](std::int64_t p) {
        if (!bg) return false;
        for (int c = 0; c < nch; ++c)
            if (v.ch[std::size_t(p * nch + c)] != 0) return false;
        return true;
    };
    auto close = [&](std::int64_t p, std::int64_t q) {
        for (int c = 0; c < nch; ++c) {
            const std::uint64_t a = v.ch[std::size_t(p * nch + c)], b = v.ch[std::size_t(q * nch + c)];
            if ((a > b ? a - b : b - a) > tol) return false;
        }
        return true;
    };
    return volume_bfs(v.w, v.h, v.d, conn, is_bg, close, n);
}

Options tol_options(const ChannelVolume& v, int conn, std::uint32_t tol, bool bg) {
    Options o;
    o.connectivity = conn;
    o.tolerance = tol;
    o.threads = 1;
    if (bg) o.background = std::vector<std::uint64_t>(std::size_t(channels_of(v.f)), 0);
    return o;
}

/// The emulated GPU labels of @p v; @p Shortcuts: the mutants (emu_label_volume).
template <bool Shortcuts = false>
std::vector<std::uint32_t> emulated(const ChannelVolume& v, const Options& o, const VolumeShape& s, std::uint64_t seed,
                                    std::uint32_t* n) {
    std::vector<std::uint32_t> out(std::size_t(v.w * v.h * v.d) + 1, 0xC0FFEEu);
    const cclabel::detail::VolumeRequest r = cclabel::detail::make_volume_request(v.view(), out.data(), o, true);
    *n = emu::emu_label_volume<0, Shortcuts>(r, out.data(), s, seed);
    EXPECT_EQ(out.back(), 0xC0FFEEu) << "wrote past the labels";
    out.pop_back();
    return out;
}

std::string describe(const ChannelVolume& v, int conn, std::uint32_t tol, bool bg, const VolumeShape& s, std::uint64_t seed) {
    return std::string(format_name(v.f)) + " " + std::to_string(v.w) + "x" + std::to_string(v.h) + "x" + std::to_string(v.d) +
           " conn " + std::to_string(conn) + " tol " + std::to_string(tol) + (bg ? " bg" : "") + " tile " +
           std::to_string(s.tile_x) + "x" + std::to_string(s.tile_y) + "x" + std::to_string(s.tile_z) + "/" +
           std::to_string(s.per_thread) + " seed " + std::to_string(seed);
}

/// The emulator equals the flood fill and the CPU labeller on @p v for each shape.
void expect_volume(const ChannelVolume& v, int conn, std::uint32_t tol, bool bg, std::initializer_list<VolumeShape> shapes,
                   std::uint64_t seed) {
    std::uint32_t n_ref = 0;
    const std::vector<std::uint32_t> ref = reference(v, conn, tol, bg, &n_ref);
    const Options o = tol_options(v, conn, tol, bg);
    std::vector<std::uint32_t> cpu(ref.size());
    ASSERT_EQ(label_volume(v.view(), cpu.data(), o).count, n_ref) << describe(v, conn, tol, bg, VolumeShape{}, seed);
    ASSERT_EQ(cpu, ref) << "the CPU: " << describe(v, conn, tol, bg, VolumeShape{}, seed);
    for (const VolumeShape& s : shapes) {
        std::uint32_t n = 0;
        const std::vector<std::uint32_t> got = emulated(v, o, s, seed, &n);
        ASSERT_EQ(n, n_ref) << describe(v, conn, tol, bg, s, seed);
        ASSERT_EQ(got, ref) << describe(v, conn, tol, bg, s, seed);
    }
}

TEST(EmuVolumeTolerance, RandomVolumesMatchTheFloodFill) {
    struct Size {
        std::int64_t w, h, d;
    };
    const Size sizes[] = {{7, 5, 3}, {9, 4, 6}, {33, 2, 3}, {2, 3, 17}, {5, 9, 5}};
    std::uint32_t seed = 1;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8, PixelFormat::RGBA8})
        for (const Size& s : sizes)
            for (int conn : {6, 18, 26}) {
                const std::uint64_t unit = f == PixelFormat::Gray16 ? 97 : f == PixelFormat::U32 ? 100003 : 1;
                const std::uint32_t tol = std::uint32_t((1 + seed % 3) * unit);
                ++seed;
                const ChannelVolume v = wandering(s.w, s.h, s.d, f, unit, seed, seed % 4 == 0 ? 3 : 0);
                const VolumeShape& a = kTolShapes[seed % 6];
                const VolumeShape& b = kTolShapes[(seed + 3) % 6];
                expect_volume(v, conn, tol, seed % 2 == 0, {a, b}, seed);
                if (::testing::Test::HasFailure()) return;
            }
}

TEST(EmuVolumeTolerance, ManySchedulesOnTheDefaultTiles) {
    // The global unions of Border race; the public shapes of 6/18 and of 26.
    for (int conn : {6, 18, 26})
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const ChannelVolume v = wandering(37, 9, 10, PixelFormat::Gray8, 1, std::uint32_t(seed * 13));
            expect_volume(v, conn, 2, seed == 2, {cd::volume_shape_for(10, conn)}, seed);
            if (::testing::Test::HasFailure()) return;
        }
}

TEST(EmuVolumeTolerance, RampWhoseEndsDifferByFarMoreJoins) {
    // 0, 3, 6, ..., 255 along x, then y, then z (a snake through the volume): one region at
    // tolerance 3 under every connectivity, none at 2 (each voxel alone, but for neighbours of
    // equal value, which there are none of).
    ChannelVolume v{9, 4, 3, PixelFormat::Gray8, {}, {}, 0};
    v.ch.resize(std::size_t(v.w * v.h * v.d));
    std::uint64_t k = 0;
    for (std::int64_t z = 0; z < v.d; ++z)
        for (std::int64_t y = 0; y < v.h; ++y)
            for (std::int64_t x = 0; x < v.w; ++x) {
                // Boustrophedon in x and, slice by slice, in y: each step goes to a face neighbour.
                const std::int64_t sx = (y + z * v.h) % 2 ? v.w - 1 - x : x, sy = z % 2 ? v.h - 1 - y : y;
                v.ch[std::size_t((z * v.h + sy) * v.w + sx)] = std::min<std::uint64_t>(255, 3 * k++);
            }
    v.encode(0);
    for (int conn : {6, 18, 26})
        for (std::uint32_t tol : {2u, 3u}) expect_volume(v, conn, tol, false, {kTolShapes[0], kTolShapes[4]}, 5);
    std::uint32_t n = 0;
    (void)emulated(v, tol_options(v, 6, 3, false), kTolShapes[0], 1, &n);
    EXPECT_EQ(n, 1u);
}

TEST(EmuVolumeTolerance, EdgesOfTheRangeAndChannelsOnTheirOwn) {
    // 0 next to 255 joins at 255 only; an RGB voxel with one channel far apart never joins.
    ChannelVolume g{5, 3, 2, PixelFormat::Gray8, {}, {}, 0};
    for (std::int64_t i = 0; i < 30; ++i) g.ch.push_back((i + i / 5 + i / 15) % 2 ? 255 : 0);
    g.encode(1);
    for (int conn : {6, 26})
        for (std::uint32_t tol : {254u, 255u}) expect_volume(g, conn, tol, false, {kTolShapes[0], kTolShapes[2]}, 3);
    ChannelVolume c{4, 3, 2, PixelFormat::RGB8, {}, {}, 0};
    std::mt19937 rng(4);
    for (std::int64_t i = 0; i < 24; ++i) {
        const std::uint64_t far = rng() % 3;  // which channel jumps
        for (std::uint64_t ch = 0; ch < 3; ++ch) c.ch.push_back(ch == far && rng() % 2 ? 200 : 100 + rng() % 3);
    }
    c.encode(0);
    for (int conn : {6, 18, 26}) expect_volume(c, conn, 2, false, {kTolShapes[1], kTolShapes[3]}, 6);
}

TEST(EmuVolumeTolerance, BackgroundWithinTheToleranceJoinsNothing) {
    // Foreground 1 and 3 touch only through background 2 voxels (within 1 of both): apart.
    ChannelVolume v{6, 2, 2, PixelFormat::Gray8, {}, {}, 0};
    for (std::int64_t i = 0; i < 24; ++i) v.ch.push_back(i % 6 < 2 ? 1 : i % 6 < 4 ? 0 : 3);
    v.encode(0);
    for (int conn : {6, 18, 26}) {
        expect_volume(v, conn, 1, true, {kTolShapes[0], kTolShapes[2]}, 2);
        expect_volume(v, conn, 3, true, {kTolShapes[0]}, 2);  // 1 and 3 within 3 would join, but never touch
    }
}

TEST(EmuVolumeTolerance, Binary8IgnoresTheTolerance) {
    std::vector<std::uint8_t> px = {1, 0, 2, 0, 0, 0, 3, 0, 1, 0, 0, 1};
    const VolumeView v{px.data(), 3, 2, 2, 3, 6, PixelFormat::Binary8};
    Options o;
    o.connectivity = 6;
    o.tolerance = 9;
    std::vector<std::uint32_t> want(12), got(12);
    Options exact = o;
    exact.tolerance = 0;
    const std::uint32_t n = label_volume(v, want.data(), exact).count;
    const cclabel::detail::VolumeRequest r = cclabel::detail::make_volume_request(v, got.data(), o, true);
    EXPECT_FALSE(cd::volume_tolerance(r));
    EXPECT_EQ(emu::emu_label_volume(r, got.data(), kTolShapes[0], 1), n);
    EXPECT_EQ(got, want);
}

// The shortcuts that hold for equal values only, each turned on for the tolerance: the smallest
// volume where it goes wrong, and the random volumes above.

/// X (tol 3 from both) between L (its left) and N (above it), L and N 6 apart: one region (and a
/// far-off corner a, a region of its own). With covered_by_left X leaves N to L, which never joins
/// it: 3 regions. A 2 x 2 x 1 volume [a N / L X]; the second shape cuts the rows into tiles of one
/// (Border's skip).
ChannelVolume left_trap() {
    ChannelVolume v{2, 2, 1, PixelFormat::Gray8, {100, 6, 0, 3}, {}, 0};
    v.encode(0);
    return v;
}

/// X joins K (the voxel behind, first in cover order) and J (its left), J and K 6 apart: 2 regions
/// with the far-off A. With cover, K covers J and X skips it: 3. 2 x 1 x 2: slice 0 [A K], slice 1
/// [J X].
ChannelVolume cover_trap() {
    ChannelVolume v{2, 1, 2, PixelFormat::Gray8, {100, 6, 0, 3}, {}, 0};
    v.encode(0);
    return v;
}

template <bool Shortcuts>
std::uint32_t count_of(const ChannelVolume& v, int conn, bool cover, const VolumeShape& shape) {
    VolumeShape s = shape;
    s.switches.cover = cover;
    std::uint32_t n = 0;
    (void)emulated<Shortcuts>(v, tol_options(v, conn, 3, false), s, 1, &n);
    return n;
}

TEST(EmuVolumeTolerance, MutationTheShortcutsOfEqualValuesSplitRegions) {
    const VolumeShape in_tile{4, 2, 2, 32, 32, 1}, rows_apart{4, 1, 2, 32, 32, 1}, slices_apart{4, 2, 1, 32, 32, 1};
    for (int conn : {18, 26}) {
        // The tolerance programs: two regions each.
        for (const VolumeShape& s : {in_tile, rows_apart, slices_apart}) {
            EXPECT_EQ(count_of<false>(left_trap(), conn, false, s), 2u) << conn;
            EXPECT_EQ(count_of<false>(cover_trap(), conn, false, s), 2u) << conn;
        }
        // covered_by_left (cover off): in Local, and in Border across a row of tiles.
        EXPECT_EQ(count_of<true>(left_trap(), conn, false, in_tile), 3u) << conn;
        EXPECT_EQ(count_of<true>(left_trap(), conn, false, rows_apart), 3u) << conn;
        // cover with and without prelink: in Local, and in Border across slices of tiles.
        EXPECT_EQ(count_of<true>(cover_trap(), conn, true, in_tile), 3u) << conn;
        VolumeShape no_prelink = in_tile;
        no_prelink.switches.prelink = false;
        EXPECT_EQ(count_of<true>(cover_trap(), conn, true, no_prelink), 3u) << conn;
        EXPECT_EQ(count_of<true>(cover_trap(), conn, true, slices_apart), 3u) << conn;
    }
    // And on random volumes: each mutant gets some of them wrong.
    for (bool cover : {false, true}) {
        int wrong = 0;
        for (std::uint32_t seed = 1; seed <= 6; ++seed) {
            const ChannelVolume v = wandering(7, 5, 4, PixelFormat::Gray8, 1, seed);
            std::uint32_t n_ref = 0, n = 0;
            const std::vector<std::uint32_t> ref = reference(v, 26, 2, false, &n_ref);
            VolumeShape s = kTolShapes[0];
            s.switches.cover = cover;
            wrong += emulated<true>(v, tol_options(v, 26, 2, false), s, seed, &n) != ref;
        }
        EXPECT_GT(wrong, 0) << "cover " << cover;
    }
}

// Typed pictures with a tolerance: volumes of one slice with CloseValues.

/// A typed picture: its values as doubles (the reference's view) and its bytes.
struct TypedImage {
    std::int64_t w = 0, h = 0;
    PixelFormat f = PixelFormat::F32;
    std::vector<double> values;  ///< F16/F32/F64: the value; integers: exact up to 2^53
    std::vector<std::int64_t> ints;  ///< I64: the exact values
    std::vector<std::uint64_t> uints;  ///< U64: the exact values
    std::vector<std::uint8_t> bytes;
    std::int64_t stride = 0;
};

/// binary16 bits of @p v, which must be exactly a half (the tests use small multiples of 1/4).
std::uint16_t half_bits(double v) {
    if (v != v) return 0x7E00;
    if (std::isinf(v)) return v > 0 ? 0x7C00 : 0xFC00;
    if (v == 0) return std::signbit(v) ? 0x8000 : 0;
    const std::uint16_t sign = v < 0 ? 0x8000 : 0;
    double a = std::fabs(v);
    int e = 0;
    const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    const int exponent = e - 1 + 15;
    const auto fraction = std::uint16_t(std::lround((m * 2 - 1) * 1024));
    return std::uint16_t(sign | (exponent << 10) | fraction);
}

void encode_typed(TypedImage& t, std::int64_t pad) {
    const int bpp = bytes_per_pixel(t.f);
    t.stride = t.w * bpp + pad;
    t.bytes.assign(std::size_t(t.stride * t.h + 1), 0xCD);
    for (std::int64_t y = 0; y < t.h; ++y)
        for (std::int64_t x = 0; x < t.w; ++x) {
            const std::size_t i = std::size_t(y * t.w + x);
            std::uint8_t* p = t.bytes.data() + 1 + y * t.stride + x * bpp;  // +1: unaligned on purpose
            const double v = t.values[i];
            switch (t.f) {
                case PixelFormat::I8: { const auto q = std::int8_t(v); std::memcpy(p, &q, 1); break; }
                case PixelFormat::I16: { const auto q = std::int16_t(v); std::memcpy(p, &q, 2); break; }
                case PixelFormat::I32: { const auto q = std::int32_t(v); std::memcpy(p, &q, 4); break; }
                case PixelFormat::I64: std::memcpy(p, &t.ints[i], 8); break;
                case PixelFormat::U64: std::memcpy(p, &t.uints[i], 8); break;
                case PixelFormat::F16: { const auto q = half_bits(v); std::memcpy(p, &q, 2); break; }
                case PixelFormat::F32: { const auto q = float(v); std::memcpy(p, &q, 4); break; }
                default: std::memcpy(p, &v, 8); break;
            }
        }
}

ImageView typed_view(const TypedImage& t) { return ImageView{t.bytes.data() + 1, t.w, t.h, t.stride, t.f}; }

/// The reference: |a - b| <= tol (integers exactly, floats by value), a NaN only with a NaN; the
/// background by value (NaN background: the NaNs), -0 equal to +0.
std::vector<std::uint32_t> typed_reference(const TypedImage& t, int conn, double tol, std::optional<double> bg,
                                           std::uint32_t* n) {
    const bool i64 = t.f == PixelFormat::I64, u64 = t.f == PixelFormat::U64;
    auto is_bg = [&](std::int64_t p) {
        if (!bg) return false;
        const double v = t.values[std::size_t(p)];
        if (i64) return double(t.ints[std::size_t(p)]) == *bg && t.ints[std::size_t(p)] == std::int64_t(*bg);
        if (u64) return t.uints[std::size_t(p)] == std::uint64_t(*bg);
        return (v != v && *bg != *bg) || v == *bg;
    };
    auto close = [&](std::int64_t p, std::int64_t q) {
        if (i64) {
            const __int128 d = __int128(t.ints[std::size_t(p)]) - __int128(t.ints[std::size_t(q)]);
            return (d < 0 ? -d : d) <= __int128(std::floor(tol));
        }
        if (u64) {
            const std::uint64_t a = t.uints[std::size_t(p)], b = t.uints[std::size_t(q)];
            return (a > b ? a - b : b - a) <= std::uint64_t(std::floor(tol));
        }
        const double a = t.values[std::size_t(p)], b = t.values[std::size_t(q)];
        if (a != a || b != b) return a != a && b != b;
        return std::fabs(a - b) <= tol;
    };
    return bfs_labels(t.w, t.h, conn, is_bg, close, n);
}

std::string typed_what(const TypedImage& t, int conn, double tol, const VolumeShape& s) {
    return std::string(format_name(t.f)) + " " + std::to_string(t.w) + "x" + std::to_string(t.h) + " conn " +
           std::to_string(conn) + " tol " + std::to_string(tol) + " tile " + std::to_string(s.tile_x) + "x" +
           std::to_string(s.tile_y);
}

void expect_typed(const TypedImage& t, int conn, double tol, std::optional<double> bg, std::uint64_t seed) {
    std::uint32_t n_ref = 0;
    const std::vector<std::uint32_t> ref = typed_reference(t, conn, tol, bg, &n_ref);
    Options o;
    o.connectivity = conn;
    o.tolerance_value = tol;
    o.threads = 1;
    o.backend = Backend::Cpu;
    if (bg) o.background_value = *bg;
    std::vector<std::uint32_t> cpu(ref.size());
    ASSERT_EQ(label(typed_view(t), cpu.data(), o).count, n_ref) << typed_what(t, conn, tol, VolumeShape{});
    ASSERT_EQ(cpu, ref) << "the CPU: " << typed_what(t, conn, tol, VolumeShape{});
    for (const VolumeShape& s : {cd::typed_picture_shape(), VolumeShape{4, 2, 1, 32, 32, 1}, VolumeShape{3, 3, 1, 32, 32, 1},
                                 VolumeShape{8, 1, 1, 32, 32, 1}}) {
        std::vector<std::uint32_t> got(ref.size() + 1, 0xC0FFEEu);
        const cclabel::detail::Request r = cclabel::detail::make_request(typed_view(t), got.data(), o, true);
        const cd::TypedPicture p = cd::typed_picture(r);
        const std::uint32_t n = emu::emu_label_volume(p.volume, got.data(), s, seed, &p);
        ASSERT_EQ(got.back(), 0xC0FFEEu) << typed_what(t, conn, tol, s);
        got.pop_back();
        ASSERT_EQ(n, n_ref) << typed_what(t, conn, tol, s);
        ASSERT_EQ(got, ref) << typed_what(t, conn, tol, s);
    }
}

/// Values that wander by steps of @p unit (chains), with jumps and the format's specials.
TypedImage typed_wandering(PixelFormat f, std::int64_t w, std::int64_t h, double unit, std::uint32_t seed) {
    TypedImage t{w, h, f, {}, {}, {}, {}, 0};
    std::mt19937 rng(seed);
    const bool is_float = f == PixelFormat::F16 || f == PixelFormat::F32 || f == PixelFormat::F64;
    // F16 holds quarters exactly below 512.
    const double lo = f == PixelFormat::I8 ? -128 : f == PixelFormat::U64 ? 0 : f == PixelFormat::F16 ? -500 : -100000;
    const double hi = f == PixelFormat::I8 ? 127 : f == PixelFormat::F16 ? 500 : 100000;
    for (std::int64_t p = 0; p < w * h; ++p) {
        const std::int64_t from = rng() % 2 && p >= w ? p - w : p - 1;
        double v = from >= 0 ? t.values[std::size_t(from)] : 0;
        if (v != v || std::isinf(v)) v = 0;
        v += double(int(rng() % 5) - 2) * unit;
        if (rng() % 29 == 0) v = lo + double(rng() % 1000) / 1000 * (hi - lo);
        v = std::clamp(v, lo, hi);
        if (!is_float) v = std::round(v);
        else v = std::round(v * 4) / 4;  // exact in every float format
        if (is_float && rng() % 23 == 0) {
            const int k = int(rng() % 4);
            v = k == 0 ? std::numeric_limits<double>::quiet_NaN()
                : k == 1 ? -0.0
                : k == 2 ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
        }
        t.values.push_back(v);
    }
    if (f == PixelFormat::I64)  // steps of 2^30: differences beyond what a float's 24 bits hold
        for (double v : t.values) t.ints.push_back(std::int64_t(v) * (std::int64_t(1) << 30));
    if (f == PixelFormat::U64)
        for (double v : t.values) t.uints.push_back((std::uint64_t(1) << 63) + std::uint64_t(v));  // above 2^63
    encode_typed(t, seed % 2 ? 3 : 0);
    return t;
}

TEST(EmuTypedTolerance, RandomPicturesMatchTheFloodFillAndTheCpu) {
    std::uint32_t seed = 1;
    for (PixelFormat f : {PixelFormat::I8, PixelFormat::I16, PixelFormat::I32, PixelFormat::I64, PixelFormat::U64,
                          PixelFormat::F16, PixelFormat::F32, PixelFormat::F64})
        for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{9, 7}, {33, 3}, {1, 17}, {40, 5}})
            for (int conn : {4, 8}) {
                const bool is_float = f == PixelFormat::F16 || f == PixelFormat::F32 || f == PixelFormat::F64;
                const TypedImage t = typed_wandering(f, w, h, is_float ? 0.75 : 1, ++seed);
                // Integers: 2.5 means 2 (the CPU compares the exact difference with it).
                const double tol = f == PixelFormat::I64 ? 2.5 * double(std::int64_t(1) << 30) : is_float ? 1.5 : 2.5;
                std::optional<double> bg;
                if (seed % 3 == 0) bg = 0.0;
                expect_typed(t, conn, tol, bg, seed);
                if (::testing::Test::HasFailure()) return;
            }
}

TEST(EmuTypedTolerance, NaNNegativeZeroInfinityAndNaNBackground) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (PixelFormat f : {PixelFormat::F16, PixelFormat::F32, PixelFormat::F64}) {
        TypedImage t{6, 3, f, {nan, nan, 1, -0.0, 0.0, inf, 2, nan, 1.5, inf, inf, -inf, nan, 3, 4.5, -inf, 0.25, -0.0},
                     {}, {}, {}, 0};
        encode_typed(t, 1);
        for (int conn : {4, 8}) {
            expect_typed(t, conn, 1.0, std::nullopt, 1);
            expect_typed(t, conn, 1.0, 0.0, 2);   // -0.0 is the background too
            expect_typed(t, conn, 1.0, nan, 3);   // the NaNs are background
            expect_typed(t, conn, 1e300, std::nullopt, 4);  // every finite value joins; inf - inf is NaN
        }
    }
}

TEST(EmuTypedTolerance, SixtyFourBitExtremesAndSignedEdges) {
    TypedImage i{4, 2, PixelFormat::I64, {}, {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                                           -1, 0, std::numeric_limits<std::int64_t>::min() + 2, 5, 3, 1},
                 {}, {}, 0};
    for (std::int64_t v : i.ints) i.values.push_back(double(v));
    encode_typed(i, 0);
    for (int conn : {4, 8}) expect_typed(i, conn, 2.0, std::nullopt, 1);
    TypedImage s{5, 2, PixelFormat::I8, {-128, -126, 127, 125, 0, -127, 1, 126, -1, 0}, {}, {}, {}, 0};
    encode_typed(s, 2);
    for (int conn : {4, 8})
        for (double tol : {1.0, 2.0, 254.0, 255.0}) expect_typed(s, conn, tol, std::nullopt, 2);
}

}  // namespace
}  // namespace cclabel::test
