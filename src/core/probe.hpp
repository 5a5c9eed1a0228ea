#pragma once
// What Backend::Auto's measurements share (core/auto_rates.cpp for the CPU, src/cuda/host_rate.cpp
// for the GPU's host path): the probe pictures, squares of four values at random (8 × 8: a mix of
// short runs and joins between a drawing's long runs of paper and noise; 1 × 1: noise), deterministic
// so that every process measures the same work; a picture's break density (how much of it is run
// starts); and the best-of-n timer.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/image_view.hpp"

namespace cclabel::detail {

/// @p block × @p block squares (a power of two) of four values at random (block 1: every pixel on
/// its own, noise; 64: long runs, as a drawing's paper).
inline std::vector<std::uint8_t> probe_picture(PixelFormat f, std::int64_t width, std::int64_t height, int block = 8) {
    int shift = 0;
    while (shift < 10 && (2 << shift) <= block) ++shift;
    const int bpp = bytes_per_pixel(f);
    std::vector<std::uint8_t> px(std::size_t(width) * std::size_t(height) * std::size_t(bpp));
    for (std::int64_t y = 0; y < height; ++y)
        for (std::int64_t x = 0; x < width; ++x) {
            std::uint64_t h = std::uint64_t(x >> shift) * 0x9E3779B97F4A7C15ull ^ std::uint64_t(y >> shift) * 0xC2B2AE3D27D4EB4Full;
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ull;
            const std::uint8_t v = std::uint8_t((h >> 40) & 3);
            std::uint8_t* p = px.data() + (std::size_t(y) * std::size_t(width) + std::size_t(x)) * std::size_t(bpp);
            for (int c = 0; c < bpp; ++c) p[c] = std::uint8_t(v * 60 + c);
        }
    return px;
}

/// The share of horizontally adjacent pixel pairs that differ (what starts a new run), over evenly
/// spaced rows of about @p budget pixels in all: the labeller's work grows with it (a drawing's
/// paper is a few percent, noise one half), its size alone does not say it.
inline double break_density(const ImageView& v, std::uint64_t budget) {
    if (v.width < 2 || v.height < 1) return 0;
    const std::int64_t stride = v.stride ? v.stride : v.row_bytes();
    const std::int64_t rows = std::clamp<std::int64_t>(std::int64_t(budget / std::uint64_t(v.width)), 1, v.height);
    std::uint64_t breaks = 0, pairs = 0;
    dispatch_format(v.format, [&]<PixelFormat F>() {
        using T = PixelTraits<F>;
        for (std::int64_t i = 0; i < rows; ++i) {
            const std::int64_t y = (2 * i + 1) * v.height / (2 * rows);
            const std::uint8_t* row = static_cast<const std::uint8_t*>(v.data) + y * stride;
            std::uint32_t prev = T::key(row);
            for (std::int64_t x = 1; x < v.width; ++x) {
                const std::uint32_t k = T::key(row + x * T::kBytes);
                breaks += k != prev;
                prev = k;
            }
            pairs += std::uint64_t(v.width - 1);
        }
        return 0;
    });
    return pairs ? double(breaks) / double(pairs) : 0;
}

/// The shortest of @p runs calls of @p fn, in seconds (the least disturbed by other work).
template <typename Fn>
double best_seconds(int runs, Fn&& fn) {
    double best = 1e30;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

}  // namespace cclabel::detail
