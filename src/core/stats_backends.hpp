#pragma once
// The seam between the statistics/filter entry points (src/core/stats_dispatch.cpp) and their
// backends: the CPU versions (src/cpu/stats_cpu.cpp, src/cpu/filter_cpu.cpp) and the CUDA host
// paths (src/cuda/stats_cuda.cu, or src/core/no_cuda_stats.cpp when CUDA is not built).
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/stats.hpp"

namespace cclabel::detail {

/// Validates a filter call's label image (the errors of remove_small) and returns its pixel count.
/// With @p allow_null a null pointer passes (size queries).
std::uint64_t filter_pixels(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                            bool allow_null = false);

std::vector<RegionStats> regions_cpu(const ImageView& image, const std::uint32_t* labels, const Options& options);
std::uint32_t remove_small_cpu(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::uint64_t min_area);
std::uint32_t keep_largest_cpu(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::uint32_t k);

/// Throws the Error that says why Backend::Cuda cannot run (no CUDA build, or no device).
[[noreturn]] void cuda_stats_unavailable();

/// The CUDA paths for host memory (copy in, compute, copy out). Non-empty, validated inputs; they
/// throw Error without a device.
std::vector<RegionStats> regions_cuda_host(const ImageView& image, const std::uint32_t* labels, const Options& options);
std::uint32_t label_regions_cuda_host(const ImageView& image, std::uint32_t* out, const Options& options,
                                      std::vector<RegionStats>& stats);
std::uint32_t filter_cuda_host(std::uint32_t* labels, std::int64_t width, std::int64_t height, bool largest,
                               std::uint64_t min_area, std::uint32_t k);

}  // namespace cclabel::detail
