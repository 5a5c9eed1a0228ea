// Tolerance labelling and the region adjacency graph for Python (cclabel.graph, python/cclabel/graph.py).
//
// Host arrays (backend "cuda" copies them to the GPU and back), and typed pictures already on the GPU
// (_label_tolerance_value_device: cclabel::cuda::label_device by value). The Python layer hands over C-contiguous NumPy arrays whose dtype is already one of the
// library's formats (signed integers shifted to unsigned, which keeps every difference) and the
// uint32 output; everything else is checked here: the tolerance (TypeError for a non-integer,
// ValueError below 0 or above the format's channel range), connectivity, backend, threads and the
// background channels. cclabel::Error from the library becomes ValueError. Label volumes (Z, Y, X)
// take the library's volume overload of adjacency, host arrays (_adjacency_volume) and GPU arrays
// (_adjacency_volume_device) alike.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/adjacency.hpp"
#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "tolerance_arg.hpp"
#if CCLABEL_HAVE_CUDA
#include "cclabel/cuda.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using HostIn = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using LabelsOut = nb::ndarray<std::uint32_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using LabelsIn = nb::ndarray<const std::uint32_t, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using VolumeLabelsIn = nb::ndarray<const std::uint32_t, nb::ndim<3>, nb::c_contig, nb::device::cpu>;


using cclabel_py::tolerance_arg;

int connectivity_arg(int c) {
    if (c == 1) return 4;
    if (c == 2) return 8;
    if (c != 4 && c != 8)
        throw nb::value_error(("connectivity: must be 4 or 8 (or 1 or 2 as in scikit-image), got " + std::to_string(c)).c_str());
    return c;
}

cclabel::Backend backend_arg(const std::string& s) {
    if (s == "auto") return cclabel::Backend::Auto;
    if (s == "cpu") return cclabel::Backend::Cpu;
    if (s == "cuda") return cclabel::Backend::Cuda;
    throw nb::value_error(("backend: expected 'auto', 'cpu' or 'cuda', got '" + s + "'").c_str());
}

cclabel::PixelFormat format_of(const HostIn& a) {
    using C = nb::dlpack::dtype_code;
    const nb::dlpack::dtype d = a.dtype();
    const bool u8 = d.code == std::uint8_t(C::UInt) && d.bits == 8;
    if (a.ndim() == 3 && u8 && (a.shape(2) == 3 || a.shape(2) == 4))
        return a.shape(2) == 3 ? cclabel::PixelFormat::RGB8 : cclabel::PixelFormat::RGBA8;
    if (a.ndim() != 2)
        throw nb::value_error(("image: expected shape (H, W) or (H, W, 3|4) of uint8, got " + std::to_string(a.ndim()) +
                               " dimensions").c_str());
    if (d.code == std::uint8_t(C::Bool)) return cclabel::PixelFormat::Binary8;
    if (d.code == std::uint8_t(C::UInt) && d.bits == 8) return cclabel::PixelFormat::Gray8;
    if (d.code == std::uint8_t(C::UInt) && d.bits == 16) return cclabel::PixelFormat::Gray16;
    if (d.code == std::uint8_t(C::UInt) && d.bits == 32) return cclabel::PixelFormat::U32;
    throw nb::type_error("image: dtype must be bool, uint8, uint16 or uint32 here (graph.py maps signed integers)");
}

/// Options::background_value from None, a Python int or a float (a typed picture's background).
void set_background_value(cclabel::Options& o, nb::handle background) {
    if (nb::isinstance<nb::float_>(background)) {
        o.background_value = nb::cast<double>(background);
    } else if (nb::isinstance<nb::int_>(background)) {
        if (nb::cast<bool>(nb::borrow<nb::int_>(background).attr("__lt__")(0)))
            o.background_value = nb::cast<std::int64_t>(background);
        else
            o.background_value = nb::cast<std::uint64_t>(background);
    } else if (!background.is_none()) {
        throw nb::type_error("background: expected None, an int or a float");
    }
}

