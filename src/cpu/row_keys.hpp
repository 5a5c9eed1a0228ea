#pragma once
// One row of equality keys. The CPU labeller compares each pixel with its left neighbour and with
// the row above; decoding a row once into keys keeps those comparisons to one 32-bit compare each
// whatever the format (a row buffer, not a packed copy of the picture).
#include <cstdint>
#include <cstring>

#include "cclabel/detail/pixel_traits.hpp"
#include "cpu/simd.hpp"

namespace cclabel::cpu {

template <PixelFormat F>
inline void load_row_keys(const std::uint8_t* __restrict row, std::uint32_t width, std::uint32_t* __restrict keys) {
    using T = detail::PixelTraits<F>;
    if constexpr (F == PixelFormat::RGB8) {
        simd::rgb8_keys(row, width, keys);
    } else {
        for (std::uint32_t x = 0; x < width; ++x) keys[x] = T::key(row + std::size_t(x) * T::kBytes);
    }
}

}  // namespace cclabel::cpu
