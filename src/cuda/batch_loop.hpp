#pragma once
// cclabel's own loop over a batch on the GPU: one cclabel::cuda::label_device call per image, all
// on one stream with one workspace. It is the baseline a batched kernel is measured against (issue
// 7: the batch must beat it 5x on 1,024 images of 128x128), and Backend::Cuda's batch path until
// that kernel exists.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::cuda {

/// Workspace bytes label_batch_loop() needs for @p images: the largest one image needs. Validates
/// every image as label_device does (throws Error).
std::size_t batch_loop_workspace_bytes(const std::vector<ImageView>& images, const Options& options,
                                       cudaStream_t stream = nullptr);

/// Enqueues on @p stream the labelling of every image of @p images (pixels in device memory; an
/// empty image may have a null pointer) into @p labels + label_offsets[b] (device memory, packed
/// width × height each) with N_b written to @p counts[b] (device memory). @p label_offsets is a
/// host array of images.size() entries (or more). Never synchronises the host. Throws Error.
void label_batch_loop(void* workspace, std::size_t workspace_bytes, const std::vector<ImageView>& images,
                      const std::uint64_t* label_offsets, std::uint32_t* labels, std::uint32_t* counts,
                      const Options& options = {}, cudaStream_t stream = nullptr);

}  // namespace cclabel::cuda