/// label() of @p image as format @p f into @p out, with @p o and the arguments every tolerance call takes.
std::uint32_t label_into(const HostIn& image, cclabel::PixelFormat f, LabelsOut out, cclabel::Options& o, int connectivity,
                         const std::string& backend, int threads) {
    o.connectivity = connectivity_arg(connectivity);
    o.backend = backend_arg(backend);
    if (threads < 0) throw nb::value_error(("threads: must not be negative, got " + std::to_string(threads)).c_str());
    o.threads = threads;
    const auto h = std::int64_t(image.shape(0)), w = std::int64_t(image.shape(1));
    if (std::int64_t(out.shape(0)) != h || std::int64_t(out.shape(1)) != w)
        throw nb::value_error("out: shape must be the image's (H, W)");
    const cclabel::ImageView view{image.data(), w, h, 0, f};
    try {
        nb::gil_scoped_release unlocked;
        return cclabel::label(view, out.data(), o).count;
    } catch (const cclabel::Error& e) {
        throw nb::value_error(e.what());
    }
}

std::uint32_t label_tolerance(const HostIn& image, LabelsOut out, nb::handle tolerance, int connectivity,
                              std::optional<std::vector<std::uint64_t>> background, const std::string& backend,
                              int threads) {
    cclabel::Options o;
    o.tolerance = tolerance_arg(tolerance);
    o.background = std::move(background);
    return label_into(image, format_of(image), out, o, connectivity, backend, threads);
}

/// A host picture of a typed format (I64, U64, F16, F32, F64: graph.py maps the narrower signed
/// integers onto unsigned ones) labelled with a tolerance in its values; the background is one
/// value of its type (None, an int or a float).
std::uint32_t label_tolerance_value(const HostIn& image, int format, LabelsOut out, double tolerance, int connectivity,
                                    nb::handle background, const std::string& backend, int threads) {
    const auto f = cclabel::PixelFormat(format);
    if (!cclabel::is_typed_format(f) || std::size_t(cclabel::bytes_per_pixel(f)) != image.itemsize() || image.ndim() != 2)
        throw nb::type_error("image: expected (H, W) of int64, uint64 or a float dtype here");
    cclabel::Options o;
    o.tolerance_value = tolerance;
    set_background_value(o, background);
    return label_into(image, f, out, o, connectivity, backend, threads);
}

#if CCLABEL_HAVE_CUDA
/// The options of a typed picture on the GPU with a tolerance in its values (graph.py checked it).
cclabel::Options device_value_options(int connectivity, double tolerance, nb::handle background) {
    cclabel::Options o;
    o.connectivity = connectivity_arg(connectivity);
    o.backend = cclabel::Backend::Cuda;
    o.tolerance_value = tolerance;
    set_background_value(o, background);
    return o;
}

cclabel::ImageView device_picture(std::uintptr_t data, std::int64_t height, std::int64_t width, std::int64_t row_stride,
                                  int format) {
    const auto f = cclabel::PixelFormat(format);
    if (!cclabel::is_typed_format(f)) throw nb::type_error("image: expected a signed, 64-bit or float dtype here");
    return cclabel::ImageView{reinterpret_cast<const void*>(data), width, height, row_stride, f};
}

// _tolerance_value_workspace(height, width, row_stride, format, connectivity, tolerance,
// background): the workspace bytes label_device needs; validates everything but the pointers.
std::size_t tolerance_value_workspace(std::int64_t height, std::int64_t width, std::int64_t row_stride, int format,
                                      int connectivity, double tolerance, nb::handle background) {
    const cclabel::ImageView v = device_picture(16, height, width, row_stride, format);
    const cclabel::Options o = device_value_options(connectivity, tolerance, background);
    std::size_t bytes = 0;
    try {
        cclabel::cuda::label_device(nullptr, bytes, v, nullptr, nullptr, o);
    } catch (const cclabel::Error& e) {
        throw nb::value_error(e.what());
    }
    return bytes;
}

