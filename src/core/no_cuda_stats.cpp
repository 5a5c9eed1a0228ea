// Linked when the library is built without the CUDA backend: the statistics' CUDA paths say so.
#include "cclabel/error.hpp"
#include "core/stats_backends.hpp"

namespace cclabel::detail {
void cuda_stats_unavailable() { throw Error("backend cuda is not available: this build of cclabel has no CUDA backend"); }

std::vector<RegionStats> regions_cuda_host(const ImageView&, const std::uint32_t*, const Options&) { cuda_stats_unavailable(); }
std::uint32_t label_regions_cuda_host(const ImageView&, std::uint32_t*, const Options&, std::vector<RegionStats>&) {
    cuda_stats_unavailable();
}
std::uint32_t filter_cuda_host(std::uint32_t*, std::int64_t, std::int64_t, bool, std::uint64_t, std::uint32_t) {
    cuda_stats_unavailable();
}

}  // namespace cclabel::detail
