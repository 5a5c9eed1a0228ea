#pragma once
// The seam between segmentation's public functions (src/core/segment.cpp) and its backends: the CPU
// (src/cpu/threshold_cpu.cpp, kmeans_cpu.cpp) and CUDA (src/cuda/segment_cuda.cu, or the stand-ins
// of src/core/no_cuda_segment.cpp). Arguments arrive validated and non-empty.
#include <cstdint>

#include "cclabel/segment.hpp"
#include "cuda/kernels/segment_bodies.cuh"

namespace cclabel::detail {

/// The histogram of the values thresholding reads (seg::histogram_bins(format) counts).
void histogram_cpu(const seg::Picture& p, int threads, std::uint32_t* hist);
/// Otsu's threshold of a histogram (see segment.hpp).
std::uint32_t otsu_from_histogram(const std::uint32_t* hist, std::uint32_t bins);
void threshold_cpu(const seg::Picture& p, int threads, std::uint32_t t, std::uint8_t* mask);
KMeansResult kmeans_cpu(const seg::Picture& p, int threads, std::uint32_t* clusters, const KMeansOptions& options);

/// The CUDA path with host memory in and out.
std::uint32_t otsu_cuda_host(const seg::Picture& p);
void threshold_cuda_host(const seg::Picture& p, std::uint32_t t, std::uint8_t* mask);
KMeansResult kmeans_cuda_host(const seg::Picture& p, std::uint32_t* clusters, const KMeansOptions& options);

}  // namespace cclabel::detail
