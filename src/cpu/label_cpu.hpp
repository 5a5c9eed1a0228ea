#pragma once
#include <cstdint>

#include "core/request.hpp"
#include "cpu/tuning.hpp"

namespace cclabel::cpu {

/// Labels a validated, non-empty request into @p out (width × height, packed); returns N.
std::uint32_t label(const detail::Request& r, std::uint32_t* out, const Switches& switches = {});

/// Whether label() takes the run-length path for @p r (Switches::run_length and rows sampled to
/// hold long runs), so that tests can tell which path their pictures exercise.
bool uses_run_length(const detail::Request& r, const Switches& switches = {});

}  // namespace cclabel::cpu
