#pragma once
#include <cstdint>

#include "core/request.hpp"

namespace cclabel::cpu {

/// Labels a validated, non-empty request whose tolerance is above 0 into @p out (width × height,
/// packed): neighbours join when every channel differs by at most r.tolerance. Returns N.
std::uint32_t label_tolerance(const detail::Request& r, std::uint32_t* out);

}  // namespace cclabel::cpu
