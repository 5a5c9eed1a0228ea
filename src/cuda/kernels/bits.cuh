#pragma once
// Bit helpers of the warp-vote code, with one meaning on host and device. Edge values are defined
// (clz32(0) = 32, ffs32(0) = 0, mask_below(32) = all ones, mask_upto(31) = all ones) instead of
// relying on shifts by 32, which are undefined in C++ and clamp differently in PTX (the HA4
// `pixels << (32 - tx)` bug at tx = 0). tests/emu and tests/cuda check the same table of values.
#include <bit>
#include <cstdint>

#include "cclabel/detail/hd.hpp"

namespace cclabel::cuda::detail {

/// Leading zeros of a 32-bit word; 32 for 0.
CCL_HD std::uint32_t clz32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
    return std::uint32_t(__clz(x));
#else
    return std::uint32_t(std::countl_zero(x));
#endif
}

/// 1 + index of the lowest set bit; 0 for 0 (POSIX ffs).
CCL_HD std::uint32_t ffs32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
    return std::uint32_t(__ffs(x));
#else
    return x == 0 ? 0u : std::uint32_t(std::countr_zero(x)) + 1u;
#endif
}

CCL_HD std::uint32_t popc32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
    return std::uint32_t(__popc(x));
#else
    return std::uint32_t(std::popcount(x));
#endif
}

/// Bits 0..n-1 set, for n in 0..32.
CCL_HD std::uint32_t mask_below(std::uint32_t n) { return n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1u; }

/// Bits 0..lane set (lane included), for lane in 0..31.
CCL_HD std::uint32_t mask_upto(std::uint32_t lane) { return mask_below(lane + 1); }

/// Index of the highest set bit of a nonzero word (31 - clz).
CCL_HD std::uint32_t highest_bit(std::uint32_t x) { return 31u - clz32(x); }

}  // namespace cclabel::cuda::detail

namespace cclabel::cuda::detail {

/// High 32 bits of a 32 × 32-bit product.
CCL_HD std::uint32_t mulhi32(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return std::uint32_t((std::uint64_t(a) * b) >> 32);
#endif
}

/// Division of any 32-bit value by a divisor fixed at launch (tile width, tiles a row, Number tile
/// size, picture width), by a multiply and shifts (Granlund & Montgomery 1994, round-up method):
/// the kernels are instruction-bound, and a hardware-less integer division costs about twenty
/// instructions on the GPU, a 64-bit one several times that.
struct FastDiv {
    std::uint32_t d = 1, m = 1, s1 = 0, s2 = 0;

    FastDiv() = default;
    /// @p divisor ≥ 1.
    explicit FastDiv(std::uint32_t divisor) : d(divisor) {
        std::uint32_t l = 0;
        while (l < 32 && (std::uint64_t(1) << l) < divisor) ++l;  // ceil(log2 d)
        m = std::uint32_t(((std::uint64_t(1) << 32) * ((std::uint64_t(1) << l) - divisor)) / divisor + 1);
        s1 = l < 1 ? l : 1;
        s2 = l > 0 ? l - 1 : 0;
    }
    CCL_HD std::uint32_t div(std::uint32_t x) const {
        const std::uint32_t t = mulhi32(m, x);
        return (t + ((x - t) >> s1)) >> s2;
    }
    CCL_HD std::uint32_t mod(std::uint32_t x) const { return x - div(x) * d; }
};

}  // namespace cclabel::cuda::detail
