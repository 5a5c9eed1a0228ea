#pragma once
// Volumes for the volume tests (tests/cpp, tests/emu, tests/cuda): palette indices encoded in any
// format with padding, random and helix volumes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cclabel/cclabel.hpp"

namespace cclabel::test {

/// The bytes of palette entry @p i (0..31) in format @p f: distinct entries are distinct values,
/// and @p variant picks another encoding of the same value where the format has one (Binary8's
/// nonzero bytes, -0.0 for +0.0 and NaN payloads for the floats).
inline void encode(PixelFormat f, std::uint32_t i, std::uint32_t variant, std::uint8_t* p) {
    auto put = [&](auto v) { std::memcpy(p, &v, sizeof v); };
    switch (f) {
        case PixelFormat::Binary8: put(std::uint8_t(i == 0 ? 0 : 1 + (variant % 255))); break;
        case PixelFormat::Gray8: put(std::uint8_t(i * 7 + 3)); break;
        case PixelFormat::Gray16: put(std::uint16_t(i * 4099 + 1)); break;
        case PixelFormat::U32: put(std::uint32_t(i * 0x01010101u + 5)); break;
        case PixelFormat::RGB8: p[0] = std::uint8_t(i * 13), p[1] = std::uint8_t(i * 7 + 1), p[2] = std::uint8_t(200 - i); break;
        case PixelFormat::RGBA8: p[0] = std::uint8_t(i * 13), p[1] = 9, p[2] = 8, p[3] = std::uint8_t(255 - i); break;
        case PixelFormat::I8: put(std::int8_t(int(i) - 5)); break;
        case PixelFormat::I16: put(std::int16_t(-1000 * int(i))); break;
        case PixelFormat::I32: put(std::int32_t(-100000 * int(i) + 7)); break;
        case PixelFormat::I64: put(std::int64_t(-(std::int64_t(1) << 40)) * std::int64_t(i) + 3); break;  // a table
        case PixelFormat::U64: put(std::uint64_t(i) + (std::uint64_t(1) << 50)); break;                     // a window
        case PixelFormat::F16: {
            const std::uint16_t bits = i == 0 ? std::uint16_t(variant % 2 ? 0x8000 : 0)
                                       : i == 1 ? std::uint16_t(0x7E00 | (variant % 7))
                                                : std::uint16_t(0x3C00 + i);
            put(bits);
            break;
        }
        case PixelFormat::F32: {
            const float v = i == 0 ? (variant % 2 ? -0.0f : 0.0f) : i == 1 ? std::nanf("") : float(i) * 0.5f;
            put(v);
            break;
        }
        case PixelFormat::F64: {
            const double v = i == 0 ? (variant % 2 ? -0.0 : 0.0) : i == 1 ? std::nan("") : double(i) * 1e300 / 32;
            put(v);
            break;
        }
    }
}

/// The background option that makes palette entry 0 the background in format @p f.
inline Options background_zero(PixelFormat f, Options o) {
    if (is_typed_format(f)) {
        std::uint8_t b[8] = {};
        encode(f, 0, 0, b);
        switch (f) {
            case PixelFormat::I8: o.background_value = std::int8_t(b[0]); break;
            case PixelFormat::I16: { std::int16_t v; std::memcpy(&v, b, 2); o.background_value = v; break; }
            case PixelFormat::I32: { std::int32_t v; std::memcpy(&v, b, 4); o.background_value = v; break; }
            case PixelFormat::I64: { std::int64_t v; std::memcpy(&v, b, 8); o.background_value = v; break; }
            case PixelFormat::U64: { std::uint64_t v; std::memcpy(&v, b, 8); o.background_value = v; break; }
            default: o.background_value = 0.0; break;  // F16, F32, F64: entry 0 is ±0
        }
        return o;
    }
    std::uint8_t b[4] = {};
    encode(f, 0, 0, b);
    std::vector<std::uint64_t> bg(std::size_t(channels(f)));
    for (std::size_t c = 0; c < bg.size(); ++c) bg[c] = f == PixelFormat::Gray16 ? (b[0] | (b[1] << 8)) : b[c];
    if (f == PixelFormat::U32) {
        std::uint32_t v;
        std::memcpy(&v, b, 4);
        bg = {v};
    }
    o.background = bg;
    return o;
}

/// A volume of palette indices, its bytes in one format (with padding), and its view.
struct Volume {
    std::int64_t w = 0, h = 0, d = 0;
    std::vector<std::uint64_t> idx;  // one palette index a voxel
    std::vector<std::uint8_t> bytes;
    VolumeView view;

    Volume(std::int64_t w_, std::int64_t h_, std::int64_t d_) : w(w_), h(h_), d(d_), idx(std::size_t(w_ * h_ * d_), 0) {}
    std::uint64_t& at(std::int64_t x, std::int64_t y, std::int64_t z) { return idx[std::size_t((z * h + y) * w + x)]; }

    /// Encodes the indices in @p f; @p row_pad / @p slice_pad bytes of padding (filled with a byte
    /// pattern that would join if read).
    const VolumeView& as(PixelFormat f, std::int64_t row_pad = 0, std::int64_t slice_pad = 0, std::uint32_t seed = 1) {
        const std::int64_t bpp = bytes_per_pixel(f);
        const std::int64_t rs = w * bpp + row_pad, ss = h * rs + slice_pad;
        bytes.assign(std::size_t(std::max<std::int64_t>(1, d * ss)), 0xAB);
        std::mt19937 rng(seed);
        for (std::int64_t z = 0; z < d; ++z)
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x)
                    encode(f, std::uint32_t(at(x, y, z)), std::uint32_t(rng()),
                           bytes.data() + z * ss + y * rs + x * bpp);
        view = VolumeView{bytes.data(), w, h, d, row_pad ? rs : 0, slice_pad ? ss : 0, f};
        return view;
    }
    /// The flood fill's keys: the palette index (Binary8: foreground or not).
    std::vector<std::uint64_t> keys(PixelFormat f) const {
        if (f != PixelFormat::Binary8) return idx;
        std::vector<std::uint64_t> k(idx.size());
        for (std::size_t i = 0; i < k.size(); ++i) k[i] = idx[i] != 0;
        return k;
    }
};

inline Volume random_volume(std::int64_t w, std::int64_t h, std::int64_t d, int palette, double zero_density, std::uint32_t seed) {
    Volume v(w, h, d);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    for (auto& i : v.idx)
        i = u(rng) < zero_density ? 0 : 1 + rng() % std::uint32_t(std::max(1, palette - 1));
    return v;
}

/// A helix of voxels along z, each step moving by (sx, sy, 1) with sx, sy in {-1, 0, 1} bouncing
/// in the box: with both nonzero it joins only through corners, with one only through edges.
inline Volume helix(std::int64_t w, std::int64_t h, std::int64_t d, int sx, int sy) {
    Volume v(w, h, d);
    std::int64_t x = 0, y = 0;
    for (std::int64_t z = 0; z < d; ++z) {
        v.at(x, y, z) = 1;
        if (x + sx < 0 || x + sx >= w) sx = -sx;
        if (y + sy < 0 || y + sy >= h) sy = -sy;
        x += sx, y += sy;
    }
    return v;
}

}  // namespace cclabel::test
