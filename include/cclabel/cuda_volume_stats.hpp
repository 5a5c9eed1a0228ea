#pragma once
/// @file cuda_volume_stats.hpp
/// @brief Region statistics of 3-D label volumes already in GPU memory, asynchronously on the
/// caller's stream, with a queried workspace (as cclabel::cuda::regions_device does for pictures).
/// Needs the CUDA runtime headers; the library must be built with CUDA.
///
/// The output is an array of cclabel::VolumeRegionStats rows in device memory (104 bytes each, row l
/// for label l, row 0 the background), exactly what cclabel::regions_volume() returns on the host,
/// bit for bit (voxel count, 3-D bounding box, centroid from exact 64-bit sums, surface voxels over
/// the 6 face neighbours, value at the first voxel). Only the rows are written; no copy of the
/// volume or the labels is made and nothing waits for the GPU:
///
/// @code
///   cclabel::cuda::label_volume_device(ws, ws_bytes, d_volume, d_labels, d_count, options, stream);
///   std::size_t bytes = 0;
///   cclabel::cuda::regions_volume_device(nullptr, bytes, d_volume, d_labels, d_count, capacity, d_rows, options, stream);
///   ...   // allocate bytes
///   cclabel::cuda::regions_volume_device(d_ws, bytes, d_volume, d_labels, d_count, capacity, d_rows, options, stream);
/// @endcode
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cclabel/options.hpp"
#include "cclabel/volume.hpp"
#include "cclabel/volume_stats.hpp"

namespace cclabel::cuda {

/// Statistics of the label volume @p labels (device memory, width × height × depth uint32, packed,
/// z then y then x) of @p volume (device memory, any format and strides label_volume_device takes)
/// into @p stats (device memory, @p capacity rows).
///
/// @p count: device pointer to N (rows 0..min(N, capacity - 1) are written, nothing else), or null
/// (N = the largest label, found on the GPU first: one more read of the labels). Labels ≥ the row
/// count belong to no row: their voxels are not counted (with label_volume_device's count and
/// capacity ≥ N + 1 that never happens). options.connectivity must be 6, 18 or 26 (the surface is
/// always counted over the 6 face neighbours, as on the CPU); a tolerance is an Error; background,
/// backend and threads are not used.
///
/// With @p workspace null only sets @p workspace_bytes (a few hundred bytes, independent of the
/// volume) and returns. Throws cclabel::Error on invalid arguments (as regions_volume()), capacity 0,
/// a null @p stats, a too-small workspace, or a CUDA error. Time: O(voxels + min(N + 1, capacity)):
/// one pass over the labels with per-block sums in shared memory and one set of global atomics per
/// (block, label) pair.
void regions_volume_device(void* workspace, std::size_t& workspace_bytes, const VolumeView& volume,
                           const std::uint32_t* labels, const std::uint32_t* count, std::uint64_t capacity,
                           VolumeRegionStats* stats, const Options& options = {}, cudaStream_t stream = nullptr);

}  // namespace cclabel::cuda
