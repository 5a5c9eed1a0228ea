// cclabel._cclabel._regions_volume: the region statistics of a host (Z, Y, X) label volume
// (cclabel::regions_volume). The Python layer (python/cclabel/_volume_stats.py) has made the labels
// C-contiguous uint32, the volume C-contiguous (a statistics call reads it once: one copy of an
// odd layout costs little beside it) and picked its pixel format as cclabel.label does (an RGB or
// RGBA volume (Z, Y, X, C) of uint8 crosses as its (Z, Y, X * C) bytes with channels C, as to the
// labeller); cclabel::Error from the library becomes ValueError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cclabel/volume_stats.hpp"
#include "volume_format.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Volume = nb::ndarray<nb::ro, nb::ndim<3>, nb::c_contig, nb::device::cpu>;
using Labels = nb::ndarray<const std::uint32_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>;

// The rows cross as (N + 1, 13) uint64: the Python layer views each word as its column's dtype.
static_assert(sizeof(cclabel::VolumeRegionStats) == 13 * 8, "VolumeRegionStats is 13 64-bit words");

nb::ndarray<nb::numpy, std::uint64_t> py_regions_volume(const Labels& labels, const Volume& image, int format,
                                                        int connectivity, const std::string& backend, int threads,
                                                        int channels) {
    const cclabel::PixelFormat f = cclabel_py::volume_format(format, image.itemsize(), image.shape(2), channels);
    const std::size_t width = image.shape(2) / std::size_t(channels);
    if (labels.shape(0) != image.shape(0) || labels.shape(1) != image.shape(1) || labels.shape(2) != width)
        throw nb::value_error(("image: shape (" + std::to_string(image.shape(0)) + ", " +
                               std::to_string(image.shape(1)) + ", " + std::to_string(width) +
                               (channels != 1 ? ", " + std::to_string(channels) : std::string()) +
                               ") does not match the labels' (" + std::to_string(labels.shape(0)) + ", " +
                               std::to_string(labels.shape(1)) + ", " + std::to_string(labels.shape(2)) + ")")
                                  .c_str());
    const cclabel::VolumeView v = cclabel::make_volume_view(image.data(), std::int64_t(width),
                                                            std::int64_t(image.shape(1)), std::int64_t(image.shape(0)), f);
    cclabel::Options o;
    o.connectivity = connectivity;
    o.threads = threads;
    if (backend == "cuda")
        throw nb::value_error("backend: region statistics of 3-D volumes run on the CPU; use 'auto' or 'cpu'");
    if (backend != "auto" && backend != "cpu")
        throw nb::value_error(("backend: expected 'auto', 'cpu' or 'cuda', got '" + backend + "'").c_str());
    o.backend = cclabel::Backend::Cpu;
    const std::uint32_t* lab = v.voxels() != 0 ? labels.data() : nullptr;
    auto* rows = new std::vector<cclabel::VolumeRegionStats>();
    nb::capsule owner(rows, [](void* p) noexcept { delete static_cast<std::vector<cclabel::VolumeRegionStats>*>(p); });
    {
        nb::gil_scoped_release unlock;
        *rows = cclabel::regions_volume(v, lab, o);
    }
    const std::size_t shape[2] = {rows->size(), 13};
    return nb::ndarray<nb::numpy, std::uint64_t>(static_cast<void*>(rows->data()), 2, shape, owner);
}

}  // namespace

void bind_volume_stats(nb::module_& m) {
    m.def("_regions_volume", &py_regions_volume, "labels"_a, "image"_a, "format"_a, "connectivity"_a, "backend"_a,
          "threads"_a, "channels"_a = 1);
}
