#pragma once
// The CUDA labeller's entry points with their laboratory knobs: a Tuning (cuda/tuning.hpp) and
// events between the stages. The public calls (include/cclabel/cuda.hpp, cuda_stats.hpp) are these
// with the defaults; the tests run them with each switch and launch shape, the benchmarks time
// the stages. Implemented in label_cuda.cu. Needs the CUDA runtime headers.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cclabel/batch.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cuda/tuning.hpp"

namespace cclabel::cuda::detail {

/// Events recorded on the stream between the stages of one call (any may be null), for timing.
struct StageEvents {
    cudaEvent_t after_clear = nullptr;    ///< workspace counters zeroed
    cudaEvent_t after_start = nullptr;    ///< Start (and Connect, when fused)
    cudaEvent_t after_connect = nullptr;  ///< Connect
    cudaEvent_t after_scan = nullptr;     ///< prefix sum of the per-tile root counts (CUB)
    cudaEvent_t after_number = nullptr;   ///< Collapse + Number: the labels are final
    cudaEvent_t after_count = nullptr;    ///< Count (roots per Number tile), between Connect and the scan
};

/// cclabel::cuda::label_device with @p tuning, recording @p events (when not null) on the stream.
/// A tuning that cannot launch (a bad launch shape) throws cclabel::Error, on the size query too.
void label_device_tuned(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* labels,
                        std::uint32_t* count, const Options& options, cudaStream_t stream, const Tuning& tuning,
                        const StageEvents* events = nullptr);

/// cclabel::cuda::label_batch_device with @p tuning (Tuning::batch_stack_pixels sets the chunks).
void label_batch_device_tuned(void* workspace, std::size_t& workspace_bytes, const BatchView& batch,
                              std::uint32_t* labels, std::uint32_t* counts, const Options& options,
                              cudaStream_t stream, const Tuning& tuning);

/// The host API's CUDA path (what cclabel::label with Backend::Cuda runs, with the default tuning,
/// for a picture that fits the GPU): copies @p image in through pinned staging, labels it, copies
/// the labels back. Returns N.
std::uint32_t label_host(const ImageView& image, std::uint32_t* out, const Options& options = {},
                         const Tuning& tuning = {});

}  // namespace cclabel::cuda::detail
