#pragma once
// The seam between dispatch and the backends. The CUDA backend provides these when it is built;
// src/core/no_cuda.cpp provides them otherwise.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/cost_model.hpp"
#include "core/request.hpp"

namespace cclabel::detail {

/// True when a CUDA device can be used by this build.
bool cuda_device_present() noexcept;

/// Labels a validated, non-empty request on the GPU (host memory in and out). Throws Error.
std::uint32_t label_cuda_host(const Request& r, std::uint32_t* out);

/// @p b with Auto resolved for @p w by the cost model (core/cost_model.hpp, core/auto_rates.cpp):
/// the CPU without a device, else whichever backend this machine's measured rates say is faster.
/// Every entry point resolves Auto here. Throws Error for a malformed CCLABEL_RATES.
Backend resolve_auto(Backend b, const Workload& w);
struct AutoTicket;  // core/auto_feedback.hpp
/// resolve_auto for a caller that reports back what the call took (@p ticket's done(seconds)):
/// the estimates are corrected by earlier calls of the kind, and a close call now and then runs on
/// the backend the estimates did not pick (core/auto_feedback.hpp).
Backend resolve_auto(Backend b, const Workload& w, AutoTicket* ticket);
/// Measures the GPU host path's rate now, if Auto will need it and it is not cached yet, so that a
/// caller with idle cores (the CLI while it decodes) pays for the device's start-up and the probes
/// off the critical path. Never throws; does nothing without a device or with CCLABEL_RATES set.
void measure_auto_rates_ahead() noexcept;

/// Frees the device memory that host-memory GPU calls keep for the next call (cuda/device_cache.hpp);
/// returns its bytes (0 without the CUDA backend).
std::size_t free_device_cache() noexcept;

/// The GPU host path's rates on this machine (core/cost_model.hpp), measured by running it on probe
/// pictures; nullopt without a device, without the CUDA backend, or when the measurement failed.
std::optional<GpuHostRate> measure_cuda_host_rate() noexcept;

}  // namespace cclabel::detail

namespace cclabel::detail {

struct BatchRequest;  // core/batch_request.hpp

/// Labels a validated batch on the GPU, host memory in and out: labels at out + label_offsets[b],
/// N_b into counts[b] (B values). Throws Error (no device, CUDA errors, not built with CUDA).
void cuda_label_batch(const BatchRequest& r, std::uint32_t* out, std::uint32_t* counts);

}  // namespace cclabel::detail
