#pragma once
#include <cstdint>

#include "core/request.hpp"

namespace cclabel::cpu {

/// Labels a validated, non-empty request into @p out (width × height, packed); returns N.
std::uint32_t label(const detail::Request& r, std::uint32_t* out);

}  // namespace cclabel::cpu
