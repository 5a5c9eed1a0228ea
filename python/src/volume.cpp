// cclabel._cclabel._label_volume: a host (Z, Y, X) array labelled by cclabel::label_volume; and
// _label_volume_device: a CuPy array or CUDA tensor labelled by cclabel::cuda::label_volume_device
// on the caller's stream, with no host synchronisation. The Python layer
// (python/cclabel/_volume.py) has picked the pixel format from the dtype, the layout (x
// contiguous, rows and slices at increasing addresses, else one copy to C order, on the array's own
// device) and the background as a Python int or float of the image's type; everything else is
// checked here and by the library, whose cclabel::Error becomes ValueError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cclabel/volume.hpp"
#include "tolerance_arg.hpp"
#include "volume_format.hpp"
#if CCLABEL_HAVE_CUDA
#include "cclabel/cuda_volume.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Volume = nb::ndarray<nb::ro, nb::ndim<3>, nb::device::cpu>;
using Labels = nb::ndarray<std::uint32_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>;

cclabel::Backend volume_backend(const std::string& s) {
    if (s == "auto") return cclabel::Backend::Auto;
    if (s == "cpu") return cclabel::Backend::Cpu;
    if (s == "cuda") return cclabel::Backend::Cuda;
    throw nb::value_error(("backend: expected 'auto', 'cpu' or 'cuda', got '" + s + "'").c_str());
}

/// Options::background_value from None, a Python int or a float; a tuple of ints (an RGB or RGBA
/// volume's colour) is Options::background.
void set_background(cclabel::Options& o, nb::handle background) {
    if (nb::isinstance<nb::tuple>(background)) {
        std::vector<std::uint64_t> channels;
        for (nb::handle h : nb::borrow<nb::tuple>(background)) channels.push_back(nb::cast<std::uint64_t>(h));
        o.background = channels;
    } else if (nb::isinstance<nb::float_>(background)) {
        o.background_value = nb::cast<double>(background);
    } else if (nb::isinstance<nb::int_>(background)) {
        const nb::int_ i = nb::borrow<nb::int_>(background);
        if (nb::cast<bool>(i.attr("__lt__")(0)))
            o.background_value = nb::cast<std::int64_t>(i);
        else
            o.background_value = nb::cast<std::uint64_t>(i);
    } else if (!background.is_none()) {
        throw nb::type_error("background: expected None, an int or a float");
    }
}

/// The tolerance of a volume of format @p f: an untyped format's int (tolerance_arg), a typed
/// format's number of its values (Options::tolerance_value; _volume.py checked that it is a whole
/// number for the integer dtypes, and the core refuses below 0, NaN and infinity).
void set_tolerance(cclabel::Options& o, cclabel::PixelFormat f, nb::handle tolerance) {
    if (!cclabel::is_typed_format(f) || tolerance.is_none()) {
        o.tolerance = cclabel_py::tolerance_arg(tolerance);
        return;
    }
    if (PyBool_Check(tolerance.ptr()) || !(PyFloat_Check(tolerance.ptr()) || PyIndex_Check(tolerance.ptr())))
        throw nb::type_error(("tolerance: must be a number, got " + nb::cast<std::string>(nb::repr(tolerance))).c_str());
    const double t = PyFloat_AsDouble(tolerance.ptr());
    if (t == -1.0 && PyErr_Occurred()) throw nb::python_error();
    o.tolerance_value = t;
}

// An RGB or RGBA volume (Z, Y, X, C) of uint8 arrives as its (Z, Y, X * C) bytes with channels C.
std::uint32_t py_label_volume(const Volume& image, int format, Labels out, int connectivity, nb::handle background,
                              const std::string& backend, int threads, nb::handle tolerance, int channels) {
    const cclabel::PixelFormat f = cclabel_py::volume_format(format, image.itemsize(), image.shape(2), channels);
    const std::int64_t item = channels == 1 ? cclabel::bytes_per_pixel(f) : 1;
    if (out.shape(0) != image.shape(0) || out.shape(1) != image.shape(1) ||
        out.shape(2) != image.shape(2) / std::size_t(channels))
        throw nb::value_error("out: shape must be the image's (Z, Y, X)");
    cclabel::VolumeView v;
    v.data = static_cast<const std::uint8_t*>(image.data());
    v.depth = std::int64_t(image.shape(0));
    v.height = std::int64_t(image.shape(1));
    v.width = std::int64_t(image.shape(2)) / channels;
    v.format = f;
    if (v.voxels() != 0) {
        if (image.stride(2) != 1 && image.shape(2) > 1) throw nb::value_error("image: voxels of a row must be adjacent");
        v.row_stride = v.height > 1 ? image.stride(1) * item : v.width * cclabel::bytes_per_pixel(f);
        v.slice_stride = v.depth > 1 ? image.stride(0) * item : v.height * v.row_stride;
    }
    cclabel::Options o;
    o.connectivity = connectivity;
    o.threads = threads;
    o.backend = volume_backend(backend);
    set_tolerance(o, f, tolerance);
    set_background(o, background);
    std::uint32_t* labels = out.data();
    nb::gil_scoped_release release;
    return cclabel::label_volume(v, labels, o).count;
}

