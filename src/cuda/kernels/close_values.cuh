#pragma once
// What "joins" means to the volume programs (kernels/volume_bodies.cuh), as a policy type M:
//   EqualKeys<F>    exact labelling: equal keys (PixelTraits' packing), the shipped fast path;
//   CloseKeys<F>    Options::tolerance on an untyped format: keys close in every channel
//                   (keys_close, the same test as the picture pipeline and the CPU's close());
//   CloseValues<F>  Options::tolerance_value on a typed format (I8 to F64): values within the
//                   tolerance as src/cpu/tolerance_cpu.cpp's ValueJoins decides it, computed in
//                   double, 64-bit integers by their exact difference, a NaN only with a NaN.
// A tolerance joins a voxel to a close neighbour only when that neighbour is not background (a
// background value within the tolerance of a foreground one must still join nothing).
//
// kTransitive says whether joining is an equivalence of values. The volume programs' shortcuts
// (cover, prelink, covered_by_left) assume it: "X joins K and K's neighbour J has X's value, so J
// is joined to K" needs J ~ K, which X ~ J and X ~ K give only for equality (a ramp 0, 3, 6 at
// tolerance 3 joins 0-3 and 3-6 but not 0-6). With a tolerance they are off (static_assert in the
// programs); the emulator's mutation tests turn them on (Transitive<M>) and see labels change.
//
// Each policy's Value is what a voxel is compared as; kShared says whether it fits the tile's
// 32-bit shared key words (64-bit values are read from global memory instead).
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "cclabel/detail/hd.hpp"
#include "cclabel/error.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/image_view.hpp"
#include "core/format_value.hpp"
#include "cuda/kernels/close_keys.cuh"
#include "cuda/kernels/key_bodies.cuh"

