#pragma once
// The seam between dispatch and the backends. The CUDA backend provides these when it is built;
// src/core/no_cuda.cpp provides them otherwise.
#include <cstdint>

#include "core/request.hpp"

namespace cclabel::detail {

/// True when a CUDA device can be used by this build.
bool cuda_device_present() noexcept;

/// Labels a validated, non-empty request on the GPU (host memory in and out). Throws Error.
std::uint32_t label_cuda_host(const Request& r, std::uint32_t* out);

/// Smallest image (pixels) for which Backend::Auto picks the GPU.
inline constexpr std::uint64_t kAutoCudaMinPixels = std::uint64_t(1) << 20;

/// @p b with Auto resolved for a job whose largest single launch has @p pixels: the GPU when one is
/// present and the job is large enough to win, else the CPU. Every entry point resolves Auto here.
inline Backend resolve_auto(Backend b, std::uint64_t pixels) {
    if (b != Backend::Auto) return b;
    return pixels >= kAutoCudaMinPixels && cuda_device_present() ? Backend::Cuda : Backend::Cpu;
}

}  // namespace cclabel::detail

namespace cclabel::detail {

struct BatchRequest;  // core/batch_request.hpp

/// Labels a validated batch on the GPU, host memory in and out: labels at out + label_offsets[b],
/// N_b into counts[b] (B values). Throws Error (no device, CUDA errors, not built with CUDA).
void cuda_label_batch(const BatchRequest& r, std::uint32_t* out, std::uint32_t* counts);

}  // namespace cclabel::detail
