#pragma once
// Tolerance joining on the GPU (Options::tolerance): two neighbours join when every channel of
// their keys differs by at most the tolerance, as on the CPU (src/cpu/tolerance_cpu.cpp compares
// the same channels from the bytes). The keys are PixelTraits' packing, so the channels are read
// back out of them: a byte each for Gray8, RGB8 and RGBA8, the whole key for Gray16 and U32.
// Binary8 has one foreground value, which a tolerance cannot widen.
#include <cstdint>

#include "cclabel/detail/hd.hpp"
#include "cclabel/image_view.hpp"

namespace cclabel::cuda::detail {

template <PixelFormat F>
CCL_HD bool keys_close(std::uint32_t a, std::uint32_t b, std::uint32_t tol) {
    if constexpr (F == PixelFormat::Binary8) {
        return a == b;
    } else if constexpr (F == PixelFormat::Gray8 || F == PixelFormat::RGB8 || F == PixelFormat::RGBA8) {
        for (int c = 0; c < 4; ++c) {  // the unused high bytes of Gray8 and RGB8 keys are 0 in both
            const std::uint32_t u = (a >> (8 * c)) & 0xFFu, v = (b >> (8 * c)) & 0xFFu;
            if ((u > v ? u - v : v - u) > tol) return false;
        }
        return true;
    } else {
        return (a > b ? a - b : b - a) <= tol;
    }
}

}  // namespace cclabel::cuda::detail
