#pragma once
// Tolerance joining's test, shared by the picture labeller (tolerance_cpu.cpp) and the volume one
// (tolerance3d_cpu.cpp): two pixels of format F join when every channel differs by at most the
// tolerance, read from the bytes.
#include <cstdint>

#include "cclabel/detail/pixel_traits.hpp"

namespace cclabel::cpu {

/// Whether two pixels of format F differ by at most @p tol in every channel.
template <PixelFormat F>
bool close(const std::uint8_t* a, const std::uint8_t* b, std::uint32_t tol) {
    if constexpr (F == PixelFormat::RGB8 || F == PixelFormat::RGBA8 || F == PixelFormat::Gray8) {
        for (int c = 0; c < detail::PixelTraits<F>::kBytes; ++c)
            if (std::uint32_t(a[c] > b[c] ? a[c] - b[c] : b[c] - a[c]) > tol) return false;
        return true;
    } else {
        // Gray16 and U32: one channel, the key is the value.
        const std::uint32_t u = detail::PixelTraits<F>::key(a), v = detail::PixelTraits<F>::key(b);
        return (u > v ? u - v : v - u) <= tol;
    }
}

}  // namespace cclabel::cpu
