#pragma once
// The seam between label_tiled() and the GPU's streamed tile pipeline (src/cuda/tiles_cuda.cu);
// src/core/no_cuda_tiles.cpp stands in for it in a build without CUDA.
#include <cstdint>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::detail {

/// Labels a validated, non-empty image in tiles of @p tile_w × @p tile_h (already clipped to the
/// image) on the current CUDA device, streamed, and sets @p count. Returns false, having written
/// nothing, when the labelled tiles do not fit in the device's free memory (the caller then takes
/// the tiles one at a time). Throws Error on CUDA errors.
bool cuda_label_tiled(const ImageView& image, std::uint32_t* out, const Options& options, std::int64_t tile_w,
                      std::int64_t tile_h, std::uint64_t& count);
bool cuda_label_tiled(const ImageView& image, std::uint64_t* out, const Options& options, std::int64_t tile_w,
                      std::int64_t tile_h, std::uint64_t& count);

}  // namespace cclabel::detail
