// Segmentation's CUDA entry points when the library is built without the CUDA backend.
#include <string>

#include "cclabel/error.hpp"
#include "core/segment_backends.hpp"

namespace cclabel::detail {

namespace {
[[noreturn]] void no_cuda(const char* what) {
    throw Error(std::string(what) + ": backend cuda is not available: this build of cclabel has no CUDA backend");
}
}  // namespace

std::uint32_t otsu_cuda_host(const seg::Picture&) { no_cuda("otsu_threshold"); }
void threshold_cuda_host(const seg::Picture&, std::uint32_t, std::uint8_t*) { no_cuda("threshold"); }
KMeansResult kmeans_cuda_host(const seg::Picture&, std::uint32_t*, const KMeansOptions&) { no_cuda("kmeans"); }

}  // namespace cclabel::detail
