#include "cli/typed_values.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "cclabel/error.hpp"

namespace cclabel::cli {
namespace {

double half_to_double(std::uint16_t h) {
    const int exp = (h >> 10) & 0x1F;
    const int frac = h & 0x3FF;
    double v = 0;
    if (exp == 0) v = std::ldexp(double(frac), -24);
    else if (exp == 31) v = frac != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else v = std::ldexp(double(1024 + frac), exp - 25);
    return (h & 0x8000u) != 0 ? -v : v;
}

/// The binary16 value nearest @p d (ties to even), as a double; ±inf past the largest half.
double nearest_half(double d) {
    if (!std::isfinite(d) || d == 0) return d;
    const double a = std::fabs(d);
    int e = 0;
    std::frexp(a, &e);  // a = m · 2^e, m in [0.5, 1): the quantum is 2^(e - 11), at least 2^-24
    const int q = std::max(e - 11, -24);
    double v = std::ldexp(std::nearbyint(std::ldexp(a, -q)), q);
    if (v >= 65520.0) v = std::numeric_limits<double>::infinity();
    return d < 0 ? -v : v;
}

/// The shortest decimal that reads back (as a double) to exactly @p d.
std::string shortest(double d) {
    if (std::isnan(d)) return "nan";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, r.ptr);
}

[[noreturn]] void refuse(const std::string& option, const std::string& text, PixelFormat f, const std::string& why) {
    throw Error(option + " '" + text + "' is not a value of this " + dtype_name(f) + " image: " + why);
}

}  // namespace

std::string dtype_name(PixelFormat f) {
    switch (f) {
        case PixelFormat::I8: return "int8";
        case PixelFormat::I16: return "int16";
        case PixelFormat::I32: return "int32";
        case PixelFormat::I64: return "int64";
        case PixelFormat::U64: return "uint64";
        case PixelFormat::F16: return "float16";
        case PixelFormat::F32: return "float32";
        case PixelFormat::F64: return "float64";
        default: return std::string(format_name(f));
    }
}

Scalar parse_typed_value(const std::string& text, PixelFormat f, const std::string& option) {
    const bool is_float = f == PixelFormat::F16 || f == PixelFormat::F32 || f == PixelFormat::F64;
    std::string s = text;
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.erase(0, 1);
    }
    if (!is_float) {
        std::int64_t lo = 0;
        std::uint64_t hi = 0;
        switch (f) {
            case PixelFormat::I8: lo = -128, hi = 127; break;
            case PixelFormat::I16: lo = -32768, hi = 32767; break;
            case PixelFormat::I32: lo = std::numeric_limits<std::int32_t>::min(), hi = 2147483647u; break;
            case PixelFormat::I64: lo = std::numeric_limits<std::int64_t>::min(), hi = std::uint64_t(9223372036854775807); break;
            default: lo = 0, hi = std::numeric_limits<std::uint64_t>::max(); break;
        }
        const std::string range = "an integer " + std::to_string(lo) + ".." + std::to_string(hi);
        int base = 10;
        const char* b = s.data();
        const char* e = s.data() + s.size();
        if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) b += 2, base = 16;
        std::uint64_t mag = 0;
        const auto [p, ec] = std::from_chars(b, e, mag, base);
        if (s.empty() || p != e || (ec != std::errc() && ec != std::errc::result_out_of_range))
            refuse(option, text, f, "expected " + range);
        if (ec == std::errc::result_out_of_range) refuse(option, text, f, "out of range (" + range + ")");
        if (negative) {
            if (mag > 0 - std::uint64_t(lo)) refuse(option, text, f, "out of range (" + range + ")");
            return f == PixelFormat::U64 ? Scalar(std::uint64_t(0)) : Scalar(std::int64_t(0 - mag));
        }
        if (mag > hi) refuse(option, text, f, "out of range (" + range + ")");
        return f == PixelFormat::U64 ? Scalar(mag) : Scalar(std::int64_t(mag));
    }
    double d = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (s.empty() || p != s.data() + s.size() || ec != std::errc())
        refuse(option, text, f, "expected a number (e.g. -1, 0.5, 1e-3, nan, inf, -0)");
    if (negative) d = -d;
    if (std::isnan(d)) return Scalar(std::numeric_limits<double>::quiet_NaN());
    const double nearest = f == PixelFormat::F16 ? nearest_half(d) : f == PixelFormat::F32 ? double(float(d)) : d;
    if (nearest != d)
        refuse(option, text, f, "not exactly representable (the nearest " + dtype_name(f) + " is " + shortest(nearest) + ")");
    return Scalar(d);
}

