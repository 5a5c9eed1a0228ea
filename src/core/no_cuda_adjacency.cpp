// Linked when the library is built without the CUDA backend: the adjacency graph's GPU path says so.
#include "cclabel/error.hpp"
#include "core/adjacency_backends.hpp"

namespace cclabel::detail {

std::vector<AdjacencyEdge> adjacency_cuda(const std::uint32_t*, std::int64_t, std::int64_t, std::int64_t, int, bool,
                                          int) {
    throw Error("adjacency: backend cuda is not available: this build of cclabel has no CUDA backend");
}

std::vector<AdjacencyEdge> adjacency3d_cuda(const std::uint32_t*, std::int64_t, std::int64_t, std::int64_t,
                                            std::int64_t, std::int64_t, int, bool, int) {
    throw Error("adjacency: backend cuda is not available: this build of cclabel has no CUDA backend");
}

bool on_device(const void*) noexcept { return false; }

}  // namespace cclabel::detail
