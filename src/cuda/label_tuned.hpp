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
#include "core/request.hpp"
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
/// Validates @p image and @p options into a Request, then runs the Request overload.
void label_device_tuned(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* labels,
                        std::uint32_t* count, const Options& options, cudaStream_t stream, const Tuning& tuning,
                        const StageEvents* events = nullptr);

/// The same for a request validated already (make_request; its data the picture in device memory),
/// so that a caller holding one (the host path) does not validate twice. A null @p labels is not
/// caught here: make_request checked the buffer it was given (the host path's is in host memory).
void label_device_tuned(void* workspace, std::size_t& workspace_bytes, const cclabel::detail::Request& r,
                        std::uint32_t* labels, std::uint32_t* count, cudaStream_t stream, const Tuning& tuning,
                        const StageEvents* events = nullptr);

/// cclabel::cuda::label_batch_device with @p tuning (Tuning::batch_stack_pixels sets the chunks).
void label_batch_device_tuned(void* workspace, std::size_t& workspace_bytes, const BatchView& batch,
                              std::uint32_t* labels, std::uint32_t* counts, const Options& options,
                              cudaStream_t stream, const Tuning& tuning);

/// The host API's CUDA path (what cclabel::label with Backend::Cuda runs, with the default tuning,
/// for a picture that fits the GPU): copies the request's picture (host memory) in through pinned
/// staging, labels it, copies the labels back to @p out (host memory). Returns N.
/// @p copy_threads: the staging ring's threads as Options::threads asks them (0: every core but one,
/// host::copy_threads). Not the request's threads: those are resolved for the CPU labeller, one for
/// a small picture, while label() stages with every core but one.
std::uint32_t label_host(const cclabel::detail::Request& r, std::uint32_t* out, const Tuning& tuning = {},
                         int copy_threads = 0);

/// The same for an unvalidated call: make_request, then the Request overload (the tests' and the
/// probes' entry, with Options::threads as the copies' threads).
std::uint32_t label_host(const ImageView& image, std::uint32_t* out, const Options& options = {},
                         const Tuning& tuning = {});

}  // namespace cclabel::cuda::detail
