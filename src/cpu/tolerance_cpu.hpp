#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cclabel/image_view.hpp"
#include "core/format_value.hpp"
#include "core/request.hpp"

namespace cclabel::cpu {

/// Labels a validated, non-empty request whose tolerance is above 0 into @p out (width × height,
/// packed): neighbours join when every channel differs by at most r.tolerance. Returns N.
std::uint32_t label_tolerance(const detail::Request& r, std::uint32_t* out);

/// The same for a typed format (I8 to F64): neighbours join when their values differ by at most
/// r.tolerance_value (floats: -0 equals +0, a NaN joins only a NaN); the background by value.
std::uint32_t label_tolerance_typed(const detail::Request& r, std::uint32_t* out);

/// What joins for a typed format stored as T: values within @p tolerance, computed in double
/// (64-bit integers exactly, by their difference); -0 and +0 one value, a NaN only with a NaN; the
/// background by the canonical bits of its value. Shared by pictures and volumes (tolerance3d_cpu.cpp)
/// so that both compare alike; the GPU's CloseValues (cuda/kernels/close_values.cuh) follows it.
template <PixelFormat F, typename T>
struct ValueJoins {
    static constexpr int kBytes = sizeof(T);
    double tolerance = 0;
    bool has_background = false;
    std::uint64_t background_bits = 0;

    static T load(const std::uint8_t* p) {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static double value(const std::uint8_t* p) {
        if constexpr (F == PixelFormat::F16) return detail::f16_value(load(p));
        else return double(load(p));
    }
    static std::uint64_t bits(const std::uint8_t* p) {
        if constexpr (F == PixelFormat::F16) return detail::canonical_f16(load(p));
        else if constexpr (F == PixelFormat::F32) return detail::canonical_f32(std::bit_cast<std::uint32_t>(load(p)));
        else if constexpr (F == PixelFormat::F64) return detail::canonical_f64(std::bit_cast<std::uint64_t>(load(p)));
        else return std::uint64_t(std::make_unsigned_t<T>(load(p)));
    }
    bool background(const std::uint8_t* p) const { return has_background && bits(p) == background_bits; }
    bool close(const std::uint8_t* a, const std::uint8_t* b) const {
        if constexpr (F != PixelFormat::F16 && F != PixelFormat::F32 && F != PixelFormat::F64) {
            const T u = load(a), v = load(b);
            // The difference as unsigned is exact for any two 64-bit values (u - v itself may overflow).
            const auto d = u > v ? std::uint64_t(u) - std::uint64_t(v) : std::uint64_t(v) - std::uint64_t(u);
            return double(d) <= tolerance;
        } else {
            const double u = value(a), v = value(b);
            if (u != u || v != v) return u != u && v != v;
            return std::fabs(u - v) <= tolerance;
        }
    }
};

/// Calls fn.template operator()<F, T>() with the storage type T of typed format @p f (F16: its
/// bits); returns fallback() for the untyped formats.
template <class Fn, class Fallback>
decltype(auto) dispatch_typed(PixelFormat f, Fn&& fn, Fallback&& fallback) {
    switch (f) {
        case PixelFormat::I8: return fn.template operator()<PixelFormat::I8, std::int8_t>();
        case PixelFormat::I16: return fn.template operator()<PixelFormat::I16, std::int16_t>();
        case PixelFormat::I32: return fn.template operator()<PixelFormat::I32, std::int32_t>();
        case PixelFormat::I64: return fn.template operator()<PixelFormat::I64, std::int64_t>();
        case PixelFormat::U64: return fn.template operator()<PixelFormat::U64, std::uint64_t>();
        case PixelFormat::F16: return fn.template operator()<PixelFormat::F16, std::uint16_t>();
        case PixelFormat::F32: return fn.template operator()<PixelFormat::F32, float>();
        case PixelFormat::F64: return fn.template operator()<PixelFormat::F64, double>();
        default: return fallback();
    }
}

}  // namespace cclabel::cpu
