#pragma once
/// @file value_as.hpp
/// @brief The value of a statistics row (RegionStats, VolumeRegionStats) as a type of its own.
#include <array>
#include <bit>
#include <cstdint>
#include <type_traits>

namespace cclabel::detail {

/// value[0] (and value[1] for an 8-byte @p T) of a statistics row's value as a @p T.
/// @tparam T     a trivially copyable type of 1, 2, 4 or 8 bytes.
/// @param value  the row's value: the low 32 bits in value[0], the high 32 in value[1].
template <typename T>
    requires(std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8))
T value_as(const std::array<std::uint32_t, 4>& value) noexcept {
    const std::uint64_t bits = value[0] | (std::uint64_t(value[1]) << 32);
    if constexpr (sizeof(T) == 8) return std::bit_cast<T>(bits);
    else if constexpr (sizeof(T) == 4) return std::bit_cast<T>(std::uint32_t(bits));
    else if constexpr (sizeof(T) == 2) return std::bit_cast<T>(std::uint16_t(bits));
    else return std::bit_cast<T>(std::uint8_t(bits));
}

}  // namespace cclabel::detail