namespace cclabel::cuda::detail {

/// Exact labelling: equal keys. Its code is what the programs compared before the policies.
template <PixelFormat F>
struct EqualKeys {
    using Value = std::uint32_t;
    static constexpr bool kTransitive = true;
    static constexpr bool kShared = true;
    CCL_HD static Value load(const std::uint8_t* p) { return cclabel::detail::PixelTraits<F>::key(p); }
    CCL_HD static std::uint32_t word(Value v) { return v; }
    CCL_HD static Value from_word(std::uint32_t w) { return w; }
    template <class P>
    CCL_HD static bool background(const P& g, Value v) {
        return g.has_background && v == g.background_key;
    }
    /// Whether foreground @p a joins @p b (only a background voxel has the background's key).
    template <class P>
    CCL_HD static bool joins(const P&, Value a, Value b) {
        return b == a;
    }
};

/// Tolerance on an untyped format (Gray8, Gray16, U32, RGB8, RGBA8): every channel of the keys
/// within g.tolerance; never a background neighbour.
template <PixelFormat F>
struct CloseKeys {
    using Value = std::uint32_t;
    static constexpr bool kTransitive = false;
    static constexpr bool kShared = true;
    CCL_HD static Value load(const std::uint8_t* p) { return cclabel::detail::PixelTraits<F>::key(p); }
    CCL_HD static std::uint32_t word(Value v) { return v; }
    CCL_HD static Value from_word(std::uint32_t w) { return w; }
    template <class P>
    CCL_HD static bool background(const P& g, Value v) {
        return g.has_background && v == g.background_key;
    }
    template <class P>
    CCL_HD static bool joins(const P& g, Value a, Value b) {
        return !background(g, b) && keys_close<F>(a, b, g.tolerance);
    }
};

/// The C++ type a typed format's pixel is stored as (F16: its bits).
template <PixelFormat F>
struct TypedStorage;
template <> struct TypedStorage<PixelFormat::I8> { using T = std::int8_t; };
template <> struct TypedStorage<PixelFormat::I16> { using T = std::int16_t; };
template <> struct TypedStorage<PixelFormat::I32> { using T = std::int32_t; };
template <> struct TypedStorage<PixelFormat::I64> { using T = std::int64_t; };
template <> struct TypedStorage<PixelFormat::U64> { using T = std::uint64_t; };
template <> struct TypedStorage<PixelFormat::F16> { using T = std::uint16_t; };
template <> struct TypedStorage<PixelFormat::F32> { using T = float; };
template <> struct TypedStorage<PixelFormat::F64> { using T = double; };

/// The value of binary16 bits @p b, exactly (cclabel::detail::f16_value, for both sides): every
/// half is a small integer times a power of two that a double holds.
CCL_HD double f16_to_double(std::uint16_t b) {
    const int exponent = (b >> 10) & 0x1F;
    const std::uint32_t fraction = b & 0x3FFu;
    auto pow2 = [](int n) {  // 2^n for -24 <= n <= 5, from its bits
        const std::uint64_t bits = std::uint64_t(1023 + n) << 52;
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
    };
    double v;
    if (exponent == 0) {
        v = double(fraction) * pow2(-24);  // subnormal (and zero)
    } else if (exponent == 31) {
        const std::uint64_t bits = fraction ? 0x7FF8000000000000ull : 0x7FF0000000000000ull;
        std::memcpy(&v, &bits, sizeof v);
    } else {
        v = double(fraction | 0x400u) * pow2(exponent - 25);
    }
    return (b & 0x8000u) ? -v : v;
}

/// Tolerance on a typed format, g.tolerance_value in the format's values (ValueJoins of
/// src/cpu/tolerance_cpu.cpp, decision for decision); the background by its canonical bits.
template <PixelFormat F>
struct CloseValues {
    using Value = typename TypedStorage<F>::T;
    static constexpr bool kFloat = F == PixelFormat::F16 || F == PixelFormat::F32 || F == PixelFormat::F64;
    static constexpr bool kTransitive = false;
    static constexpr bool kShared = sizeof(Value) <= 4;
    /// Any alignment: the device API takes pictures at any address (load_bits reads bytes then).
    CCL_HD static Value load(const std::uint8_t* p) {
        const std::uint64_t bits = keys::load_bits(p, sizeof(Value));
        Value v;
        std::memcpy(&v, &bits, sizeof v);  // little-endian: the low bytes
        return v;
    }
    CCL_HD static std::uint32_t word(Value v) {
        if constexpr (sizeof(Value) <= 4) {
            std::uint32_t w = 0;
            std::memcpy(&w, &v, sizeof v);
            return w;
        } else {
            return 0;  // not kShared: never stored
        }
    }
    CCL_HD static Value from_word(std::uint32_t w) {
        Value v;
        std::memcpy(&v, &w, sizeof v);
        return v;
    }
    CCL_HD static double value(Value v) {
        if constexpr (F == PixelFormat::F16) return f16_to_double(v);
        else return double(v);
    }
    CCL_HD static std::uint64_t bits(Value v) {
        if constexpr (F == PixelFormat::F16) {
            return cclabel::detail::canonical_f16(v);
        } else if constexpr (F == PixelFormat::F32) {
            std::uint32_t b;
            std::memcpy(&b, &v, sizeof b);
            return cclabel::detail::canonical_f32(b);
        } else if constexpr (F == PixelFormat::F64) {
            std::uint64_t b;
            std::memcpy(&b, &v, sizeof b);
            return cclabel::detail::canonical_f64(b);
        } else {
            return std::uint64_t(std::make_unsigned_t<Value>(v));
        }
    }
    template <class P>
    CCL_HD static bool background(const P& g, Value v) {
        return g.has_background && bits(v) == g.background_bits;
    }
    template <class P>
    CCL_HD static bool close(const P& g, Value a, Value b) {
        if constexpr (!kFloat) {
            // The difference as unsigned is exact for any two 64-bit values; its double rounds as
            // the CPU's does (round to nearest).
            const std::uint64_t d = a > b ? std::uint64_t(a) - std::uint64_t(b) : std::uint64_t(b) - std::uint64_t(a);
            return double(d) <= g.tolerance_value;
        } else {
            const double u = value(a), v = value(b);
            if (u != u || v != v) return u != u && v != v;
            const double d = u - v;
            return (d < 0 ? -d : d) <= g.tolerance_value;
        }
    }
    template <class P>
    CCL_HD static bool joins(const P& g, Value a, Value b) {
        return !background(g, b) && close(g, a, b);
    }
};

/// Test hook: @p M claiming that its joins are an equivalence, so that the programs take the
/// shortcuts that need one. The emulator's mutation tests label with it and expect wrong labels;
/// never launched on the GPU.
template <class M>
struct Transitive : M {
    static constexpr bool kTransitive = true;
};

/// Calls fn.template operator()<F, M>() with the tolerance policy of format @p f: CloseKeys for the
/// untyped formats but Binary8 (whose one foreground value a tolerance cannot widen: the caller
/// labels it exactly), CloseValues for the typed ones.
template <class Fn>
decltype(auto) dispatch_tolerance(PixelFormat f, Fn&& fn) {
    switch (f) {
        case PixelFormat::Gray8: return fn.template operator()<PixelFormat::Gray8, CloseKeys<PixelFormat::Gray8>>();
        case PixelFormat::Gray16: return fn.template operator()<PixelFormat::Gray16, CloseKeys<PixelFormat::Gray16>>();
        case PixelFormat::U32: return fn.template operator()<PixelFormat::U32, CloseKeys<PixelFormat::U32>>();
        case PixelFormat::RGB8: return fn.template operator()<PixelFormat::RGB8, CloseKeys<PixelFormat::RGB8>>();
        case PixelFormat::RGBA8: return fn.template operator()<PixelFormat::RGBA8, CloseKeys<PixelFormat::RGBA8>>();
        case PixelFormat::I8: return fn.template operator()<PixelFormat::I8, CloseValues<PixelFormat::I8>>();
        case PixelFormat::I16: return fn.template operator()<PixelFormat::I16, CloseValues<PixelFormat::I16>>();
        case PixelFormat::I32: return fn.template operator()<PixelFormat::I32, CloseValues<PixelFormat::I32>>();
        case PixelFormat::I64: return fn.template operator()<PixelFormat::I64, CloseValues<PixelFormat::I64>>();
        case PixelFormat::U64: return fn.template operator()<PixelFormat::U64, CloseValues<PixelFormat::U64>>();
        case PixelFormat::F16: return fn.template operator()<PixelFormat::F16, CloseValues<PixelFormat::F16>>();
        case PixelFormat::F32: return fn.template operator()<PixelFormat::F32, CloseValues<PixelFormat::F32>>();
        case PixelFormat::F64: return fn.template operator()<PixelFormat::F64, CloseValues<PixelFormat::F64>>();
        default: break;
    }
    throw Error("internal: format " + std::string(format_name(f)) + " has no tolerance policy (Binary8 is labelled exactly)");
}

}  // namespace cclabel::cuda::detail
