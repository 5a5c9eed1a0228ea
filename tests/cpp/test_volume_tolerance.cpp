// label_volume with a tolerance against the tolerance flood fill in 3-D: random volumes of values
// that wander by small steps (chains of close voxels that cross slices and the slabs the threads
// take), every format that takes a tolerance, 6/18/26 neighbours, background on and off, several
// thread counts and paddings; a ramp whose ends differ by far more than the tolerance; the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/volume.hpp"
#include "reference/volume_flood_fill.hpp"

namespace cclabel::test {
namespace {

int channels_of(PixelFormat f) { return f == PixelFormat::RGB8 ? 3 : f == PixelFormat::RGBA8 ? 4 : 1; }
std::uint64_t max_of(PixelFormat f) {
    return f == PixelFormat::Gray16 ? 0xFFFF : f == PixelFormat::U32 ? 0xFFFFFFFFull : 0xFF;
}
int bytes_of(PixelFormat f) { return f == PixelFormat::Gray16 ? 2 : f == PixelFormat::U32 ? 4 : channels_of(f); }

/// Channel values per voxel, each a small step from the voxel before or above it, with jumps.
std::vector<std::uint64_t> wandering(std::int64_t n, std::int64_t w, int nch, std::uint64_t max, std::uint64_t unit,
                                     std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint64_t> v(std::size_t(n * nch));
    for (std::int64_t p = 0; p < n; ++p)
        for (int c = 0; c < nch; ++c) {
            const std::size_t i = std::size_t(p * nch + c);
            const std::int64_t from = rng() % 2 && p >= w ? p - w : p - 1;
            const std::int64_t base = from >= 0 ? std::int64_t(v[std::size_t(from * nch + c)]) : 0;
            std::int64_t nv = base + (std::int64_t(rng() % 5) - 2) * std::int64_t(unit);
            if (rng() % 40 == 0) nv = std::int64_t(rng() % (max + 1));
            v[i] = std::uint64_t(std::clamp<std::int64_t>(nv, 0, std::int64_t(max)));
        }
    return v;
}

/// The volume's bytes: rows of w voxels padded by @p pad bytes, slices back to back.
std::vector<std::uint8_t> encode(const std::vector<std::uint64_t>& ch, std::int64_t w, std::int64_t rows,
                                 PixelFormat f, std::int64_t pad) {
    const int nch = channels_of(f), bpp = bytes_of(f);
    const std::int64_t rs = w * bpp + pad;
    std::vector<std::uint8_t> out(std::size_t(rs * rows), 0xAB);
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t x = 0; x < w; ++x) {
            std::uint8_t* p = out.data() + r * rs + x * bpp;
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
    return out;
}

void expect_reference(std::int64_t w, std::int64_t h, std::int64_t d, PixelFormat f, int conn, std::uint32_t tol,
                      bool bg, int threads, std::int64_t pad, std::uint32_t seed) {
    const int nch = channels_of(f);
    const std::uint64_t unit = f == PixelFormat::Gray16 ? 97 : f == PixelFormat::U32 ? 100003 : 1;
    const std::vector<std::uint64_t> ch = wandering(w * h * d, w, nch, max_of(f), unit, seed);
    const std::vector<std::uint8_t> bytes = encode(ch, w, h * d, f, pad);
    const auto is_bg = [&](std::int64_t p) {
        if (!bg) return false;
        for (int c = 0; c < nch; ++c)
            if (ch[std::size_t(p * nch + c)] != 0) return false;
        return true;
    };
    const auto close = [&](std::int64_t p, std::int64_t q) {
        for (int c = 0; c < nch; ++c) {
            const std::uint64_t a = ch[std::size_t(p * nch + c)], b = ch[std::size_t(q * nch + c)];
            if ((a > b ? a - b : b - a) > std::uint64_t(tol) * unit) return false;
        }
        return true;
    };
    std::uint32_t n_ref = 0;
    const std::vector<std::uint32_t> ref = volume_bfs(w, h, d, conn, is_bg, close, &n_ref);
    Options o;
    o.connectivity = conn;
    o.tolerance = std::uint32_t(tol * unit);
    o.threads = threads;
    o.backend = Backend::Cpu;  // Auto may take the GPU (tests/cpp/test_tolerance_backends.cpp)
    if (bg) o.background = std::vector<std::uint64_t>(std::size_t(nch), 0);
    const std::int64_t rs = w * bytes_of(f) + pad;
    const VolumeView v{bytes.data(), w, h, d, rs, rs * h, f};
    std::vector<std::uint32_t> got(ref.size() + 1, 0xDEADBEEFu);
    const LabelResult r = label_volume(v, got.data(), o);
    const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h) + "x" +
                             std::to_string(d) + " conn " + std::to_string(conn) + " tol " + std::to_string(tol) +
                             (bg ? " bg" : "") + " threads " + std::to_string(threads) + " seed " + std::to_string(seed);
    ASSERT_EQ(got.back(), 0xDEADBEEFu) << what << ": wrote past the labels";
    got.pop_back();
    EXPECT_EQ(r.backend, Backend::Cpu) << what;
    ASSERT_EQ(r.count, n_ref) << what;
    ASSERT_EQ(got, ref) << what;
}

TEST(VolumeTolerance, RandomVolumesMatchTheFloodFill) {
    struct Shape {
        std::int64_t w, h, d;
    };
    const Shape shapes[] = {{1, 1, 1}, {1, 1, 13}, {13, 1, 1}, {7, 5, 6}, {17, 9, 11}, {33, 4, 9}};
    std::uint32_t seed = 1;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8, PixelFormat::RGBA8})
        for (const Shape& s : shapes)
            for (int conn : {6, 18, 26})
                for (std::uint32_t tol : {1u, 2u})
                    for (bool bg : {false, true}) {
                        expect_reference(s.w, s.h, s.d, f, conn, tol, bg, 1 + int(seed % 4), seed % 3 ? 0 : 3, seed);
                        ++seed;
                        if (::testing::Test::HasFailure()) return;
                    }
}