#if CCLABEL_HAVE_CUDA
/// A device volume given by its pointer, (Z, Y, X) shape and (slice, row) byte strides.
cclabel::VolumeView device_view(std::uintptr_t data, std::int64_t depth, std::int64_t height, std::int64_t width,
                                std::int64_t slice_stride, std::int64_t row_stride, int format) {
    return cclabel::VolumeView{reinterpret_cast<const void*>(data), width, height, depth, row_stride, slice_stride,
                               cclabel::PixelFormat(format)};
}

cclabel::Options device_options(int connectivity, nb::handle background, nb::handle tolerance, int format) {
    cclabel::Options o;
    o.connectivity = connectivity;
    o.backend = cclabel::Backend::Cuda;
    set_tolerance(o, cclabel::PixelFormat(format), tolerance);
    set_background(o, background);
    return o;
}

// _volume_workspace(depth, height, width, slice_stride, row_stride, format, connectivity,
// background): the workspace bytes label_volume_device needs; validates everything but pointers.
std::size_t py_volume_workspace(std::int64_t depth, std::int64_t height, std::int64_t width, std::int64_t slice_stride,
                                std::int64_t row_stride, int format, int connectivity, nb::handle background,
                                nb::handle tolerance) {
    const cclabel::VolumeView v = device_view(16, depth, height, width, slice_stride, row_stride, format);
    std::size_t bytes = 0;
    cclabel::cuda::label_volume_device(nullptr, bytes, v, nullptr, nullptr,
                                       device_options(connectivity, background, tolerance, format));
    return bytes;
}

// _label_volume_device(data, depth, height, width, slice_stride, row_stride, format, labels, count,
// connectivity, background, stream, workspace, workspace_bytes): pointers into the memory of the
// current GPU (the Python layer makes the array's GPU current); enqueued on `stream`, nothing
// waited for.
void py_label_volume_device(std::uintptr_t data, std::int64_t depth, std::int64_t height, std::int64_t width,
                            std::int64_t slice_stride, std::int64_t row_stride, int format, std::uintptr_t labels,
                            std::uintptr_t count, int connectivity, nb::handle background, std::uintptr_t stream,
                            std::uintptr_t workspace, std::size_t workspace_bytes, nb::handle tolerance) {
    const cclabel::VolumeView v = device_view(data, depth, height, width, slice_stride, row_stride, format);
    const cclabel::Options o = device_options(connectivity, background, tolerance, format);
    nb::gil_scoped_release release;
    std::size_t bytes = workspace_bytes;
    cclabel::cuda::label_volume_device(reinterpret_cast<void*>(workspace), bytes, v, reinterpret_cast<std::uint32_t*>(labels),
                                       reinterpret_cast<std::uint32_t*>(count), o, reinterpret_cast<cudaStream_t>(stream));
}
#endif

}  // namespace

void bind_volume(nb::module_& m) {
    m.def("_label_volume", &py_label_volume, "image"_a, "format"_a, "out"_a, "connectivity"_a, "background"_a.none(),
          "backend"_a, "threads"_a, "tolerance"_a.none() = nb::none(), "channels"_a = 1);
#if CCLABEL_HAVE_CUDA
    m.def("_volume_workspace", &py_volume_workspace, "depth"_a, "height"_a, "width"_a, "slice_stride"_a,
          "row_stride"_a, "format"_a, "connectivity"_a, "background"_a.none(), "tolerance"_a.none() = nb::none());
    m.def("_label_volume_device", &py_label_volume_device, "data"_a, "depth"_a, "height"_a, "width"_a,
          "slice_stride"_a, "row_stride"_a, "format"_a, "labels"_a, "count"_a, "connectivity"_a, "background"_a.none(),
          "stream"_a, "workspace"_a, "workspace_bytes"_a, "tolerance"_a.none() = nb::none());
#endif
}
