#pragma once
// The volume labeller's GPU seam: src/cuda/volume_cuda.cu provides it when the CUDA backend is
// built, src/core/no_cuda_volume.cpp otherwise.
#include <cstdint>

#include "cclabel/options.hpp"
#include "cclabel/volume.hpp"

namespace cclabel::detail {

/// Labels a validated volume on the GPU, host memory in and out (uploaded packed, labelled by
/// cuda::label_volume_device, downloaded); N. Throws Error (no device, CUDA errors, not built
/// with CUDA).
std::uint32_t label_volume_cuda_host(const VolumeView& volume, std::uint32_t* out, const Options& options);

}  // namespace cclabel::detail
