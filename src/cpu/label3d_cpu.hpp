#pragma once
#include <cstdint>

#include "core/volume_request.hpp"

namespace cclabel::cpu {

/// Labels a validated, non-empty volume request of Binary8, Gray8, Gray16, U32, RGB8 or RGBA8 into
/// @p out (width × height × depth, packed); returns N.
std::uint32_t label_volume(const detail::VolumeRequest& r, std::uint32_t* out);

/// The same with r.tolerance above 0 (cpu/tolerance3d_cpu.cpp): neighbours join when every
/// channel differs by at most the tolerance. Binary8 ignores it.
std::uint32_t label_volume_tolerance(const detail::VolumeRequest& r, std::uint32_t* out);

}  // namespace cclabel::cpu
