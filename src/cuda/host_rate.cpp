// The GPU host path's rates for Backend::Auto (core/cost_model.hpp): measured by running the path
// (and its staging ring for the copy rate) itself on probe pictures, so that its fixed cost (allocations, staging, launches, the final
// synchronisation) and its copies are what the model weighs, not a card's data sheet.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "core/backends.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/label_tuned.hpp"
#include "core/probe.hpp"

namespace cclabel::detail {

std::optional<GpuHostRate> measure_cuda_host_rate() noexcept {
    try {
        if (!cuda_device_present()) return std::nullopt;
        // Copies: 64 MiB of pageable memory each way (the memory users' pictures are in) through the
        // path's own staging ring with all the cores the path would use.
        const std::size_t bytes = std::size_t(64) << 20;
        const double t_copy = cuda::host::staged_round_trip_seconds(bytes, cuda::host::copy_threads(0));
        GpuHostRate rate;
        rate.per_byte_s = t_copy / double(2 * bytes);

        // The path: a small and a large Gray8 probe through cuda::detail::label_host (what label() runs).
        auto path = [](std::int64_t side) {
            const std::vector<std::uint8_t> px = probe_picture(PixelFormat::Gray8, side, side);
            std::vector<std::uint32_t> labels(std::size_t(side) * std::size_t(side));
            const ImageView view = make_view(px.data(), side, side, PixelFormat::Gray8);
            cuda::detail::label_host(view, labels.data());
            return best_seconds(3, [&] { cuda::detail::label_host(view, labels.data()); });
        };
        const double small = 256.0 * 256.0, large = 2048.0 * 2048.0;
        const double ts = path(256), tl = path(2048);
        const double per_pixel_all = std::max(0.0, (tl - ts) / (large - small));
        const Workload gray{Workload::Op::Label, 1, PixelFormat::Gray8, 1};
        rate.per_pixel_s = std::max(0.0, per_pixel_all - double(bytes_per_pixel_moved(gray)) * rate.per_byte_s);
        rate.fixed_s = std::max(0.0, ts - small * per_pixel_all);
        return rate;
    } catch (...) {
        cudaGetLastError();
        return std::nullopt;
    }
}

}  // namespace cclabel::detail