// _label_tolerance_value_device(data, height, width, row_stride, format, labels, count,
// connectivity, tolerance, background, stream, workspace, workspace_bytes): a typed picture in the
// memory of the current GPU labelled by cclabel::cuda::label_device with its tolerance_value,
// enqueued on `stream` (labels and N stay on the GPU; nothing is waited for).
void label_tolerance_value_device(std::uintptr_t data, std::int64_t height, std::int64_t width, std::int64_t row_stride,
                                  int format, std::uintptr_t labels, std::uintptr_t count, int connectivity,
                                  double tolerance, nb::handle background, std::uintptr_t stream,
                                  std::uintptr_t workspace, std::size_t workspace_bytes) {
    const cclabel::ImageView v = device_picture(data, height, width, row_stride, format);
    const cclabel::Options o = device_value_options(connectivity, tolerance, background);
    try {
        nb::gil_scoped_release unlocked;
        std::size_t bytes = workspace_bytes;
        cclabel::cuda::label_device(reinterpret_cast<void*>(workspace), bytes, v, reinterpret_cast<std::uint32_t*>(labels),
                                    reinterpret_cast<std::uint32_t*>(count), o, reinterpret_cast<cudaStream_t>(stream));
    } catch (const cclabel::Error& e) {
        throw nb::value_error(e.what());
    }
}
#endif

/// @p edges as (E, 3) rows a, b, contacts.
nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>> rows_of(const std::vector<cclabel::AdjacencyEdge>& edges) {
    auto* rows = new std::uint64_t[edges.size() * 3 + 1];
    for (std::size_t i = 0; i < edges.size(); ++i) {
        rows[3 * i] = edges[i].a;
        rows[3 * i + 1] = edges[i].b;
        rows[3 * i + 2] = edges[i].contacts;
    }
    nb::capsule owner(rows, [](void* p) noexcept { delete[] static_cast<std::uint64_t*>(p); });
    return nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>>(rows, {edges.size(), std::size_t(3)}, owner);
}

/// The edges of @p h × @p w packed uint32 labels at @p labels (host or device memory) as (E, 3) rows.
nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>> edges_of(const std::uint32_t* labels, std::int64_t h, std::int64_t w,
                                                            int connectivity, bool background, cclabel::Backend backend,
                                                            int threads) {
    const int conn = connectivity_arg(connectivity);
    if (threads < 0) throw nb::value_error(("threads: must not be negative, got " + std::to_string(threads)).c_str());
    std::vector<cclabel::AdjacencyEdge> edges;
    try {
        nb::gil_scoped_release unlocked;
        edges = cclabel::adjacency(labels, w, h, conn, background, 0, backend, threads);
    } catch (const cclabel::Error& e) {
        throw nb::value_error(e.what());
    }
    return rows_of(edges);
}

/// A (Z, Y, X) label volume on the host; connectivity 6, 18 or 26 (graph.py maps scikit-image's 3),
/// anything else a ValueError from the library's check.
nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>> adjacency_volume(const VolumeLabelsIn& labels, int connectivity,
                                                                    bool background, const std::string& backend,
                                                                    int threads) {
    const cclabel::Backend b = backend_arg(backend);
    if (threads < 0) throw nb::value_error(("threads: must not be negative, got " + std::to_string(threads)).c_str());
    const auto v = cclabel::make_volume_view(labels.data(), std::int64_t(labels.shape(2)), std::int64_t(labels.shape(1)),
                                             std::int64_t(labels.shape(0)), cclabel::PixelFormat::U32);
    std::vector<cclabel::AdjacencyEdge> edges;
    try {
        nb::gil_scoped_release unlocked;
        edges = cclabel::adjacency(v, connectivity, background, b, threads);
    } catch (const cclabel::Error& e) {
        throw nb::value_error(e.what());
    }
    return rows_of(edges);
}

nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>> adjacency(const LabelsIn& labels, int connectivity, bool background,
                                                             const std::string& backend, int threads) {
    return edges_of(labels.data(), std::int64_t(labels.shape(0)), std::int64_t(labels.shape(1)), connectivity,
                    background, backend_arg(backend), threads);
}

