#pragma once
// What Backend::Auto's measurements share (core/auto_rates.cpp for the CPU, src/cuda/host_rate.cpp
// for the GPU's host path): the probe picture, 8 × 8 blocks of four values at random, a mix of short
// runs and joins between a drawing's long runs of paper and noise, deterministic so that every
// process measures the same work; and the best-of-n timer.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"

namespace cclabel::detail {

inline std::vector<std::uint8_t> probe_picture(PixelFormat f, std::int64_t width, std::int64_t height) {
    const int bpp = bytes_per_pixel(f);
    std::vector<std::uint8_t> px(std::size_t(width) * std::size_t(height) * std::size_t(bpp));
    for (std::int64_t y = 0; y < height; ++y)
        for (std::int64_t x = 0; x < width; ++x) {
            std::uint64_t h = std::uint64_t(x >> 3) * 0x9E3779B97F4A7C15ull ^ std::uint64_t(y >> 3) * 0xC2B2AE3D27D4EB4Full;
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ull;
            const std::uint8_t v = std::uint8_t((h >> 40) & 3);
            std::uint8_t* p = px.data() + (std::size_t(y) * std::size_t(width) + std::size_t(x)) * std::size_t(bpp);
            for (int c = 0; c < bpp; ++c) p[c] = std::uint8_t(v * 60 + c);
        }
    return px;
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
