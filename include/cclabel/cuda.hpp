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
#include "cclabel/detail/cuda_tuning.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::cuda {

/// Events recorded on the stream between the stages of one call (any may be null), for timing.
struct StageEvents {
    cudaEvent_t after_clear = nullptr;    ///< workspace counters zeroed
    cudaEvent_t after_start = nullptr;    ///< Start (and Connect, when fused)
    cudaEvent_t after_connect = nullptr;  ///< Connect
    cudaEvent_t after_scan = nullptr;     ///< prefix sum of the per-tile root counts (CUB)
    cudaEvent_t after_number = nullptr;   ///< Collapse + Number: the labels are final
    cudaEvent_t after_count = nullptr;    ///< Count (roots per Number tile), between Connect and the scan
};

/// Labels @p image (its data pointer is device memory; any base alignment and stride) into
/// @p labels (device memory, width × height uint32, row-major, packed) and writes the region count
/// N (background excluded) to @p count (device memory). Same labels as cclabel::label() on the CPU.
///
/// With @p workspace null, only sets @p workspace_bytes to the size needed and returns. Otherwise
/// @p workspace_bytes must be at least that size. Allocates nothing, never synchronises the host:
/// every step is enqueued on @p stream. A workspace may be reused by calls on one stream; calls on
/// different streams need their own. options.backend and options.threads are ignored.
///
/// @throws cclabel::Error on invalid arguments (as cclabel::label would), a too-small workspace, or
/// any CUDA error (the message names the failing call). Errors of the asynchronous kernels surface
/// at the caller's next synchronisation.
void label_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* labels,
                  std::uint32_t* count, const Options& options = {}, cudaStream_t stream = nullptr,
                  const Tuning& tuning = {}, const StageEvents* events = nullptr);

/// Labels the B images of @p batch (pixels in device memory) into @p labels (device memory,
/// B × height × width uint32; image b's at labels + b · height · width), each numbered 1..N_b on its
/// own exactly as label_device numbers one image, and writes N_b to @p counts[b] (device memory,
/// B entries). Packed images (batch_stride 0 or height × the row stride) are stacked into one
/// picture and labelled in one set of launches (as many images a set as stay under 2^31 pixels),
/// with no join across an image's first row and each image's roots numbered from its own base;
/// other layouts, and images of 2^31 pixels or more, take one label_device call an image.
/// Workspace, size query, stream and errors as label_device; the host is never synchronised.
void label_batch_device(void* workspace, std::size_t& workspace_bytes, const BatchView& batch, std::uint32_t* labels,
                        std::uint32_t* counts, const Options& options = {}, cudaStream_t stream = nullptr,
                        const Tuning& tuning = {});

/// The host API's CUDA path with a launch tuning (what cclabel::label with Backend::Cuda runs with
/// the default tuning): copies @p image in through pinned staging, labels it, copies the labels
/// back. Returns N.
std::uint32_t label_host(const ImageView& image, std::uint32_t* out, const Options& options = {},
                         const Tuning& tuning = {});

}  // namespace cclabel::cuda
