// A caller's value (Options::background_value, or a one-channel background) checked against a
// format and turned into the bits of one of its pixels. Exact or an Error: a background that
// silently rounded to a neighbouring value would label the wrong pixels.
#include "core/format_value.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "cclabel/error.hpp"

namespace cclabel::detail {
namespace {

std::string show(const Scalar& v) {
    std::ostringstream s;
    switch (v.kind) {
        case Scalar::Kind::Signed: s << v.i; break;
        case Scalar::Kind::Unsigned: s << v.u; break;
        case Scalar::Kind::Float: return format_double(v.f);
    }
    return s.str();
}

[[noreturn]] void refuse(std::string_view arg, const Scalar& v, PixelFormat f, std::string_view why) {
    throw Error(std::string(arg) + ": " + show(v) + " is not a value of " + std::string(format_name(f)) + " (" +
                std::string(why) + ")");
}

/// Integer formats: the range as [lo, hi] of a signed or an unsigned 64-bit type.
struct IntRange {
    bool is_signed;
    std::int64_t lo;
    std::uint64_t hi;
    int bits;
};

bool int_range(PixelFormat f, IntRange& r) {
    switch (f) {
        case PixelFormat::Binary8: r = {false, 0, 0, 8}; return true;  // only 0 (background is always 0)
        case PixelFormat::Gray8: r = {false, 0, 0xFFu, 8}; return true;
        case PixelFormat::Gray16: r = {false, 0, 0xFFFFu, 16}; return true;
        case PixelFormat::U32: r = {false, 0, 0xFFFFFFFFu, 32}; return true;
        case PixelFormat::U64: r = {false, 0, ~std::uint64_t(0), 64}; return true;
        case PixelFormat::I8: r = {true, -128, 127, 8}; return true;
        case PixelFormat::I16: r = {true, -32768, 32767, 16}; return true;
        case PixelFormat::I32: r = {true, std::numeric_limits<std::int32_t>::min(), 0x7FFFFFFFu, 32}; return true;
        case PixelFormat::I64:
            r = {true, std::numeric_limits<std::int64_t>::min(), 0x7FFFFFFFFFFFFFFFull, 64};
            return true;
        default: return false;
    }
}

std::uint64_t integer_bits(PixelFormat f, const IntRange& r, const Scalar& v, std::string_view arg) {
    const std::string range = r.hi == 0 ? std::string("binary8 background is always 0")
                                        : "range " + std::to_string(r.lo) + " to " + std::to_string(r.hi);
    bool negative = false;
    std::uint64_t mag = 0;  // |value| when negative, else the value
    switch (v.kind) {
        case Scalar::Kind::Signed:
            negative = v.i < 0;
            mag = negative ? 0 - std::uint64_t(v.i) : std::uint64_t(v.i);
            break;
        case Scalar::Kind::Unsigned: mag = v.u; break;
        case Scalar::Kind::Float:
            if (!std::isfinite(v.f) || v.f != std::trunc(v.f)) refuse(arg, v, f, "not an integer");
            negative = v.f < 0;
            if (std::fabs(v.f) >= 18446744073709551616.0) refuse(arg, v, f, range);
            mag = std::uint64_t(std::fabs(v.f));
            break;
    }
    if (negative) {
        if (!r.is_signed || mag > 0 - std::uint64_t(r.lo)) refuse(arg, v, f, range);
    } else if (mag > r.hi) {
        refuse(arg, v, f, range);
    }
    const std::uint64_t value = negative ? 0 - mag : mag;
    return r.bits == 64 ? value : value & ((std::uint64_t(1) << r.bits) - 1);
}

/// @p d as binary16 bits, exactly, or false.
bool half_bits(double d, std::uint16_t& out) {
    if (std::isnan(d)) return out = 0x7E00u, true;
    const std::uint16_t sign = std::signbit(d) ? 0x8000u : 0u;
    const double a = std::fabs(d);
    if (std::isinf(a)) return out = std::uint16_t(sign | 0x7C00u), true;
    if (a > 65504.0) return false;
    if (a < 0x1p-14) {  // zero and subnormals: multiples of 2^-24
        const double m = a * 0x1p24;
        if (m != std::trunc(m)) return false;
        return out = std::uint16_t(sign | std::uint16_t(m)), true;
    }
    int e = 0;
    const double m = std::frexp(a, &e);        // a = m · 2^e, m in [0.5, 1)
    const double frac = (2 * m - 1) * 1024.0;  // the 10 stored significand bits
    if (frac != std::trunc(frac)) return false;
    return out = std::uint16_t(sign | std::uint16_t((e - 1 + 15) << 10) | std::uint16_t(frac)), true;
}

std::uint64_t float_bits(PixelFormat f, const Scalar& v, std::string_view arg) {
    double d = 0;
    switch (v.kind) {
        case Scalar::Kind::Signed:
            d = double(v.i);
            if (d >= 0x1p63 || std::int64_t(d) != v.i) refuse(arg, v, f, "not exactly representable");
            break;
        case Scalar::Kind::Unsigned:
            d = double(v.u);
            if (d >= 0x1p64 || std::uint64_t(d) != v.u) refuse(arg, v, f, "not exactly representable");
            break;
        case Scalar::Kind::Float: d = v.f; break;
    }
    const char* hint = "not exactly representable; pass the value in the image's own type";
    switch (f) {
        case PixelFormat::F64: return canonical_f64(std::bit_cast<std::uint64_t>(d));
        case PixelFormat::F32: {
            const float x = float(d);
            if (!std::isnan(d) && double(x) != d) refuse(arg, v, f, std::string(hint) + " (e.g. a float)");
            return canonical_f32(std::bit_cast<std::uint32_t>(x));
        }
        default: {
            std::uint16_t h = 0;
            if (!half_bits(d, h)) refuse(arg, v, f, hint);
            return canonical_f16(h);
        }
    }
}

}  // namespace

std::uint64_t value_bits(PixelFormat f, const Scalar& v, std::string_view arg) {
    if (channels(f) != 1)
        throw Error(std::string(arg) + ": one value is for single-channel formats; a " + std::string(format_name(f)) +
                    " background is given per channel in Options::background");
    IntRange r{};
    if (int_range(f, r)) return integer_bits(f, r, v, arg);
    return float_bits(f, v, arg);
}

std::string format_double(double x) {
    char buf[40];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, x);
        if (std::strtod(buf, nullptr) == x || x != x) break;
    }
    return buf;
}

double f16_value(std::uint16_t b) noexcept {
    const int exponent = (b >> 10) & 0x1F;
    const int fraction = b & 0x3FF;
    double v;
    if (exponent == 0) v = std::ldexp(double(fraction), -24);  // subnormal
    else if (exponent == 31) v = fraction ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else v = std::ldexp(double(fraction | 0x400), exponent - 25);
    return (b & 0x8000) ? -v : v;
}

}  // namespace cclabel::detail
