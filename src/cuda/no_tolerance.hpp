#pragma once
// Tolerance joining (Options::tolerance) labels on the GPU through the pixel pipeline (for_tolerance
// in cuda/tuning.hpp), but the GPU's tiles join their seams by equal values only: label_tiled on the
// GPU refuses a tolerance here, before any device work, rather than split a stroke at a seam
// silently.
#include <cstdint>

#include "core/refuse_tolerance.hpp"

namespace cclabel::cuda::detail {

inline void reject_tolerance(std::uint32_t tolerance, const char* where) {
    ::cclabel::detail::refuse_tolerance(tolerance, "on the GPU (backend cuda)", "use backend cpu or auto", where);
}

}  // namespace cclabel::cuda::detail
