// Linked when the library is built without the CUDA backend.
#include "cclabel/error.hpp"
#include "core/backends.hpp"

namespace cclabel::detail {

bool cuda_device_present() noexcept { return false; }

std::size_t free_device_cache() noexcept { return 0; }

std::optional<GpuHostRate> measure_cuda_host_rate() noexcept { return std::nullopt; }

std::uint32_t label_cuda_host(const Request&, std::uint32_t*) {
    throw Error("backend cuda is not available: this build of cclabel has no CUDA backend");
}

}  // namespace cclabel::detail
