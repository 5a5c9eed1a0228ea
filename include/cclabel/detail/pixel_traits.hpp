#pragma once
// Collapse every pixel format to a 32-bit equality key read straight from the picture's bytes:
// two pixels are the same colour exactly when their keys are equal. RGB8 is read as three bytes
// (no packed copy of the picture is ever made); Binary8 collapses to 0/1.
#include <cstdint>
#include <cstring>
#include <string>

#include "cclabel/detail/hd.hpp"
#include "cclabel/error.hpp"
#include "cclabel/image_view.hpp"

namespace cclabel::detail {

template <PixelFormat F>
struct PixelTraits;

template <>
struct PixelTraits<PixelFormat::Binary8> {
    static constexpr int kBytes = 1;
    CCL_HD static std::uint32_t key(const std::uint8_t* p) { return p[0] != 0 ? 1u : 0u; }
};
template <>
struct PixelTraits<PixelFormat::Gray8> {
    static constexpr int kBytes = 1;
    CCL_HD static std::uint32_t key(const std::uint8_t* p) { return p[0]; }
};
template <>
struct PixelTraits<PixelFormat::Gray16> {
    static constexpr int kBytes = 2;
    // Byte loads so that any alignment of base pointer and stride is valid (TESTING F6).
    CCL_HD static std::uint32_t key(const std::uint8_t* p) {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
};
template <>
struct PixelTraits<PixelFormat::U32> {
    static constexpr int kBytes = 4;
    CCL_HD static std::uint32_t key(const std::uint8_t* p) {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
};
template <>
struct PixelTraits<PixelFormat::RGB8> {
    static constexpr int kBytes = 3;
    CCL_HD static std::uint32_t key(const std::uint8_t* p) {
        return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16);
    }
};
template <>
struct PixelTraits<PixelFormat::RGBA8> {
    static constexpr int kBytes = 4;
    CCL_HD static std::uint32_t key(const std::uint8_t* p) {
        return std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
               (std::uint32_t(p[3]) << 24);
    }
};

/// Key of a background value given per channel (already range-checked), in PixelTraits' packing.
inline std::uint32_t pack_key(PixelFormat f, const std::uint64_t* ch) {
    switch (f) {
        case PixelFormat::Binary8: return ch[0] != 0 ? 1u : 0u;
        case PixelFormat::RGB8:
            return std::uint32_t(ch[0]) | (std::uint32_t(ch[1]) << 8) | (std::uint32_t(ch[2]) << 16);
        case PixelFormat::RGBA8:
            return std::uint32_t(ch[0]) | (std::uint32_t(ch[1]) << 8) | (std::uint32_t(ch[2]) << 16) |
                   (std::uint32_t(ch[3]) << 24);
        default: return std::uint32_t(ch[0]);
    }
}

/// Calls fn.template operator()<F>() for the runtime format: the only runtime→template switch.
/// The typed formats (I8 to F64) have no labeller of their own: the host API turns them into keys
/// of the formats here first (core/format_keys.hpp), and a call that reaches this with one is an
/// Error that names the format.
template <typename Fn>
decltype(auto) dispatch_format(PixelFormat f, Fn&& fn) {
    switch (f) {
        case PixelFormat::Binary8: return fn.template operator()<PixelFormat::Binary8>();
        case PixelFormat::Gray8: return fn.template operator()<PixelFormat::Gray8>();
        case PixelFormat::Gray16: return fn.template operator()<PixelFormat::Gray16>();
        case PixelFormat::U32: return fn.template operator()<PixelFormat::U32>();
        case PixelFormat::RGB8: return fn.template operator()<PixelFormat::RGB8>();
        case PixelFormat::RGBA8: return fn.template operator()<PixelFormat::RGBA8>();
        default: break;
    }
    if (is_typed_format(f))
        throw Error("pixel format " + std::string(format_name(f)) +
                    " is taken by label(), label_batch() and regions() on the host; this call (device API, "
                    "tiles, verify, segment, adjacency) does not take it yet");
    return fn.template operator()<PixelFormat::Gray8>();  // unreachable: validated before
}

}  // namespace cclabel::detail
