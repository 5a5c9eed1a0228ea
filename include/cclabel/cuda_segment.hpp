#pragma once
/// @file cuda_segment.hpp
/// @brief The device API of segmentation (see segment.hpp for the definitions): Otsu's threshold,
/// thresholding and K-means of a picture already in GPU memory, asynchronously on the caller's
/// stream with a queried workspace, like cclabel::cuda::label_device. Nothing here synchronises
/// the host, so Otsu → threshold → label_device chain on one stream without a round trip.
///
/// @code
///   std::size_t bytes = 0;
///   cclabel::cuda::otsu_threshold_device(nullptr, bytes, d_view, d_t, stream);   // size query
///   cudaMalloc(&d_ws, bytes);
///   cclabel::cuda::otsu_threshold_device(d_ws, bytes, d_view, d_t, stream);
///   cclabel::cuda::threshold_device(d_view, d_t, d_mask, stream);               // t read on the GPU
///   cclabel::cuda::label_device(..., mask_view, d_labels, d_count, options, stream);
/// @endcode
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cclabel/image_view.hpp"
#include "cclabel/segment.hpp"

namespace cclabel::cuda {

/// Writes Otsu's threshold of @p image (device memory; Gray8, Gray16, RGB8, RGBA8; any stride) to
/// @p threshold (one uint32 in device memory): the value cclabel::otsu_threshold returns. With
/// @p workspace null, only sets @p workspace_bytes. Enqueued on @p stream; never synchronises.
/// @throws cclabel::Error on bad arguments (as otsu_threshold), a too-small workspace or a CUDA error.
void otsu_threshold_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image,
                           std::uint32_t* threshold, cudaStream_t stream = nullptr);

/// Writes the mask of @p image (device memory) at the threshold stored in device memory at
/// @p threshold (e.g. by otsu_threshold_device) to @p mask (device memory, width × height bytes,
/// packed): 1 where value > t, else 0, as cclabel::threshold. Needs no workspace.
void threshold_device(const ImageView& image, const std::uint32_t* threshold, std::uint8_t* mask,
                      cudaStream_t stream = nullptr);

/// The same with the threshold given by value.
void threshold_device(const ImageView& image, std::uint32_t t, std::uint8_t* mask, cudaStream_t stream = nullptr);

/// What kmeans_device writes to device memory besides the clusters and the centres.
struct KMeansDeviceInfo {
    std::uint32_t iterations;  ///< centre updates performed
    std::uint32_t converged;   ///< 1 when the last assignment changed no pixel
};

/// K-means of @p image (device memory; RGB8, RGBA8, Gray8) as cclabel::kmeans: @p clusters (device,
/// width × height uint32), @p centres (device, k × 3 uint32 fixed-point values, 16 × the channel
/// level, R G B per centre; Gray8 fills channel 0 and zeros), @p info (device, may be null). With
/// @p workspace null only sets @p workspace_bytes (which depends on options.k only). The early stop
/// is decided on the GPU: the remaining iterations' kernels still launch and return at once.
/// options.backend and options.threads are ignored.
void kmeans_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* clusters,
                   std::uint32_t* centres, KMeansDeviceInfo* info, const KMeansOptions& options,
                   cudaStream_t stream = nullptr);

}  // namespace cclabel::cuda
