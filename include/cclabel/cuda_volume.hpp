#pragma once
/// @file cuda_volume.hpp
/// @brief The device API for 3-D volumes: label a volume that is already in GPU memory into a GPU
/// label buffer, asynchronously on the caller's stream, with a reusable workspace (as
/// cclabel::cuda::label_device does for pictures). Needs the CUDA runtime headers; the library must
/// be built with CUDA.
///
/// @code
///   std::size_t bytes = 0;
///   cclabel::cuda::label_volume_device(nullptr, bytes, d_volume, d_labels, d_count, options, stream);  // size query
///   cudaMalloc(&d_ws, bytes);
///   cclabel::cuda::label_volume_device(d_ws, bytes, d_volume, d_labels, d_count, options, stream);
/// @endcode
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cclabel/options.hpp"
#include "cclabel/volume.hpp"

namespace cclabel::cuda {

/// Labels @p volume on the GPU: the same labels as cclabel::label_volume on the CPU (1..N in raster
/// order of each region's first voxel, z then y then x; 0 for the background), so cc3d's.
///
/// With @p workspace null, only sets @p workspace_bytes to the size needed and returns; the size
/// depends on the format and the sizes only. Allocates nothing and never synchronises the host:
/// every step is enqueued on @p stream. A workspace may be reused by calls on one stream; calls on
/// different streams need their own. Every PixelFormat is taken; the typed ones (I8 to F64) become
/// keys on the device first, as label_device makes them (F16/F32 canonical bits; I64/U64/F64 the
/// rank of each value among the volume's distinct values, about 20 bytes a voxel of workspace).
///
/// @param workspace        device memory of at least @p workspace_bytes, or null for the size query.
/// @param workspace_bytes  in: the workspace's size; out (size query): the size needed.
/// @param volume           the voxels, in device memory: any format, row and slice strides in bytes
///                         (any alignment).
/// @param labels           device memory for width × height × depth uint32 labels, packed (z, then
///                         y, then x).
/// @param count            device memory for one uint32: N, the number of regions (background excluded).
/// @param options          connectivity 6, 18 or 26 (4 and 8 are an Error); background or
///                         background_value as for label_volume; tolerance must be 0. backend and
///                         threads are ignored.
/// @param stream           the stream every step is enqueued on.
/// @throws cclabel::Error on invalid arguments (as label_volume would), a null count, a too-small
/// workspace or a CUDA error (the message names the failing call). Errors of the asynchronous
/// kernels surface at the caller's next synchronisation.
void label_volume_device(void* workspace, std::size_t& workspace_bytes, const VolumeView& volume, std::uint32_t* labels,
                         std::uint32_t* count, const Options& options = {}, cudaStream_t stream = nullptr);

}  // namespace cclabel::cuda
