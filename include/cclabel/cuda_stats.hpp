#pragma once
/// @file cuda_stats.hpp
/// @brief Region statistics and filters of label images already in GPU memory, asynchronously on
/// the caller's stream, with a queried workspace (as cclabel::cuda::label_device). Needs the CUDA
/// runtime headers; the library must be built with CUDA.
///
/// The output is an array of cclabel::RegionStats rows in device memory (80 bytes each, row l for
/// label l, row 0 the background), exactly what cclabel::regions() returns on the host, bit for bit.
/// The number of rows need not be known on the host: give the labeller's device count N and a
/// capacity (rows the output array holds); rows 0..min(N, capacity - 1) are written, nothing else,
/// and nothing waits for the GPU:
///
/// @code
///   cclabel::cuda::label_device(ws, ws_bytes, d_view, d_labels, d_count, options, stream);
///   std::size_t bytes = 0;
///   cclabel::cuda::regions_device(nullptr, bytes, d_view, d_labels, d_count, capacity, d_rows, options, stream);
///   ...   // allocate bytes (or use cclabel::cuda::label_regions_device: one workspace for both)
///   cclabel::cuda::regions_device(d_ws, bytes, d_view, d_labels, d_count, capacity, d_rows, options, stream);
/// @endcode
///
/// Labels ≥ the row count (N + 1, capped at the capacity) belong to no row: their pixels are not
/// counted. With a count from label_device over the same picture and capacity ≥ N + 1 that never
/// happens. A label image of unknown N: pass count = nullptr and the largest label is found on the
/// GPU first (one more read of the labels).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/stats.hpp"

namespace cclabel::cuda {

/// Statistics of the label image @p labels (device memory, width × height uint32, row-major,
/// packed) of @p image (device memory, any stride) into @p stats (device memory, @p capacity rows).
/// @p count: device pointer to N (rows 0..N are written), or null (N = the largest label). The
/// perimeter uses options.connectivity; background, backend and threads are not used. Typed
/// formats (I8 to F64) report their value as regions() does (the bits in the image's own type,
/// zero-extended; floats canonical).
///
/// With @p workspace null only sets @p workspace_bytes (a few hundred bytes) and returns; the size
/// depends on nothing but the build. Throws cclabel::Error on invalid arguments (as regions()),
/// capacity 0 for a non-empty image, a too-small workspace, or a CUDA error. Time: O(pixels +
/// min(N + 1, capacity)); a pass over the labels with per-block partial sums in shared memory and
/// one set of global atomics per (block, label) pair.
void regions_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image,
                    const std::uint32_t* labels, const std::uint32_t* count, std::uint64_t capacity,
                    RegionStats* stats, const Options& options = {}, cudaStream_t stream = nullptr);

/// label_device and then regions_device of its labels and count, on one stream with one workspace
/// (the larger of the two, since they run one after the other): no host synchronisation between
/// them. The statistics pass is separate from the labelling kernels (it reads the final labels);
/// what the one call saves is the second workspace and, for the host API, the copies.
void label_regions_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image,
                          std::uint32_t* labels, std::uint32_t* count, std::uint64_t capacity, RegionStats* stats,
                          const Options& options = {}, cudaStream_t stream = nullptr);

/// remove_small() on the GPU: pixels of labels with fewer than @p min_area pixels become 0, the
/// others are renumbered 1..M in raster order of their first pixel, in place; M is written to
/// @p new_count (device memory). @p count / @p capacity as for regions_device (labels ≥ the row
/// count become 0). The workspace depends on @p capacity (about 110 bytes a row). Time:
/// O(pixels + capacity) (two radix sorts over the capacity rows).
void remove_small_device(void* workspace, std::size_t& workspace_bytes, std::uint32_t* labels, std::int64_t width,
                         std::int64_t height, const std::uint32_t* count, std::uint64_t capacity,
                         std::uint64_t min_area, std::uint32_t* new_count, cudaStream_t stream = nullptr);

/// keep_largest() on the GPU (ties of area broken by the earlier first pixel); otherwise as
/// remove_small_device.
void keep_largest_device(void* workspace, std::size_t& workspace_bytes, std::uint32_t* labels, std::int64_t width,
                         std::int64_t height, const std::uint32_t* count, std::uint64_t capacity, std::uint32_t k,
                         std::uint32_t* new_count, cudaStream_t stream = nullptr);

}  // namespace cclabel::cuda
