// Linked when the library is built without the CUDA backend: the batch entry point of backends.hpp.
#include "cclabel/error.hpp"
#include "core/backends.hpp"

namespace cclabel::detail {

void cuda_label_batch(const BatchRequest&, std::uint32_t*, std::uint32_t*) {
    throw Error("backend cuda is not available: this build of cclabel has no CUDA backend");
}

}  // namespace cclabel::detail
