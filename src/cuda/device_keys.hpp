#pragma once
// The typed formats (I8 to F64) on the device API: each call's pictures become key pictures
// (Gray8, Gray16 or U32) on the device, on the caller's stream, and the labeller runs on those
// (kernels/key_bodies.cuh says how the keys are made). The workspace is laid out
//   [the key pictures, packed] [the labeller's workspace, or the sort of the 64-bit values]
// (the sort is done before the labeller starts, so the two share their bytes), and its size is a
// function of the format and the sizes only. I8, I16 and I32 are re-typed views of the caller's
// memory: no key pictures, no work. Implemented in device_keys.cu. Needs the CUDA runtime headers.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cclabel/batch.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/stats.hpp"
#include "cuda/label_tuned.hpp"

namespace cclabel::cuda::detail {

/// label_device_tuned for a typed @p image: its keys, then label_device_tuned on them.
void label_typed_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* labels,
                        std::uint32_t* count, const Options& options, cudaStream_t stream, const Tuning& tuning,
                        const StageEvents* events);

/// label_batch_device_tuned for a typed @p batch: one key map for the call's images (as the host
/// batch; per run of images of at most 2^32 - 1 pixels for 64-bit values), the keys written as a
/// packed batch, then label_batch_device_tuned on them.
void label_batch_typed_device(void* workspace, std::size_t& workspace_bytes, const BatchView& batch,
                              std::uint32_t* labels, std::uint32_t* counts, const Options& options,
                              cudaStream_t stream, const Tuning& tuning);

/// After regions_device's rows of a typed picture of format @p f are written: their value words
/// made canonical (F16, F32, F64; nothing to do for the integers, whose bits the rows hold as they
/// are). Rows 0..min(*count + 1, capacity) - 1, or all @p capacity rows when @p count is null.
void canonical_row_values(PixelFormat f, RegionStats* rows, const std::uint32_t* count, std::uint64_t capacity,
                          cudaStream_t stream);

}  // namespace cclabel::cuda::detail
