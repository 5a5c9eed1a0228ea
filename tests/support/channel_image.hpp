#pragma once
// Pictures given by their channel values, for the tolerance tests on the CPU (tests/cpp), in the
// GPU emulator (tests/emu) and on the GPU (tests/cuda): the values go to the reference
// (reference/tolerance_flood_fill.hpp) as they are, and to the library as the bytes of a format.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cclabel/cclabel.hpp"

namespace cclabel::test {

inline std::uint64_t channel_max(PixelFormat f) {
    return f == PixelFormat::Gray16 ? 0xFFFFu : f == PixelFormat::U32 ? 0xFFFFFFFFu : 0xFFu;
}

/// A picture given by its channel values, stored in format f with @p pad bytes after each row.
struct ChannelImage {
    std::int64_t width = 0, height = 0;
    PixelFormat format = PixelFormat::Gray8;
    std::vector<std::uint64_t> channels;  ///< per pixel, channels(format) values
    std::vector<std::uint8_t> bytes;
    std::int64_t stride = 0;

    ChannelImage(std::int64_t w, std::int64_t h, PixelFormat f, std::vector<std::uint64_t> ch, std::int64_t pad = 0)
        : width(w), height(h), format(f), channels(std::move(ch)) {
        const int bpp = bytes_per_pixel(f), nch = cclabel::channels(f);
        stride = w * bpp + pad;
        bytes.assign(std::size_t(stride * h + 1), 0xA5);
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                std::uint8_t* p = bytes.data() + y * stride + x * bpp;
                const std::uint64_t* c = channels.data() + (y * w + x) * nch;
                if (f == PixelFormat::Gray16) {
                    const auto v = std::uint16_t(c[0]);
                    std::memcpy(p, &v, 2);
                } else if (f == PixelFormat::U32) {
                    const auto v = std::uint32_t(c[0]);
                    std::memcpy(p, &v, 4);
                } else {
                    for (int k = 0; k < nch; ++k) p[k] = std::uint8_t(c[k]);
                }
            }
    }
    ImageView view() const { return ImageView{bytes.data(), width, height, stride, format}; }
};

/// Channel values spread over @p spread steps of @p step from one end of the range or the other,
/// so that a tolerance of a few steps joins some neighbours and not others, and differences reach
/// the whole range (0 next to the maximum).
inline std::vector<std::uint64_t> random_channels(std::int64_t n, int nch, std::uint64_t max, std::uint64_t step,
                                           std::uint64_t spread, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint64_t> v(std::size_t(n * nch));
    for (auto& c : v) {
        const std::uint64_t d = std::uniform_int_distribution<std::uint64_t>(0, spread)(rng) * step;
        c = rng() % 2 ? d : max - d;
    }
    return v;
}

}  // namespace cclabel::test
