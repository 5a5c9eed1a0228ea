#pragma once
#include <cstdint>

#include "core/request.hpp"

namespace cclabel::cpu {

/// Labels a validated, non-empty request whose tolerance is above 0 into @p out (width × height,
/// packed): neighbours join when every channel differs by at most r.tolerance. Returns N.
std::uint32_t label_tolerance(const detail::Request& r, std::uint32_t* out);

/// The same for a typed format (I8 to F64): neighbours join when their values differ by at most
/// r.tolerance_value (floats: -0 equals +0, a NaN joins only a NaN); the background by value.
std::uint32_t label_tolerance_typed(const detail::Request& r, std::uint32_t* out);

}  // namespace cclabel::cpu