std::string format_typed_value(std::uint64_t bits, PixelFormat f) {
    switch (f) {
        case PixelFormat::I8: return std::to_string(std::int8_t(std::uint8_t(bits)));
        case PixelFormat::I16: return std::to_string(std::int16_t(std::uint16_t(bits)));
        case PixelFormat::I32: return std::to_string(std::int32_t(std::uint32_t(bits)));
        case PixelFormat::I64: return std::to_string(std::int64_t(bits));
        case PixelFormat::U64: return std::to_string(bits);
        case PixelFormat::F16: return shortest(half_to_double(std::uint16_t(bits)));
        case PixelFormat::F32: return shortest(double(std::bit_cast<float>(std::uint32_t(bits))));
        case PixelFormat::F64: return shortest(std::bit_cast<double>(bits));
        default: return std::to_string(bits);
    }
}

std::uint64_t canonical_bits(PixelFormat f, const std::uint8_t* p) {
    switch (f) {
        case PixelFormat::I8: return p[0];
        case PixelFormat::I16: {
            std::uint16_t v;
            std::memcpy(&v, p, 2);
            return v;
        }
        case PixelFormat::I32: {
            std::uint32_t v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case PixelFormat::F16: {
            std::uint16_t v;
            std::memcpy(&v, p, 2);
            if (v == 0x8000u) return 0;
            if ((v & 0x7C00u) == 0x7C00u && (v & 0x03FFu) != 0) return 0x7E00u;
            return v;
        }
        case PixelFormat::F32: {
            std::uint32_t v;
            std::memcpy(&v, p, 4);
            if (v == 0x80000000u) return 0;
            if ((v & 0x7F800000u) == 0x7F800000u && (v & 0x007FFFFFu) != 0) return 0x7FC00000u;
            return v;
        }
        case PixelFormat::F64: {
            std::uint64_t v;
            std::memcpy(&v, p, 8);
            if (v == 0x8000000000000000ull) return 0;
            if ((v & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (v & 0x000FFFFFFFFFFFFFull) != 0)
                return 0x7FF8000000000000ull;
            return v;
        }
        default: {  // I64, U64
            std::uint64_t v;
            std::memcpy(&v, p, 8);
            return v;
        }
    }
}

bool value_less(PixelFormat f, std::uint64_t a, std::uint64_t b) {
    const Scalar x = scalar_of(f, a), y = scalar_of(f, b);
    switch (x.kind) {
        case Scalar::Kind::Signed: return x.i < y.i;
        case Scalar::Kind::Unsigned: return x.u < y.u;
        case Scalar::Kind::Float: return std::isnan(y.f) ? !std::isnan(x.f) : x.f < y.f;
    }
    return a < b;
}

Scalar scalar_of(PixelFormat f, std::uint64_t bits) {
    switch (f) {
        case PixelFormat::I8: return Scalar(std::int8_t(std::uint8_t(bits)));
        case PixelFormat::I16: return Scalar(std::int16_t(std::uint16_t(bits)));
        case PixelFormat::I32: return Scalar(std::int32_t(std::uint32_t(bits)));
        case PixelFormat::I64: return Scalar(std::int64_t(bits));
        case PixelFormat::F16: return Scalar(half_to_double(std::uint16_t(bits)));
        case PixelFormat::F32: return Scalar(double(std::bit_cast<float>(std::uint32_t(bits))));
        case PixelFormat::F64: return Scalar(std::bit_cast<double>(bits));
        default: return Scalar(bits);
    }
}

}  // namespace cclabel::cli
