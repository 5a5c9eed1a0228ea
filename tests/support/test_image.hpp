#pragma once
// A test picture kept two ways: the key of every pixel (for the reference labeller) and the bytes
// in one of the library's formats, with optional row padding and base offset (for the labellers).
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::test {

struct TestImage {
    std::int64_t width = 0, height = 0;
    PixelFormat format = PixelFormat::Gray8;
    std::vector<std::uint64_t> values;  ///< per pixel: the colour index before encoding
    std::vector<std::uint8_t> storage;
    std::int64_t stride = 0, offset = 0;

    ImageView view() const {
        return ImageView{storage.empty() ? nullptr : storage.data() + offset, width, height, stride, format};
    }
};

/// Encodes colour index @p v into a pixel of @p f: distinct indices give distinct pixels (for the
/// range each format can hold), and neighbouring indices differ in one channel only, by 1.
inline void encode_pixel(PixelFormat f, std::uint64_t v, std::uint8_t* p) {
    switch (f) {
        case PixelFormat::Binary8: p[0] = std::uint8_t(v ? 0x80 | (v & 0x7F) : 0); break;  // any nonzero is 1
        case PixelFormat::Gray8: p[0] = std::uint8_t(v); break;
        case PixelFormat::Gray16: { const auto x = std::uint16_t(v); std::memcpy(p, &x, 2); break; }
        case PixelFormat::U32: { const auto x = std::uint32_t(v); std::memcpy(p, &x, 4); break; }
        case PixelFormat::RGB8: p[0] = std::uint8_t(v); p[1] = std::uint8_t(v >> 8); p[2] = std::uint8_t(v >> 16); break;
        case PixelFormat::RGBA8:
            p[0] = std::uint8_t(v); p[1] = std::uint8_t(v >> 8); p[2] = std::uint8_t(v >> 16); p[3] = std::uint8_t(v >> 24);
            break;
        // Typed formats: the index's low bits (integers) or the index as a float value.
        case PixelFormat::I8: p[0] = std::uint8_t(v); break;
        case PixelFormat::I16: { const auto x = std::int16_t(std::uint16_t(v)); std::memcpy(p, &x, 2); break; }
        case PixelFormat::I32: { const auto x = std::int32_t(std::uint32_t(v)); std::memcpy(p, &x, 4); break; }
        case PixelFormat::I64:
        case PixelFormat::U64: std::memcpy(p, &v, 8); break;
        case PixelFormat::F16: { const auto x = std::uint16_t(0x3C00u + (v & 0x3FF)); std::memcpy(p, &x, 2); break; }
        case PixelFormat::F32: { const auto x = float(v & 0xFFFFFF); std::memcpy(p, &x, 4); break; }
        case PixelFormat::F64: { const auto x = double(v & 0xFFFFFFFFFFFFFull); std::memcpy(p, &x, 8); break; }
    }
}

/// The equality class of colour index @p v in format @p f (what the reference labeller compares).
inline std::uint64_t pixel_class(PixelFormat f, std::uint64_t v) {
    switch (f) {
        case PixelFormat::Binary8: return v != 0;
        case PixelFormat::Gray8: return v & 0xFF;
        case PixelFormat::Gray16: return v & 0xFFFF;
        case PixelFormat::RGB8: return v & 0xFFFFFF;
        case PixelFormat::I8: return v & 0xFF;
        case PixelFormat::I16: return v & 0xFFFF;
        case PixelFormat::I64:
        case PixelFormat::U64: return v;
        case PixelFormat::F16: return v & 0x3FF;
        case PixelFormat::F32: return v & 0xFFFFFF;
        case PixelFormat::F64: return v & 0xFFFFFFFFFFFFFull;
        default: return v & 0xFFFFFFFF;
    }
}

/// Builds a picture from colour indices. @p pad extra bytes per row and @p offset bytes before the
/// first row are filled with @p poison so that a labeller reading them would go wrong.
inline TestImage make_image(std::int64_t w, std::int64_t h, PixelFormat f, const std::vector<std::uint64_t>& v,
                            std::int64_t pad = 0, std::int64_t offset = 0, std::uint8_t poison = 0xA5) {
    TestImage t;
    t.width = w;
    t.height = h;
    t.format = f;
    const int bpp = bytes_per_pixel(f);
    t.stride = w * bpp + pad;
    t.offset = offset;
    t.storage.assign(std::size_t(offset + t.stride * h), poison);
    t.values.resize(v.size());
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            const std::uint64_t c = v[std::size_t(y * w + x)];
            t.values[std::size_t(y * w + x)] = pixel_class(f, c);
            encode_pixel(f, c, t.storage.data() + offset + y * t.stride + x * bpp);
        }
    return t;
}

/// Random colour indices 0..palette-1 (@p palette 0 means every pixel distinct), a fraction
/// @p zero_density of them forced to 0.
inline std::vector<std::uint64_t> random_values(std::int64_t w, std::int64_t h, std::uint64_t palette, double zero_density,
                                                std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::uint64_t> v(std::size_t(w * h));
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (u(rng) < zero_density) v[i] = 0;
        else v[i] = palette == 0 ? i + 1 : 1 + rng() % (palette > 1 ? palette - 1 : 1);
    }
    return v;
}

/// The reference's background class for an Options background given as one colour index.
inline std::optional<std::uint64_t> reference_background(PixelFormat f, std::optional<std::uint64_t> bg_index) {
    if (f == PixelFormat::Binary8) return 0;
    if (!bg_index) return std::nullopt;
    return pixel_class(f, *bg_index);
}

/// The Options background (per channel) for colour index @p v in format @p f.
inline std::vector<std::uint64_t> background_channels(PixelFormat f, std::uint64_t v) {
    switch (f) {
        case PixelFormat::RGB8: return {v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF};
        case PixelFormat::RGBA8: return {v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, (v >> 24) & 0xFF};
        default: return {pixel_class(f, v)};
    }
}

}  // namespace cclabel::test
