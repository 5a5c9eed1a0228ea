#pragma once
// What Backend::Auto's measurements share (core/auto_rates.cpp for the CPU, src/cuda/host_rate.cpp
// for the GPU's host path): the probe pictures, squares of four values at random (8 × 8: a mix of
// short runs and joins between a drawing's long runs of paper and noise; 1 × 1: noise), deterministic
// so that every process measures the same work; what a picture's sampled rows hold (its break
// density: how much of it is run starts; with a background, how many of its runs are background);
// and the best-of-n timer.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/image_view.hpp"

namespace cclabel::detail {

/// Rows [@p y0, @p y1) of the probe picture (see probe_picture) into @p px, which holds the whole
/// picture, rows packed. A hash a block, and a block's first row copied to its other rows: building
/// the three probes a pixel at a time took longer on the H100 host than timing them (an 800 dpi
/// CLI run paid it at every start). Row ranges may be filled side by side.
/// @p seed varies the squares' values (a volume's probe gives each block of slices its own).
inline void fill_probe_rows(std::uint8_t* px, PixelFormat f, std::int64_t width, std::int64_t y0, std::int64_t y1,
                            int block = 8, std::uint64_t seed = 0) {
    int shift = 0;
    while (shift < 10 && (2 << shift) <= block) ++shift;
    const int bpp = bytes_per_pixel(f);
    const std::size_t row_bytes = std::size_t(width) * std::size_t(bpp);
    std::uint8_t value[4][8];
    for (int v = 0; v < 4; ++v)
        for (int c = 0; c < bpp && c < 8; ++c) value[v][c] = std::uint8_t(v * 60 + c);  // 8: the widest format
    for (std::int64_t y = y0; y < y1; ++y) {
        std::uint8_t* row = px + std::size_t(y) * row_bytes;
        if (y > y0 && ((y ^ (y - 1)) >> shift) == 0) {  // the block's row above is the same
            std::memcpy(row, row - row_bytes, row_bytes);
            continue;
        }
        const std::uint64_t hy = std::uint64_t(y >> shift) * 0xC2B2AE3D27D4EB4Full ^ seed;
        for (std::int64_t bx = 0; (bx << shift) < width; ++bx) {
            std::uint64_t h = std::uint64_t(bx) * 0x9E3779B97F4A7C15ull ^ hy;
            h ^= h >> 29;
            h *= 0xBF58476D1CE4E5B9ull;
            const std::uint8_t* v = value[(h >> 40) & 3];
            const std::int64_t x1 = std::min(width, (bx + 1) << shift);
            for (std::int64_t x = bx << shift; x < x1; ++x) std::memcpy(row + std::size_t(x) * std::size_t(bpp), v, std::size_t(bpp));
        }
    }
}

/// @p block × @p block squares (a power of two) of four values at random (block 1: every pixel on
/// its own, noise; 64: long runs, as a drawing's paper).
inline std::vector<std::uint8_t> probe_picture(PixelFormat f, std::int64_t width, std::int64_t height, int block = 8) {
    std::vector<std::uint8_t> px(std::size_t(width) * std::size_t(height) * std::size_t(bytes_per_pixel(f)));
    fill_probe_rows(px.data(), f, width, 0, height, block);
    return px;
}

/// What a picture's sampled rows hold (sample_picture).
struct PictureSample {
    /// The share of horizontally adjacent pixel pairs that differ (what starts a new run): the
    /// labeller's work grows with it (a drawing's paper is a few percent, noise one half), its size
    /// alone does not say it.
    double density = 0;
    double runs = 0;               ///< runs a pixel
    double background_runs = 0;    ///< runs of the background key a pixel (0 without a background)
    double background_pixels = 0;  ///< the share of pixels that are background
};

/// Samples evenly spaced rows of about @p budget pixels in all; @p background: the Request's
/// background key, if it has one.
inline PictureSample sample_picture(const ImageView& v, std::uint64_t budget, std::optional<std::uint32_t> background = {}) {
    PictureSample s;
    if (v.width < 2 || v.height < 1) return s;
    const std::int64_t stride = v.stride ? v.stride : v.row_bytes();
    const std::int64_t rows = std::clamp<std::int64_t>(std::int64_t(budget / std::uint64_t(v.width)), 1, v.height);
    const bool has_bg = background.has_value();
    const std::uint32_t bg = background.value_or(0);
    std::uint64_t breaks = 0, bg_runs = 0, bg_pixels = 0;
    dispatch_format(v.format, [&]<PixelFormat F>() {
        using T = PixelTraits<F>;
        for (std::int64_t i = 0; i < rows; ++i) {
            const std::int64_t y = (2 * i + 1) * v.height / (2 * rows);
            const std::uint8_t* row = static_cast<const std::uint8_t*>(v.data) + y * stride;
            std::uint32_t prev = T::key(row);
            const std::uint64_t first_bg = has_bg && prev == bg;
            bg_runs += first_bg;
            bg_pixels += first_bg;
            for (std::int64_t x = 1; x < v.width; ++x) {
                const std::uint32_t k = T::key(row + x * T::kBytes);
                const bool is_bg = has_bg && k == bg;
                breaks += k != prev;
                bg_runs += is_bg && k != prev;
                bg_pixels += is_bg;
                prev = k;
            }
        }
        return 0;
    });
    const double pixels = double(rows) * double(v.width);
    s.density = double(breaks) / (double(rows) * double(v.width - 1));
    s.runs = double(std::uint64_t(rows) + breaks) / pixels;
    s.background_runs = double(bg_runs) / pixels;
    s.background_pixels = double(bg_pixels) / pixels;
    return s;
}

/// sample_picture's break density alone.
inline double break_density(const ImageView& v, std::uint64_t budget) { return sample_picture(v, budget).density; }

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
