#pragma once
// The CUDA kernels compare keys for equality only: tolerance joining (Options::tolerance) runs on
// the CPU for now, and every host entry of the CUDA backend that labels refuses it here, before any
// device work, rather than give exact-value labels silently. Backend::Auto is to take the CPU when
// a tolerance is set.
#include <cstdint>

#include "core/refuse_tolerance.hpp"

namespace cclabel::cuda::detail {

inline void reject_tolerance(std::uint32_t tolerance, const char* where) {
    ::cclabel::detail::refuse_tolerance(tolerance, "on the GPU (backend cuda)", "use backend cpu or auto", where);
}

}  // namespace cclabel::cuda::detail
