#pragma once
// Typed pictures for the tests of the typed formats (I8, I16, I32, I64, U64, F16, F32, F64), on the
// CPU (tests/cpp/test_typed_formats.cpp) and the GPU (tests/cuda/test_typed_cuda.cpp): a palette of
// each type's awkward values, seeded pictures of them in blobs, and the reference labels, a flood
// fill on the typed values themselves (C++ ==, with NaN equal to NaN; F16 decoded to float), never
// on the library's keys.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "reference/bfs_labels.hpp"

namespace cclabel::test {

/// An F16 pixel as its bits (C++20 has no half type).
struct Half {
    std::uint16_t bits;
};

inline float half_to_float(std::uint16_t h) {
    const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
    const int e = (h >> 10) & 31, m = h & 1023;
    if (e == 0) return sign * std::ldexp(float(m), -24);
    if (e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
    return sign * std::ldexp(float(1024 + m), e - 25);
}

/// Equality of two pixel values as the typed formats define it.
template <typename T>
bool same(T a, T b) {
    if constexpr (std::is_same_v<T, Half>) return same(half_to_float(a.bits), half_to_float(b.bits));
    else if constexpr (std::is_floating_point_v<T>) return a == b || (std::isnan(a) && std::isnan(b));
    else return a == b;
}

template <typename T> constexpr PixelFormat kFormat = PixelFormat::Gray8;
template <> constexpr PixelFormat kFormat<std::int8_t> = PixelFormat::I8;
template <> constexpr PixelFormat kFormat<std::int16_t> = PixelFormat::I16;
template <> constexpr PixelFormat kFormat<std::int32_t> = PixelFormat::I32;
template <> constexpr PixelFormat kFormat<std::int64_t> = PixelFormat::I64;
template <> constexpr PixelFormat kFormat<std::uint64_t> = PixelFormat::U64;
template <> constexpr PixelFormat kFormat<Half> = PixelFormat::F16;
template <> constexpr PixelFormat kFormat<float> = PixelFormat::F32;
template <> constexpr PixelFormat kFormat<double> = PixelFormat::F64;

/// The reference on typed values: the tests' breadth-first search, joining neighbours whose
/// values are the same() and skipping those the same() as the background.
template <typename T>
std::vector<std::uint32_t> flood(const std::vector<T>& v, std::int64_t w, std::int64_t h, int conn,
                                 std::optional<T> bg, std::uint32_t* count) {
    return bfs_labels(
        w, h, conn, [&](std::int64_t i) { return bg && same(v[std::size_t(i)], *bg); },
        [&](std::int64_t p, std::int64_t q) { return same(v[std::size_t(p)], v[std::size_t(q)]); }, count);
}

/// Every value a palette of each type holds (extremes, negatives, look-alikes).
template <typename T>
std::vector<T> palette() {
    using L = std::numeric_limits<T>;
    if constexpr (std::is_same_v<T, Half>) {
        // +0, -0, quiet NaN, NaN with a payload, -NaN, 1.0, the smallest subnormal, +inf, -inf, max
        return {{0x0000}, {0x8000}, {0x7E00}, {0x7C01}, {0xFE00}, {0x3C00}, {0x0001}, {0x7C00}, {0xFC00}, {0x7BFF}};
    } else if constexpr (std::is_floating_point_v<T>) {
        using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        const T payload_nan = std::bit_cast<T>(U(std::bit_cast<U>(L::quiet_NaN()) | 5));
        const T neg_nan = std::bit_cast<T>(U(std::bit_cast<U>(L::quiet_NaN()) | (U(1) << (8 * sizeof(T) - 1))));
        // 1.0 and 2.0 (and 0) share their low 32 bits as doubles
        return {T(0), T(-0.0), L::quiet_NaN(), payload_nan, neg_nan, T(1), T(2), T(-1),
                L::denorm_min(), L::infinity(), -L::infinity(), L::max(), L::lowest()};
    } else if constexpr (sizeof(T) == 8) {
        const T k32 = T(std::uint64_t(1) << 32);
        // 0, 2^32 and 2^33 share their low 32 bits; so do -1 and 2^32 - 1 + 2^32 ...
        return {L::min(), L::max(), T(0), T(1), k32, T(k32 * 2), T(k32 - 1), T(k32 * 2 - 1), T(-1), T(std::uint64_t(1) << 63)};
    } else {
        return {L::min(), L::max(), T(0), T(-1), T(1), T(L::max() / 2 + 1)};
    }
}

/// A picture of palette values in blobs (so that regions span several pixels), seeded.
template <typename T>
std::vector<T> picture(const std::vector<T>& pal, std::int64_t w, std::int64_t h, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<T> v(std::size_t(w * h));
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            const std::size_t i = std::size_t(y * w + x);
            const std::uint32_t r = rng() % 4;
            if (r == 0 && x > 0) v[i] = v[i - 1];
            else if (r == 1 && y > 0) v[i] = v[i - std::size_t(w)];
            else v[i] = pal[rng() % pal.size()];
        }
    return v;
}

template <typename T>
ImageView view_of(const std::vector<T>& v, std::int64_t w, std::int64_t h) {
    return make_view(v.data(), w, h, kFormat<T>);
}

template <typename T>
Scalar scalar_of(T v) {
    if constexpr (std::is_same_v<T, Half>) return Scalar(double(half_to_float(v.bits)));
    else return Scalar(v);
}

}  // namespace cclabel::test