TEST(VolumeTolerance, SameLabelsOnEveryThreadCount) {
    // Deep enough that every slab holds several slices and regions cross every slab seam.
    for (int conn : {6, 26})
        for (int threads : {1, 2, 3, 5, 8, 16}) {
            expect_reference(23, 19, 37, PixelFormat::Gray8, conn, 1, false, threads, 0, 77);
            if (::testing::Test::HasFailure()) return;
        }
}

TEST(VolumeTolerance, ChainWhoseEndsDifferByMoreJoins) {
    // A ramp 0, 3, ..., 255 down the slices of a 2 x 2 column: one region at tolerance 3, one a
    // slice at 2; along the diagonal of a cube on a far-off background only 26-connectivity joins it.
    std::vector<std::uint8_t> ramp;
    for (int v = 0; v <= 255; v += 3)
        for (int i = 0; i < 4; ++i) ramp.push_back(std::uint8_t(v));
    const std::int64_t d = std::int64_t(ramp.size() / 4);
    const VolumeView col{ramp.data(), 2, 2, d, 2, 4, PixelFormat::Gray8};
    std::vector<std::uint32_t> out(ramp.size());
    EXPECT_EQ(label_volume(col, out.data(), Options{.connectivity = 6, .tolerance = 3}).count, 1u);
    EXPECT_EQ(label_volume(col, out.data(), Options{.connectivity = 6, .tolerance = 2}).count, std::uint32_t(d));
    const std::int64_t n = 12;
    std::vector<std::uint8_t> cube(std::size_t(n * n * n), 200);
    for (std::int64_t i = 0; i < n; ++i) cube[std::size_t((i * n + i) * n + i)] = std::uint8_t(i * 5);
    const VolumeView cv{cube.data(), n, n, n, n, n * n, PixelFormat::Gray8};
    std::vector<std::uint32_t> labels(cube.size());
    const Options o26{.connectivity = 26, .background = std::vector<std::uint64_t>{200}, .tolerance = 5};
    EXPECT_EQ(label_volume(cv, labels.data(), o26).count, 1u);
    Options o18 = o26;
    o18.connectivity = 18;
    EXPECT_EQ(label_volume(cv, labels.data(), o18).count, std::uint32_t(n));
}

TEST(VolumeTolerance, BadTolerancesAndPathsThatJoinExactValuesOnlyAreErrors) {
    std::vector<std::uint8_t> px(27, 1);
    std::vector<std::uint32_t> out(27);
    const VolumeView v{px.data(), 3, 3, 3, 3, 9, PixelFormat::Gray8};
    auto expect_error = [&](const Options& o, const std::string& part) {
        try {
            label_volume(v, out.data(), o);
            ADD_FAILURE() << "accepted: " << part;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    expect_error(Options{.connectivity = 26, .tolerance = 256}, "tolerance 256 is out of range for gray8");
    if (!cuda_available())  // the GPU takes a tolerance (tests/cuda/test_volume_cuda.cpp); without one it says why
        expect_error(Options{.connectivity = 26, .backend = Backend::Cuda, .tolerance = 2}, "backend cuda");
    // Typed volumes take it as a number of their values (tests/cpp/test_volume_tolerance_typed.cpp).
    std::vector<std::int16_t> typed(27, 1);
    typed[13] = 4;
    const VolumeView tv{typed.data(), 3, 3, 3, 6, 18, PixelFormat::I16};
    EXPECT_EQ(label_volume(tv, out.data(), Options{.connectivity = 26, .backend = Backend::Cpu, .tolerance = 2}).count, 2u);
    EXPECT_EQ(label_volume(tv, out.data(), Options{.connectivity = 26, .backend = Backend::Cpu, .tolerance = 3}).count, 1u);
    // The statistics and the certificate of volumes take exact labels only.
    EXPECT_THROW(regions_volume(v, out.data(), Options{.connectivity = 26, .tolerance = 2}), Error);
}

}  // namespace
}  // namespace cclabel::test
