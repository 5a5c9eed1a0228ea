#pragma once
// What the GPU's region adjacency graphs of pictures (adjacency_cuda.cu) and of label volumes
// (adjacency3d_cuda.cu) share: the host's half after the tile kernel. The tile kernel puts
// (pair, contacts) items out (kernels/adjacency_bodies.cuh, kernels/adjacency3d_bodies.cuh);
// edges_of_items sizes their buffer, runs the kernel (again into a larger buffer when the first
// guess was short), sorts and sums the items by pair and brings the edges down.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cuda/kernels/adjacency_bodies.cuh"

namespace cclabel::cuda::detail {

/// The edges from the items that @p run_tiles puts out: it launches the tile kernel on @p stream
/// into the AdjOut it is given (tally zeroed, capacity from @p elements, the pixels or voxels, and
/// @p items_an_element, the last call's items an element, which this call updates), and may be
/// called again with a larger buffer. Waits for @p stream; @p threads host threads fault the
/// result's memory in. CCLABEL_TRACE_ADJACENCY prints each step's time.
std::vector<AdjacencyEdge> edges_of_items(std::uint64_t elements, std::atomic<double>& items_an_element,
                                          cudaStream_t stream, int threads,
                                          const std::function<void(const AdjOut&)>& run_tiles);

/// Blocks of @p threads threads of @p kernel that are resident on the current device at once, at
/// most @p tiles and at least 1: the tile kernels' grids (their blocks take tiles from a counter).
unsigned grid_for(const void* kernel, std::uint32_t threads, std::uint64_t tiles);

}  // namespace cclabel::cuda::detail
