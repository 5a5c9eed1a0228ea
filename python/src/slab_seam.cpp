// cclabel._cclabel._slab_seam: the seam between two z-slabs of cclabel.label_slabs
// (python/cclabel/_slabs.py) through core/slab_seam.hpp, the CLI's own. The Python layer hands the
// two slices' labels (uint32) and keys whose equality is cclabel.label's (the values, floats as their
// canonical bits), C-contiguous, of one shape and dtype; voxels join when their keys' bits are equal.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <vector>

#include "core/slab_seam.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Plane = nb::ndarray<const std::uint32_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Keys = nb::ndarray<nb::ro, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

template <typename K>
std::vector<std::uint32_t> pairs_of(const Plane& before, const Keys& kb, const Plane& after, const Keys& ka,
                                    std::int64_t w, std::int64_t h, int connectivity) {
    const auto* lo = static_cast<const K*>(kb.data());
    const auto* hi = static_cast<const K*>(ka.data());
    return cclabel::detail::slab_seam_pairs(before.data(), after.data(), w, h, connectivity,
                                            [&](std::int64_t j, std::int64_t i) { return lo[j] == hi[i]; });
}

// _slab_seam(before_labels, before_keys, after_labels, after_keys, connectivity) -> (k, 2) uint32
nb::ndarray<nb::numpy, std::uint32_t> py_slab_seam(const Plane& before, const Keys& kb, const Plane& after,
                                                   const Keys& ka, int connectivity) {
    const std::int64_t h = std::int64_t(before.shape(0)), w = std::int64_t(before.shape(1));
    for (const auto* p : {&kb, &ka})
        if (std::int64_t(p->shape(0)) != h || std::int64_t(p->shape(1)) != w)
            throw nb::value_error("slab seam: labels and keys must have one shape");
    if (std::int64_t(after.shape(0)) != h || std::int64_t(after.shape(1)) != w)
        throw nb::value_error("slab seam: the two slices must have one shape");
    const std::size_t item = kb.itemsize();
    if (ka.itemsize() != item || (item != 1 && item != 2 && item != 4 && item != 8))
        throw nb::type_error("slab seam: keys must be 1, 2, 4 or 8 bytes a voxel, the same in both slices");
    if (connectivity != 6 && connectivity != 18 && connectivity != 26)
        throw nb::value_error("slab seam: connectivity must be 6, 18 or 26");
    std::vector<std::uint32_t> pairs;
    {
        nb::gil_scoped_release unlock;
        pairs = item == 1   ? pairs_of<std::uint8_t>(before, kb, after, ka, w, h, connectivity)
                : item == 2 ? pairs_of<std::uint16_t>(before, kb, after, ka, w, h, connectivity)
                : item == 4 ? pairs_of<std::uint32_t>(before, kb, after, ka, w, h, connectivity)
                            : pairs_of<std::uint64_t>(before, kb, after, ka, w, h, connectivity);
    }
    auto* owned = new std::vector<std::uint32_t>(std::move(pairs));
    nb::capsule owner(owned, [](void* q) noexcept { delete static_cast<std::vector<std::uint32_t>*>(q); });
    const std::size_t shape[2] = {owned->size() / 2, 2};
    return nb::ndarray<nb::numpy, std::uint32_t>(owned->data(), 2, shape, owner);
}

}  // namespace

void bind_slab_seam(nb::module_& m) {
    m.def("_slab_seam", &py_slab_seam, "before"_a, "before_keys"_a, "after"_a, "after_keys"_a, "connectivity"_a);
}
