#pragma once
// The seam between cclabel::adjacency (src/core/adjacency.cpp: validation and the backend's choice)
// and its backends: the CPU's banded pass (src/cpu/adjacency_cpu.cpp; volumes: adjacency3d_cpu.cpp) and the GPU's sort
// of boundary pairs (src/cuda/adjacency_cuda.cu; volumes: adjacency3d_cuda.cu; or
// src/core/no_cuda_adjacency.cpp without CUDA).
// Arguments are validated: sizes positive, stride ≥ width (in labels), labels not null.
#include <cstdint>
#include <vector>

#include "cclabel/adjacency.hpp"

namespace cclabel::detail {

/// On @p threads threads (≥ 1), bands of rows side by side.
std::vector<AdjacencyEdge> adjacency_cpu(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                         std::int64_t stride, int connectivity, bool include_background, int threads);

/// A label volume (src/cpu/adjacency3d_cpu.cpp): strides in labels, connectivity 6, 18 or 26, on
/// @p threads threads (≥ 1), bands of (z, y) rows side by side.
std::vector<AdjacencyEdge> adjacency3d_cpu(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                           std::int64_t depth, std::int64_t row_stride, std::int64_t slice_stride,
                                           int connectivity, bool include_background, int threads);

/// Labels in device memory are read in place; in host memory they are copied up first on
/// @p threads host threads (0: the default).
std::vector<AdjacencyEdge> adjacency_cuda(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                          std::int64_t stride, int connectivity, bool include_background,
                                          int threads);

/// A label volume on the GPU (src/cuda/adjacency3d_cuda.cu): strides in labels, connectivity 6, 18
/// or 26, sides below 2^31. Labels in device memory are read in place; in host memory they are
/// copied up first on @p threads host threads (0: the default).
std::vector<AdjacencyEdge> adjacency3d_cuda(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                            std::int64_t depth, std::int64_t row_stride, std::int64_t slice_stride,
                                            int connectivity, bool include_background, int threads);

/// Whether @p p points into device memory (false without CUDA).
bool on_device(const void* p) noexcept;

}  // namespace cclabel::detail
