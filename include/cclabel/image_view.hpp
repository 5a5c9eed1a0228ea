#pragma once
/// @file image_view.hpp
/// @brief A non-owning view of a picture: pointer, size, row stride in bytes and pixel format.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cclabel {

/// How the bytes of one pixel are read. Colour pixels are compared as they are stored: the library
/// never makes a packed copy of a picture. The signed, float and 64-bit formats (I8 to F64) are
/// compared as values of their type (floats: -0.0 equals +0.0 and every NaN is one value); the host
/// API (label, label_batch, regions) takes them, turning each into an equality key of at most 32
/// bits first (docs/cpp-guide.md says when that needs a copy); the device API does not yet.
enum class PixelFormat : int {
    Binary8 = 0,  ///< one byte; nonzero is foreground, zero is always background
    Gray8 = 1,    ///< one byte, every value is a colour
    Gray16 = 2,   ///< one native-endian uint16_t
    U32 = 3,      ///< one native-endian uint32_t (any 32-bit value, e.g. packed colours or labels)
    RGB8 = 4,     ///< three bytes R, G, B
    RGBA8 = 5,    ///< four bytes R, G, B, A; alpha takes part in equality
    I8 = 6,       ///< one int8_t
    I16 = 7,      ///< one native-endian int16_t
    I32 = 8,      ///< one native-endian int32_t
    I64 = 9,      ///< one native-endian int64_t
    U64 = 10,     ///< one native-endian uint64_t
    F16 = 11,     ///< one native-endian IEEE binary16 (half); -0 == +0, every NaN one value
    F32 = 12,     ///< one native-endian float; -0 == +0, every NaN one value
    F64 = 13,     ///< one native-endian double; -0 == +0, every NaN one value
};

/// Bytes of one pixel of @p f, or 0 for a value outside the enum.
constexpr int bytes_per_pixel(PixelFormat f) noexcept {
    switch (f) {
        case PixelFormat::Binary8:
        case PixelFormat::Gray8:
        case PixelFormat::I8: return 1;
        case PixelFormat::Gray16:
        case PixelFormat::I16:
        case PixelFormat::F16: return 2;
        case PixelFormat::U32:
        case PixelFormat::I32:
        case PixelFormat::F32: return 4;
        case PixelFormat::RGB8: return 3;
        case PixelFormat::RGBA8: return 4;
        case PixelFormat::I64:
        case PixelFormat::U64:
        case PixelFormat::F64: return 8;
    }
    return 0;
}

/// Number of channels of @p f (RGB8: 3, RGBA8: 4, else 1), or 0 for a value outside the enum.
constexpr int channels(PixelFormat f) noexcept {
    switch (f) {
        case PixelFormat::RGB8: return 3;
        case PixelFormat::RGBA8: return 4;
        case PixelFormat::Binary8:
        case PixelFormat::Gray8:
        case PixelFormat::Gray16:
        case PixelFormat::U32:
        case PixelFormat::I8:
        case PixelFormat::I16:
        case PixelFormat::I32:
        case PixelFormat::I64:
        case PixelFormat::U64:
        case PixelFormat::F16:
        case PixelFormat::F32:
        case PixelFormat::F64: return 1;
    }
    return 0;
}

/// True for the formats compared as values of a signed, float or 64-bit type (I8 to F64).
constexpr bool is_typed_format(PixelFormat f) noexcept { return int(f) >= int(PixelFormat::I8) && int(f) <= int(PixelFormat::F64); }

/// Lower-case name ("rgb8", "i16", "f32", ...) or "unknown".
std::string_view format_name(PixelFormat f) noexcept;

/// A picture the library reads. Sizes are signed 64-bit so that negative values from callers are
/// caught by validation instead of wrapping. Row y starts at `data + y * stride` bytes.
struct ImageView {
    const void* data = nullptr;
    std::int64_t width = 0;
    std::int64_t height = 0;
    std::int64_t stride = 0;  ///< bytes from one row to the next; 0 means tightly packed
    PixelFormat format = PixelFormat::Gray8;

    /// Pixels in the picture (width × height), in 64-bit arithmetic.
    std::uint64_t pixels() const noexcept {
        return width > 0 && height > 0 ? std::uint64_t(width) * std::uint64_t(height) : 0;
    }
    /// The stride, with 0 resolved to the packed row size.
    std::int64_t row_bytes() const noexcept {
        return stride != 0 ? stride : width * bytes_per_pixel(format);
    }
};

/// A tightly packed view of @p data.
inline ImageView make_view(const void* data, std::int64_t width, std::int64_t height, PixelFormat f,
                           std::int64_t stride = 0) {
    return ImageView{data, width, height, stride, f};
}

}  // namespace cclabel
