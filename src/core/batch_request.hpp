#pragma once
// A batch call after validation: every image checked as label() checks one, the output offsets
// computed. Both batch forms become this, so each backend has one batch entry point; `uniform`
// tells a batched GPU kernel that it may index the images as one (B, H, W) grid.
#include <cstdint>
#include <vector>

#include "cclabel/batch.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::detail {

struct BatchRequest {
    std::vector<ImageView> images;             ///< each valid for label() (stride resolved, never 0 when non-empty)
    std::vector<std::uint64_t> label_offsets;  ///< B + 1: image b's labels at out + label_offsets[b]
    bool uniform = false;                      ///< one size, image b at images[0].data + b · batch_stride
    std::int64_t batch_stride = 0;             ///< resolved (uniform only)
    Options options;                           ///< validated; threads resolved (≥ 1)
};

BatchRequest make_batch_request(const BatchView& batch, const std::uint32_t* out, const Options& options);
BatchRequest make_batch_request(const RaggedBatchView& batch, const std::uint32_t* out, const Options& options);

}  // namespace cclabel::detail