/// Labels already on the GPU (graph.py checked them: C-contiguous uint32, the caller's stream waited for).
nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>> adjacency_device(std::uintptr_t ptr, std::int64_t h, std::int64_t w,
                                                                    int connectivity, bool background) {
    if (h < 0 || w < 0) throw nb::value_error("labels: negative shape");
    return edges_of(reinterpret_cast<const std::uint32_t*>(ptr), h, w, connectivity, background, cclabel::Backend::Cuda, 0);
}

/// A (Z, Y, X) label volume already on the GPU (graph.py checked it: C-contiguous uint32, the
/// connectivity mapped to 6, 18 or 26, the caller's stream waited for).
nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>> adjacency_volume_device(std::uintptr_t ptr, std::int64_t depth,
                                                                           std::int64_t height, std::int64_t width,
                                                                           int connectivity, bool background) {
    if (depth < 0 || height < 0 || width < 0) throw nb::value_error("labels: negative shape");
    const auto v = cclabel::make_volume_view(reinterpret_cast<const void*>(ptr), width, height, depth,
                                             cclabel::PixelFormat::U32);
    std::vector<cclabel::AdjacencyEdge> edges;
    try {
        nb::gil_scoped_release unlocked;
        edges = cclabel::adjacency(v, connectivity, background, cclabel::Backend::Cuda, 0);
    } catch (const cclabel::Error& e) {
        throw nb::value_error(e.what());
    }
    return rows_of(edges);
}

}  // namespace

void bind_graph(nb::module_& m) {
    m.def("_label_tolerance", &label_tolerance, "image"_a, "out"_a, "tolerance"_a, "connectivity"_a,
          "background"_a.none(), "backend"_a, "threads"_a,
          "Tolerance labelling of a host image into out; returns N (see cclabel.graph.label_tolerance).");
    m.def("_label_tolerance_value", &label_tolerance_value, "image"_a, "format"_a, "out"_a, "tolerance"_a,
          "connectivity"_a, "background"_a.none(), "backend"_a, "threads"_a,
          "Tolerance labelling of a host picture of a typed format by value (see cclabel.graph.label_tolerance).");
#if CCLABEL_HAVE_CUDA
    m.def("_tolerance_value_workspace", &tolerance_value_workspace, "height"_a, "width"_a, "row_stride"_a, "format"_a,
          "connectivity"_a, "tolerance"_a, "background"_a.none(),
          "The workspace bytes of _label_tolerance_value_device for this picture and these options.");
    m.def("_label_tolerance_value_device", &label_tolerance_value_device, "data"_a, "height"_a, "width"_a,
          "row_stride"_a, "format"_a, "labels"_a, "count"_a, "connectivity"_a, "tolerance"_a, "background"_a.none(),
          "stream"_a, "workspace"_a, "workspace_bytes"_a,
          "Tolerance labelling of a typed picture in device memory by value, on the caller's stream.");
#endif
    m.def("_adjacency", &adjacency, "labels"_a, "connectivity"_a, "background"_a, "backend"_a, "threads"_a,
          "The region adjacency graph of a uint32 label image as (E, 3) uint64 rows a, b, contacts "
          "(see cclabel.graph.adjacency).");
    m.def("_adjacency_volume", &adjacency_volume, "labels"_a, "connectivity"_a, "background"_a, "backend"_a,
          "threads"_a,
          "The region adjacency graph of a C-contiguous (Z, Y, X) uint32 label volume as (E, 3) uint64 rows "
          "(see cclabel.graph.adjacency).");
    m.def("_adjacency_device", &adjacency_device, "ptr"_a, "height"_a, "width"_a, "connectivity"_a, "background"_a,
          "The region adjacency graph of C-contiguous uint32 labels in device memory (see cclabel.graph.adjacency).");
    m.def("_adjacency_volume_device", &adjacency_volume_device, "ptr"_a, "depth"_a, "height"_a, "width"_a,
          "connectivity"_a, "background"_a,
          "The region adjacency graph of a C-contiguous (Z, Y, X) uint32 label volume in device memory as (E, 3) "
          "uint64 rows (see cclabel.graph.adjacency).");
}
