#pragma once
// The per-pixel programs that turn typed pictures (I8 to F64) into equality keys on the device,
// written once for the kernels of src/cuda/device_keys.cu and for the CPU tests of
// tests/cpp/test_key_bodies.cpp. The host's key maps (src/core/format_keys.hpp) define the keys;
// the device makes the same choices without looking at the data first (no host synchronisation):
//   F16, F32       the canonical bits (-0 -> +0, every NaN -> one NaN), 2 or 4 bytes a pixel;
//   I64, U64, F64  the "order" value (I64 sign flipped, F64 canonical) of each pixel, sorted and
//                  made unique (CUB), then every pixel's key is the rank of its order value among
//                  the distinct ones (a binary search). With a background value the background's
//                  key is 0 and every other value's rank + 1, so the labeller's background key is
//                  0 whatever the data; a background absent from the picture makes nothing
//                  background. At most 2^32 - 1 pixels share one map, so rank + 1 < 2^32.
// A stack of pictures (one picture, or a batch of equal-sized ones) is read as one raster of
// pixels: pixel i is image i / (w·h), row (i mod w·h) / w, column i mod w.
#include <cstdint>
#include <cstring>

#include "cclabel/detail/hd.hpp"
#include "cclabel/image_view.hpp"
#include "core/format_value.hpp"

namespace cclabel::cuda::detail::keys {

/// Equal-sized pictures in memory, any alignment and strides (bytes).
struct Stack {
    const std::uint8_t* data = nullptr;
    std::uint64_t width = 0;         ///< pixels a row (≥ 1 when there are pixels)
    std::uint64_t image_pixels = 0;  ///< width × height (≥ 1 when there are pixels)
    std::int64_t stride = 0;         ///< bytes between rows
    std::int64_t batch_stride = 0;   ///< bytes between images
    std::uint32_t bpp = 1;           ///< bytes a pixel: 1, 2, 4 or 8
};

/// The first byte of pixel @p i of the stack (raster order over the images).
CCL_HD const std::uint8_t* pixel_at(const Stack& s, std::uint64_t i) {
    const std::uint64_t b = i / s.image_pixels, r = i - b * s.image_pixels;
    const std::uint64_t y = r / s.width, x = r - y * s.width;
    return s.data + std::int64_t(b) * s.batch_stride + std::int64_t(y) * s.stride + std::int64_t(x * s.bpp);
}

/// The bits of the @p bpp-byte pixel at @p p (little-endian, as the host and the GPU store it),
/// zero-extended; an unaligned pixel is read a byte at a time.
CCL_HD std::uint64_t load_bits(const std::uint8_t* p, std::uint32_t bpp) {
    if (reinterpret_cast<std::uintptr_t>(p) % bpp == 0) {
        switch (bpp) {
            case 2: return *reinterpret_cast<const std::uint16_t*>(p);
            case 4: return *reinterpret_cast<const std::uint32_t*>(p);
            case 8: return *reinterpret_cast<const std::uint64_t*>(p);
            default: return p[0];
        }
    }
    std::uint64_t v = 0;
    for (std::uint32_t k = 0; k < bpp; ++k) v |= std::uint64_t(p[k]) << (8 * k);
    return v;
}

/// The value bits a typed format is compared and reported by: floats canonical, the integers as
/// they are (zero-extended).
CCL_HD std::uint64_t canonical_bits(PixelFormat f, std::uint64_t bits) {
    switch (f) {
        case PixelFormat::F16: return cclabel::detail::canonical_f16(std::uint16_t(bits));
        case PixelFormat::F32: return cclabel::detail::canonical_f32(std::uint32_t(bits));
        case PixelFormat::F64: return cclabel::detail::canonical_f64(bits);
        default: return bits;
    }
}

/// A 64-bit pixel's order value: equal exactly when the values are (F64 canonical), and ordered
/// as the values for the integers (I64 with its sign bit flipped).
CCL_HD std::uint64_t order64(PixelFormat f, std::uint64_t bits) {
    if (f == PixelFormat::I64) return bits ^ (std::uint64_t(1) << 63);
    return canonical_bits(f, bits);
}

/// The number of the @p n ascending distinct values @p u below @p o (its rank when it is one of
/// them): a lower bound by binary search.
CCL_HD std::uint64_t rank_of(const std::uint64_t* u, std::uint64_t n, std::uint64_t o) {
    std::uint64_t lo = 0, hi = n;
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (u[mid] < o) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/// The key of a pixel whose order value @p o has rank @p rank: with a background (@p bg its order
/// value) 0 for the background and rank + 1 for the rest, else the rank. Ranks are < 2^32 - 1 (at
/// most 2^32 - 1 pixels share a map), so rank + 1 fits.
CCL_HD std::uint32_t wide_key(std::uint64_t rank, std::uint64_t o, bool has_bg, std::uint64_t bg) {
    if (!has_bg) return std::uint32_t(rank);
    return o == bg ? 0u : std::uint32_t(rank + 1);
}

/// A statistics row's value words (low 32 bits, high 32 bits, in memory order) made canonical for
/// format @p f, as regions() reports them.
CCL_HD void canonical_value_words(PixelFormat f, std::uint32_t* v) {
    const std::uint64_t bits = canonical_bits(f, std::uint64_t(v[0]) | (std::uint64_t(v[1]) << 32));
    v[0] = std::uint32_t(bits);
    v[1] = std::uint32_t(bits >> 32);
}

}  // namespace cclabel::cuda::detail::keys
