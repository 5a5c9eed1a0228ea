#pragma once
// Typed volumes (I8 to F64) for the tolerance tests of the CPU, the emulator and the GPU: values
// the reference reads exactly (integers in 128 bits, floats as doubles), their bytes at an odd
// address with padded rows and slices, and the tolerance flood fill over them, whose compare is
// its own (the exact difference, not the library's double), so that it can disagree. Tests only.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/volume.hpp"
#include "reference/volume_flood_fill.hpp"

namespace cclabel::test::typed_volume {

inline bool is_float(PixelFormat f) { return f == PixelFormat::F16 || f == PixelFormat::F32 || f == PixelFormat::F64; }

/// binary16 bits of @p v, which must be exactly a half (the tests use small multiples of 1/4).
inline std::uint16_t half_bits(double v) {
    if (v != v) return 0x7E00;
    if (std::isinf(v)) return v > 0 ? 0x7C00 : 0xFC00;
    if (v == 0) return std::signbit(v) ? 0x8000 : 0;
    const std::uint16_t sign = v < 0 ? 0x8000 : 0;
    int e = 0;
    const double m = std::frexp(std::fabs(v), &e);  // |v| = m * 2^e, m in [0.5, 1)
    const auto fraction = std::uint16_t(std::lround((m * 2 - 1) * 1024));
    return std::uint16_t(sign | ((e - 1 + 15) << 10) | fraction);
}

/// A typed volume: the reference's view of its voxels (integers exact in 128 bits, floats as
/// doubles) and its bytes, rows padded by pad_row bytes, slices by pad_slice, one byte in (odd).
struct TypedVolume {
    std::int64_t w = 0, h = 0, d = 0;
    PixelFormat f = PixelFormat::F32;
    std::vector<__int128> ints;
    std::vector<double> reals;
    std::vector<std::uint8_t> bytes;
    std::int64_t row_stride = 0, slice_stride = 0;

    std::int64_t voxels() const { return w * h * d; }
    VolumeView view() const { return VolumeView{bytes.data() + 1, w, h, d, row_stride, slice_stride, f}; }
};

inline void encode(TypedVolume& t, std::int64_t pad_row, std::int64_t pad_slice) {
    const int bpp = bytes_per_pixel(t.f);
    t.row_stride = t.w * bpp + pad_row;
    t.slice_stride = t.row_stride * t.h + pad_slice;
    t.bytes.assign(std::size_t(t.slice_stride * t.d + 1), 0xCD);
    for (std::int64_t z = 0; z < t.d; ++z)
        for (std::int64_t y = 0; y < t.h; ++y)
            for (std::int64_t x = 0; x < t.w; ++x) {
                const std::size_t i = std::size_t((z * t.h + y) * t.w + x);
                std::uint8_t* p = t.bytes.data() + 1 + z * t.slice_stride + y * t.row_stride + x * bpp;
                switch (t.f) {
                    case PixelFormat::I8: { const auto q = std::int8_t(t.ints[i]); std::memcpy(p, &q, 1); break; }
                    case PixelFormat::I16: { const auto q = std::int16_t(t.ints[i]); std::memcpy(p, &q, 2); break; }
                    case PixelFormat::I32: { const auto q = std::int32_t(t.ints[i]); std::memcpy(p, &q, 4); break; }
                    case PixelFormat::I64: { const auto q = std::int64_t(t.ints[i]); std::memcpy(p, &q, 8); break; }
                    case PixelFormat::U64: { const auto q = std::uint64_t(t.ints[i]); std::memcpy(p, &q, 8); break; }
                    case PixelFormat::F16: { const auto q = half_bits(t.reals[i]); std::memcpy(p, &q, 2); break; }
                    case PixelFormat::F32: { const auto q = float(t.reals[i]); std::memcpy(p, &q, 4); break; }
                    default: std::memcpy(p, &t.reals[i], 8); break;
                }
            }
}

/// The flood fill's labels: joins within @p tol (integers: the exact difference against floor(tol)).
inline std::vector<std::uint32_t> reference(const TypedVolume& t, int conn, double tol, std::optional<Scalar> bg,
                                     std::uint32_t* n) {
    const bool ints = !is_float(t.f);
    auto is_bg = [&](std::int64_t p) {
        if (!bg) return false;
        if (ints)
            return t.ints[std::size_t(p)] == (bg->kind == Scalar::Kind::Signed     ? __int128(bg->i)
                                              : bg->kind == Scalar::Kind::Unsigned ? __int128(bg->u)
                                                                                    : __int128(bg->f));
        const double v = t.reals[std::size_t(p)];
        return (v != v && bg->f != bg->f) || v == bg->f;
    };
    auto close = [&](std::int64_t p, std::int64_t q) {
        if (ints) {
            const __int128 diff = t.ints[std::size_t(p)] - t.ints[std::size_t(q)];
            return (diff < 0 ? -diff : diff) <= __int128(std::floor(tol));
        }
        const double a = t.reals[std::size_t(p)], b = t.reals[std::size_t(q)];
        if (a != a || b != b) return a != a && b != b;
        return std::fabs(a - b) <= tol;
    };
    return volume_bfs(t.w, t.h, t.d, conn, is_bg, close, n);
}

/// Values that wander by steps of @p unit from the voxel before, above or in front, with jumps,
/// and (floats) NaN, -0 and infinities. I64 steps are multiples of 2^30 (beyond a float's 24 bits),
/// U64 values lie above 2^63.
inline TypedVolume wandering(PixelFormat f, std::int64_t w, std::int64_t h, std::int64_t d, std::uint32_t seed) {
    TypedVolume t{w, h, d, f, {}, {}, {}, 0, 0};
    std::mt19937 rng(seed);
    const double unit = is_float(f) ? 0.75 : 1;
    const double lo = f == PixelFormat::I8 ? -128 : f == PixelFormat::F16 ? -500 : -100000;
    const double hi = f == PixelFormat::I8 ? 127 : f == PixelFormat::F16 ? 500 : 100000;
    std::vector<double> v;
    for (std::int64_t p = 0; p < t.voxels(); ++p) {
        const std::uint32_t pick = rng() % 3;
        const std::int64_t from = pick == 1 && p >= w * h ? p - w * h : pick == 2 && p >= w ? p - w : p - 1;
        double x = from >= 0 ? v[std::size_t(from)] : 0;
        if (x != x || std::isinf(x)) x = 0;
        x += double(int(rng() % 5) - 2) * unit;
        if (rng() % 31 == 0) x = lo + double(rng() % 1000) / 1000 * (hi - lo);
        x = std::clamp(x, lo, hi);
        x = is_float(f) ? std::round(x * 4) / 4 : std::round(x);  // quarters: exact in every float format
        if (is_float(f) && rng() % 23 == 0) {
            const int k = int(rng() % 4);
            x = k == 0 ? std::numeric_limits<double>::quiet_NaN() : k == 1 ? -0.0 : (k == 2 ? 1 : -1) * HUGE_VAL;
        }
        v.push_back(x);
    }
    for (double x : v) {
        if (is_float(f)) t.reals.push_back(x);
        else if (f == PixelFormat::I64) t.ints.push_back(__int128(std::int64_t(x) * (std::int64_t(1) << 30)));
        else if (f == PixelFormat::U64) t.ints.push_back(__int128((std::uint64_t(1) << 63) + std::uint64_t(x + 100000)));
        else t.ints.push_back(__int128(std::int64_t(x)));
    }
    return t;
}

}  // namespace cclabel::test::typed_volume
