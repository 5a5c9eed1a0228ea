// Linked when the library is built without the CUDA backend: the volume labeller's GPU path says so.
#include "cclabel/error.hpp"
#include "core/volume_backends.hpp"

namespace cclabel::detail {

std::uint32_t label_volume_cuda_host(const VolumeView&, std::uint32_t*, const Options&) {
    throw Error("backend cuda is not available: this build of cclabel has no CUDA backend");
}

}  // namespace cclabel::detail
