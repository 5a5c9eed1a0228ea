#pragma once
// Values of the single-channel formats as bits: the canonical form of a float's bits (the equality
// the typed float formats label by) and a caller's Scalar turned into the bits of a format's pixel.
#include <cstdint>
#include <string>
#include <string_view>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::detail {

/// Float bits with -0 made +0 and every NaN (any sign, any payload) made the default quiet NaN,
/// so that two floats are equal values (NaN equal to NaN) exactly when their canonical bits are.
constexpr std::uint16_t canonical_f16(std::uint16_t b) noexcept {
    if ((b & 0x7FFFu) > 0x7C00u) return 0x7E00u;
    return b == 0x8000u ? std::uint16_t(0) : b;
}
constexpr std::uint32_t canonical_f32(std::uint32_t b) noexcept {
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC00000u;
    return b == 0x80000000u ? 0u : b;
}
constexpr std::uint64_t canonical_f64(std::uint64_t b) noexcept {
    if ((b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull) return 0x7FF8000000000000ull;
    return b == 0x8000000000000000ull ? 0ull : b;
}

/// @p x as an error message shows a number: the shortest of %g's forms that reads back as @p x
/// ("2", "0.5", "1e+30", "nan").
std::string format_double(double x);

/// The value of a binary16's bits @p b, exactly.
double f16_value(std::uint16_t b) noexcept;

/// @p v as the bits of one pixel of the single-channel format @p f (the value's bits in the
/// format's width, zero-extended; floats canonical). Throws Error, naming @p arg, when @p f has
/// several channels or @p v is not exactly a value of @p f (out of range, fractional for an
/// integer format, not representable in the float format, nonzero for Binary8).
std::uint64_t value_bits(PixelFormat f, const Scalar& v, std::string_view arg);

}  // namespace cclabel::detail
