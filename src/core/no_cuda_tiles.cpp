// Linked when the library is built without the CUDA backend: the tiled path's GPU hook.
#include "cclabel/error.hpp"
#include "core/tiles_backends.hpp"

namespace cclabel::detail {

bool cuda_label_tiled(const ImageView&, std::uint32_t*, const Options&, std::int64_t, std::int64_t, std::uint64_t&) {
    throw Error("backend cuda is not available: this build of cclabel has no CUDA backend");
}
bool cuda_label_tiled(const ImageView&, std::uint64_t*, const Options&, std::int64_t, std::int64_t, std::uint64_t&) {
    throw Error("backend cuda is not available: this build of cclabel has no CUDA backend");
}

}  // namespace cclabel::detail
