// cclabel._cclabel._regions_volume: the region statistics of a host (Z, Y, X) label volume
// (cclabel::regions_volume). The Python layer (python/cclabel/_volume_stats.py) has made the labels
// C-contiguous uint32, the volume C-contiguous (a statistics call reads it once: one copy of an
// odd layout costs little beside it) and picked its pixel format as cclabel.label does (an RGB or
// RGBA volume (Z, Y, X, C) of uint8 crosses as its (Z, Y, X * C) bytes with channels C, as to the
// labeller); cclabel::Error from the library becomes ValueError. And _regions_volume_device: the
// same rows of a label volume in GPU memory (cclabel::cuda::regions_volume_device), given by
// pointers as _label_volume_device takes them, into a (capacity, 13) uint64 GPU array, on the
// caller's stream, nothing waited for.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cclabel/volume_stats.hpp"
#include "volume_format.hpp"
#if CCLABEL_HAVE_CUDA
#include "cclabel/cuda_volume_stats.hpp"
#endif

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

#if CCLABEL_HAVE_CUDA
/// A device volume by its pointer, (Z, Y, X) shape, (slice, row) byte strides and core format
/// (RGB8 / RGBA8 for colour volumes: then width counts voxels, not bytes).
cclabel::VolumeView device_volume(std::uintptr_t data, std::int64_t depth, std::int64_t height, std::int64_t width,
                                  std::int64_t slice_stride, std::int64_t row_stride, int format) {
    if (format < 0 || format > int(cclabel::PixelFormat::F64)) throw nb::value_error("format: unknown pixel format");
    return cclabel::VolumeView{reinterpret_cast<const void*>(data), width, height, depth, row_stride, slice_stride,
                               cclabel::PixelFormat(format)};
}

// _regions_volume_workspace(): the workspace bytes regions_volume_device needs (no volume's own).
std::size_t py_regions_volume_workspace() {
    const cclabel::VolumeView v = device_volume(16, 1, 1, 1, 0, 0, int(cclabel::PixelFormat::Gray8));
    cclabel::Options o;
    o.connectivity = 26;
    std::size_t bytes = 0;
    cclabel::cuda::regions_volume_device(nullptr, bytes, v, nullptr, nullptr, 1, nullptr, o);
    return bytes;
}

// _regions_volume_device(labels, data, depth, height, width, slice_stride, row_stride, format,
// connectivity, count, capacity, rows, stream, workspace, workspace_bytes): pointers into the
// current GPU's memory (the Python layer makes the labels' GPU current and has checked that the
// labels are C-contiguous uint32 of the volume's shape); count may be 0 (N found on the GPU).
void py_regions_volume_device(std::uintptr_t labels, std::uintptr_t data, std::int64_t depth, std::int64_t height,
                              std::int64_t width, std::int64_t slice_stride, std::int64_t row_stride, int format,
                              int connectivity, std::uintptr_t count, std::uint64_t capacity, std::uintptr_t rows,
                              std::uintptr_t stream, std::uintptr_t workspace, std::size_t workspace_bytes) {
    const cclabel::VolumeView v = device_volume(data, depth, height, width, slice_stride, row_stride, format);
    cclabel::Options o;
    o.connectivity = connectivity;
    o.backend = cclabel::Backend::Cuda;
    nb::gil_scoped_release release;
    std::size_t bytes = workspace_bytes;
    cclabel::cuda::regions_volume_device(reinterpret_cast<void*>(workspace), bytes, v,
                                         reinterpret_cast<const std::uint32_t*>(labels),
                                         reinterpret_cast<const std::uint32_t*>(count), capacity,
                                         reinterpret_cast<cclabel::VolumeRegionStats*>(rows), o,
                                         reinterpret_cast<cudaStream_t>(stream));
}
#endif

}  // namespace

void bind_volume_stats(nb::module_& m) {
    m.def("_regions_volume", &py_regions_volume, "labels"_a, "image"_a, "format"_a, "connectivity"_a, "backend"_a,
          "threads"_a, "channels"_a = 1);
#if CCLABEL_HAVE_CUDA
    m.def("_regions_volume_workspace", &py_regions_volume_workspace);
    m.def("_regions_volume_device", &py_regions_volume_device, "labels"_a, "data"_a, "depth"_a, "height"_a, "width"_a,
          "slice_stride"_a, "row_stride"_a, "format"_a, "connectivity"_a, "count"_a, "capacity"_a, "rows"_a,
          "stream"_a, "workspace"_a, "workspace_bytes"_a);
#endif
}
