#pragma once
// The volume device API with its launch shape as a parameter: for the benchmark's tile sweeps
// (bench/cuda/bench_volume.cpp); the public call (cclabel/cuda_volume.hpp) passes VolumeShape{}.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cclabel/options.hpp"
#include "cclabel/volume.hpp"
#include "cuda/volume_plan.hpp"

namespace cclabel::cuda::detail {

/// Events recorded on the stream after each step of a call (null members are skipped): the
/// benchmark's per-step times. Keys of typed formats are made before the first.
struct VolumeEvents {
    cudaEvent_t start = nullptr, after_local = nullptr, after_border = nullptr, after_flatten = nullptr,
                after_number = nullptr;
};

void label_volume_device_shaped(void* workspace, std::size_t& workspace_bytes, const VolumeView& volume,
                                std::uint32_t* labels, std::uint32_t* count, const Options& options,
                                cudaStream_t stream, const VolumeShape& shape, const VolumeEvents* events = nullptr);

}  // namespace cclabel::cuda::detail
