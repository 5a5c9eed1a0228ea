#pragma once
/// @file cuda.hpp
/// @brief The device API: label a picture that is already in GPU memory into a GPU label buffer,
/// asynchronously on the caller's stream, with a reusable workspace (the shape of CUB's device
/// algorithms). Needs the CUDA runtime headers; the library must be built with CUDA.
///
/// @code
///   std::size_t bytes = 0;
///   cclabel::cuda::label_device(nullptr, bytes, d_view, d_labels, d_count, options, stream);  // size query
///   cudaMalloc(&d_ws, bytes);
///   for (...) cclabel::cuda::label_device(d_ws, bytes, d_view, d_labels, d_count, options, stream);
/// @endcode
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cclabel/batch.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::cuda {

/// Labels @p image (its data pointer is device memory; any base alignment and stride) into
/// @p labels (device memory, width × height uint32, row-major, packed) and writes the region count
/// N (background excluded) to @p count (device memory). Same labels as cclabel::label() on the CPU.
///
/// With @p workspace null, only sets @p workspace_bytes to the size needed and returns. Otherwise
/// @p workspace_bytes must be at least that size. Allocates nothing, never synchronises the host:
/// every step is enqueued on @p stream. A workspace may be reused by calls on one stream; calls on
/// different streams need their own. options.backend and options.threads are ignored.
///
/// Every PixelFormat is taken, the typed ones (I8 to F64) included: their equality keys are made
/// on the device first, into the workspace (I8/I16/I32: none, the bytes are read as they are;
/// F16/F32: canonical bits, 2 or 4 bytes a pixel; I64/U64/F64: the rank of each value among the
/// picture's distinct values, after a CUB sort, about 20 bytes a pixel), still with no host
/// synchronisation, and the workspace size still depends on the format and the sizes only.
///
/// @throws cclabel::Error on invalid arguments (as cclabel::label would), a too-small workspace, or
/// any CUDA error (the message names the failing call). Errors of the asynchronous kernels surface
/// at the caller's next synchronisation.
void label_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* labels,
                  std::uint32_t* count, const Options& options = {}, cudaStream_t stream = nullptr);

/// Labels the B images of @p batch (pixels in device memory) into @p labels (device memory,
/// B × height × width uint32; image b's at labels + b · height · width), each numbered 1..N_b on its
/// own exactly as label_device numbers one image, and writes N_b to @p counts[b] (device memory,
/// B entries). Packed images (batch_stride 0 or height × the row stride) are stacked into one
/// picture and labelled in one set of launches (as many images a set as stay under 2^31 pixels),
/// with no join across an image's first row and each image's roots numbered from its own base;
/// other layouts, and images of 2^31 pixels or more, take one label_device call an image. The typed
/// formats' keys are made for the whole batch at once (one map a call, as label_batch) and labelled
/// as a packed batch.
/// Workspace, size query, stream and errors as label_device; the host is never synchronised.
void label_batch_device(void* workspace, std::size_t& workspace_bytes, const BatchView& batch, std::uint32_t* labels,
                        std::uint32_t* counts, const Options& options = {}, cudaStream_t stream = nullptr);

}  // namespace cclabel::cuda
