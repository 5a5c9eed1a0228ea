// cclabel._cclabel: the nanobind module under the Python package.
//
// The Python layer (python/cclabel/__init__.py) only picks the array library of the result and
// allocates with it; everything about the arguments is decided here, in C++:
//   - the image is imported through DLPack or the buffer protocol (nanobind's ndarray), never
//     copied: its dtype and shape give the pixel format and whether it is a batch, its strides the
//     row stride (any positive value) and the pixel stride (which must be the natural one; other
//     layouts are reported to the Python layer, which copies them once to C order). Signed
//     8/16/32-bit integers are read as the unsigned keys of the same width (cc3d's view); the
//     Python layer turns floats and 64-bit integers into such keys before they get here;
//   - connectivity (4/8, or scikit-image's 1/2), background (int, integral float, tuple,
//     "#rrggbb[aa]"), backend and threads are checked with messages naming the argument;
//   - host arrays go through cclabel::label, CUDA arrays through cclabel::cuda::label_device on the
//     caller's stream, with the GIL released and no host synchronisation;
//   - region statistics and filters (cclabel.regions, remove_small, keep_largest) take a uint32
//     label image: host arrays through cclabel::regions / remove_small / keep_largest, CUDA arrays
//     through cclabel/cuda_stats.hpp on the caller's stream. Statistics come back as raw
//     RegionStats rows ((N + 1, 10) uint64 words) that the Python layer splits into columns.
// Errors: TypeError for a wrong kind of argument, ValueError for a wrong value; cclabel::Error from
// the library becomes ValueError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/stats.hpp"
#include "cclabel/batch.hpp"
#include "cclabel/tiles.hpp"
#include "cclabel/version.hpp"
#include "tolerance_arg.hpp"
#if CCLABEL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cclabel/cuda.hpp"
#include "cclabel/cuda_stats.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using InArray = nb::ndarray<nb::ro>;
using OutArray = nb::ndarray<>;

// DLPack device types (dlpack.h): kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged.
constexpr int kCpu = 1, kCuda = 2, kCudaHost = 3, kCudaManaged = 13;

bool on_host(int device_type) { return device_type == kCpu || device_type == kCudaHost; }
bool on_gpu(int device_type) { return device_type == kCuda || device_type == kCudaManaged; }

std::string device_str(int type, int id) {
    if (on_host(type)) return "cpu";
    if (on_gpu(type)) return "cuda:" + std::to_string(id);
    return "DLPack device type " + std::to_string(type);
}

std::string py_type_name(nb::handle h) { return nb::cast<std::string>(nb::type_name(h.type())); }

std::string dtype_str(nb::dlpack::dtype d) {
    using C = nb::dlpack::dtype_code;
    std::string kind;
    switch (C(d.code)) {
        case C::Int: kind = "int"; break;
        case C::UInt: kind = "uint"; break;
        case C::Float: kind = "float"; break;
        case C::Bfloat: kind = "bfloat"; break;
        case C::Complex: kind = "complex"; break;
        case C::Bool: return "bool";
        default: kind = "dtype code " + std::to_string(int(d.code)) + " of "; break;  // newer DLPack kinds
    }
    return kind + std::to_string(d.bits) + (d.lanes != 1 ? "x" + std::to_string(d.lanes) : "");
}

template <typename T>
bool is(nb::dlpack::dtype d) {
    return d == nb::dtype<T>();
}

std::string shape_str(const std::vector<std::int64_t>& s) {
    std::string r = "(";
    for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + (s.size() == 1 ? ",)" : ")");
}

// What the Python package accepts (floats and 64-bit integers become keys there, python/cclabel).
constexpr const char* kSupported =
    "supported: bool, int8/16/32/64, uint8/16/32/64, float16/32/64 of shape (H, W) or (B, H, W); "
    "uint8 of shape (H, W, 3) RGB or (H, W, 4) RGBA, or (B, H, W, 3|4)";

// What an image argument is: format, batch, sizes and byte strides.
struct Layout {
    cclabel::PixelFormat format = cclabel::PixelFormat::Gray8;
    bool batch = false;
    bool is_signed = false;  // int8/16/32 read as the unsigned key of the same bits
    bool boolean = false;
    std::int64_t B = 1, H = 0, W = 0;
    std::int64_t batch_stride = 0, row_stride = 0;  // bytes
    const std::uint8_t* data = nullptr;
    int device_type = kCpu, device_id = 0;
    std::vector<std::int64_t> shape;
    std::string dtype;
};

InArray import_image(nb::handle h) {
    if (h.is_none()) throw nb::type_error("image: expected an array, got None");
    InArray a;
    if (!nb::try_cast(h, a, /*convert=*/false))
        throw nb::type_error(("image: expected an array with DLPack or the buffer protocol (NumPy, CuPy, "
                              "PyTorch), got " + py_type_name(h)).c_str());
    return a;
}

// Decides the layout of an image array. With @p copy_ok set, layouts that a contiguous copy fixes
// (Fortran order, rows upside down) set *needs_copy instead of raising.
// With @p as_unsigned, int16/int32 arrays are the bits of uint16/uint32 ones (PyTorch tensors are
// passed as such views, so that no DLPack export of its unsigned dtypes is needed).
// Every layout that is not readable in place (gaps between pixels or channels, rows that overlap
// or run backwards) sets *needs_copy when @p needs_copy is given, and raises otherwise.
Layout inspect(const InArray& a, bool* needs_copy, bool as_unsigned) {
    Layout L;
    auto d = a.dtype();
    if (as_unsigned && d == nb::dtype<std::int16_t>()) d = nb::dtype<std::uint16_t>();
    if (as_unsigned && d == nb::dtype<std::int32_t>()) d = nb::dtype<std::uint32_t>();
    L.dtype = dtype_str(d);
    const std::size_t nd = a.ndim();
    for (std::size_t i = 0; i < nd; ++i) L.shape.push_back(std::int64_t(a.shape(i)));
    L.device_type = a.device_type();
    L.device_id = a.device_id();
    if (!on_host(L.device_type) && !on_gpu(L.device_type))
        throw nb::value_error(("image: arrays on " + device_str(L.device_type, L.device_id) +
                               " are not supported (CPU or CUDA only)").c_str());

    const bool one_channel = is<bool>(d) || is<std::uint8_t>(d) || is<std::int8_t>(d) || is<std::uint16_t>(d) ||
                             is<std::int16_t>(d) || is<std::uint32_t>(d) || is<std::int32_t>(d);
    if (!one_channel) {
        using C = nb::dlpack::dtype_code;
        const bool keyed_in_python = d.lanes == 1 && ((C(d.code) == C::Float && d.bits <= 64) ||
                                                      ((C(d.code) == C::Int || C(d.code) == C::UInt) && d.bits == 64));
        if (keyed_in_python)  // reached only from calls that hand arrays to the core as they are
            throw nb::type_error(("image: dtype " + L.dtype +
                                  " is not supported by this call, which reads bool, (u)int8, (u)int16, (u)int32 "
                                  "and uint8 RGB/RGBA as they are; cclabel.label converts float16/32/64 and "
                                  "(u)int64 itself (else convert with .astype() if the values fit)")
                                     .c_str());
        throw nb::type_error(("image: dtype " + L.dtype + " is not supported (" + kSupported +
                              "); convert it with .astype() if its values fit")
                                 .c_str());
    }
    const bool u8 = is<std::uint8_t>(d);
    int channels = 1;
    int pixel_axis = -1;  // axis of W
    if (nd == 2) {
        pixel_axis = 1;
    } else if (nd == 3 && u8 && (L.shape[2] == 3 || L.shape[2] == 4)) {
        channels = int(L.shape[2]);
        pixel_axis = 1;
    } else if (nd == 3) {
        L.batch = true;
        pixel_axis = 2;
    } else if (nd == 4 && u8 && (L.shape[3] == 3 || L.shape[3] == 4)) {
        L.batch = true;
        channels = int(L.shape[3]);
        pixel_axis = 2;
    } else if (nd == 4) {
        throw nb::value_error(("image: a 4-D array must be a batch of uint8 RGB or RGBA images "
                               "(B, H, W, 3|4), got shape " + shape_str(L.shape) + " of " + L.dtype)
                                  .c_str());
    } else {
        throw nb::value_error(("image: expected shape (H, W), (H, W, 3|4), (B, H, W) or (B, H, W, 3|4), got " +
                               shape_str(L.shape) + " (" + kSupported + ")")
                                  .c_str());
    }
    if (is<bool>(d)) {
        L.format = cclabel::PixelFormat::Binary8;
        L.boolean = true;
    } else if (u8) {
        L.format = channels == 3   ? cclabel::PixelFormat::RGB8
                   : channels == 4 ? cclabel::PixelFormat::RGBA8
                                   : cclabel::PixelFormat::Gray8;
    } else if (is<std::int8_t>(d)) {
        L.format = cclabel::PixelFormat::Gray8;
        L.is_signed = true;
    } else if (is<std::uint16_t>(d) || is<std::int16_t>(d)) {
        L.format = cclabel::PixelFormat::Gray16;
        L.is_signed = is<std::int16_t>(d);
    } else {
        L.format = cclabel::PixelFormat::U32;
        L.is_signed = is<std::int32_t>(d);
    }

    const std::int64_t item = std::int64_t(a.itemsize());
    const int row_axis = pixel_axis - 1;
    L.H = L.shape[std::size_t(row_axis)];
    L.W = L.shape[std::size_t(pixel_axis)];
    L.B = L.batch ? L.shape[0] : 1;
    std::vector<std::int64_t> st(nd);  // element strides
    {
        std::int64_t c = 1;
        for (std::size_t i = nd; i-- > 0;) {
            st[i] = a.stride_ptr() ? a.stride(i) : c;
            c *= L.shape[i];
        }
    }
    L.data = static_cast<const std::uint8_t*>(a.data_handle()) + a.byte_offset();
    if (L.B == 0 || L.H == 0 || L.W == 0) {  // empty: strides do not matter
        L.row_stride = 0;
        L.batch_stride = 0;
        return L;
    }

    // Strides of axes of length 1 say nothing; the others must give natural pixels and channels
    // and rows that start at increasing, non-overlapping addresses.
    const std::int64_t row_bytes = L.W * channels;  // item = 1 when channels > 1
    const bool channel_ok = channels == 1 || st[nd - 1] == 1;
    const bool pixel_ok = L.W == 1 || st[std::size_t(pixel_axis)] == channels;
    const std::int64_t rs = L.H == 1 ? row_bytes : st[std::size_t(row_axis)];
    if (channel_ok && pixel_ok && rs >= row_bytes) {
        L.row_stride = rs * item;
        L.batch_stride = L.batch ? st[0] * item : 0;
        return L;
    }
    // Any other layout (Fortran order, transposes, rows upside down, gaps between pixels or
    // channels, broadcast rows) is copied once to C order by the caller.
    if (needs_copy) {
        *needs_copy = true;
        return L;
    }
    std::string why;
    if (!channel_ok)
        why = "its channels are not adjacent (channel stride " + std::to_string(st[nd - 1]) + " elements)";
    else if (!pixel_ok)
        why = "its pixels are not adjacent in a row (pixel stride " +
              std::to_string(st[std::size_t(pixel_axis)]) + " elements, needs " + std::to_string(channels) + ")";
    else
        why = "its rows overlap or run backwards (row stride " + std::to_string(rs) + " elements for rows of " +
              std::to_string(row_bytes) + ")";
    throw nb::value_error(("image: this view cannot be labelled in place: " + why +
                           "; pass a contiguous copy (np.ascontiguousarray(image), cupy.ascontiguousarray(image) "
                           "or tensor.contiguous())")
                              .c_str());
}

int parse_connectivity(nb::handle h) {
    if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr())) {
        // NumPy integer scalars and other objects with __index__ are integers too.
        if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
            throw nb::type_error(("connectivity: expected an int (4 or 8, or 1 or 2 as in scikit-image), got " +
                                  py_type_name(h))
                                     .c_str());
    }
    const long long v = PyLong_AsLongLong(nb::int_(h).ptr());
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        throw nb::value_error("connectivity: must be 4 or 8 (or 1 or 2 as in scikit-image)");
    }
    if (v == 4 || v == 1) return 4;
    if (v == 8 || v == 2) return 8;
    const bool volume = v == 6 || v == 18 || v == 26;
    throw nb::value_error(("connectivity: must be 4 or 8 (or 1 or 2 as in scikit-image), got " + std::to_string(v) +
                           (volume ? " (6, 18 and 26 are for (Z, Y, X) volumes)" : ""))
                              .c_str());
}

// threads: None or a non-negative int (0 and None: the library's rule, Options::threads = 0).
int parse_threads(nb::handle h) {
    if (h.is_none()) return 0;
    if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
        throw nb::type_error(("threads: expected None or an int, got " + py_type_name(h)).c_str());
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(nb::int_(h).ptr(), &overflow);
    if (overflow < 0 || (!overflow && v < 0))
        throw nb::value_error(("threads: must not be negative, got " + nb::cast<std::string>(nb::str(h))).c_str());
    if (overflow > 0 || v > 1 << 20)  // far above any machine; the library caps at what it can use anyway
        throw nb::value_error(("threads: " + nb::cast<std::string>(nb::str(h)) + " is too many (at most 1048576)")
                                  .c_str());
    return int(v);
}

cclabel::Backend parse_backend(nb::handle h) {
    if (!nb::isinstance<nb::str>(h))
        throw nb::type_error(("backend: expected 'auto', 'cpu' or 'cuda', got " + py_type_name(h)).c_str());
    const std::string s = nb::cast<std::string>(h);
    if (s == "auto") return cclabel::Backend::Auto;
    if (s == "cpu") return cclabel::Backend::Cpu;
    if (s == "cuda") return cclabel::Backend::Cuda;
    throw nb::value_error(("backend: expected 'auto', 'cpu' or 'cuda', got '" + s + "'").c_str());
}

// One integer of a background value, as the bits of a channel of @p L's format. A float that is
// a whole number (3.0, np.float32(3)) is taken as that integer: arrays of such floats are common
// as backgrounds of integer images; any other float cannot occur in the image and is refused.
std::uint64_t background_int(nb::handle h, const Layout& L, const char* what) {
    if (PyBool_Check(h.ptr()) && !L.boolean)
        throw nb::type_error((std::string("background: ") + what + " must be an int, got bool").c_str());
    nb::object value = nb::borrow(h);
    if (!PyIndex_Check(h.ptr())) {
        const bool is_float = PyFloat_Check(h.ptr()) || (PyNumber_Check(h.ptr()) && nb::hasattr(h, "is_integer") &&
                                                         !PyComplex_Check(h.ptr()));
        if (!is_float)
            throw nb::type_error((std::string("background: ") + what +
                                  " must be an int, a tuple of ints or a '#rrggbb' string, got " + py_type_name(h))
                                     .c_str());
        nb::object f = nb::steal(PyNumber_Float(h.ptr()));
        if (!f.is_valid()) throw nb::python_error();
        if (!nb::cast<bool>(f.attr("is_integer")()))
            throw nb::value_error((std::string("background: ") + what + " " + nb::cast<std::string>(nb::repr(f)) +
                                   " is not a whole number, and this " + L.dtype + " image holds integers only")
                                      .c_str());
        value = nb::steal(PyNumber_Long(f.ptr()));
        if (!value.is_valid()) throw nb::python_error();
    }
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(nb::int_(value).ptr(), &overflow);
    long long lo = 0, hi = 255;
    const int bits = L.boolean ? 1 : cclabel::bytes_per_pixel(L.format) * 8;
    if (L.boolean) hi = 1;
    else if (cclabel::channels(L.format) > 1) hi = 255;
    else if (L.is_signed) lo = -(1LL << (bits - 1)), hi = (1LL << (bits - 1)) - 1;
    else hi = (1LL << bits) - 1;
    if (overflow || v < lo || v > hi) {
        std::string got = overflow ? nb::cast<std::string>(nb::str(value)) : std::to_string(v);
        throw nb::value_error((std::string("background: ") + what + " " + got + " is out of range for " + L.dtype +
                               " (" + std::to_string(lo) + ".." + std::to_string(hi) + ")")
                                  .c_str());
    }
    if (L.boolean && v != 0)
        throw nb::value_error("background: a bool image's background is always False (zero); got True");
    // Signed types: the two's complement bits of the channel's width (the key the pixels have).
    const std::uint64_t mask = bits >= 32 ? 0xFFFFFFFFull : (1ull << bits) - 1;
    return std::uint64_t(v) & mask;
}

std::optional<std::vector<std::uint64_t>> parse_background(nb::handle h, const Layout& L) {
    if (h.is_none()) return std::nullopt;
    const int ch = cclabel::channels(L.format);
    const std::string fmt = ch == 3 ? "RGB" : ch == 4 ? "RGBA" : L.dtype;
    if (nb::isinstance<nb::str>(h)) {
        const std::string s = nb::cast<std::string>(h);
        if (ch == 1)
            throw nb::type_error(("background: a colour string ('" + s + "') needs an RGB or RGBA image; this " +
                                  L.dtype + " image takes an int")
                                     .c_str());
        const std::size_t digits = std::size_t(2 * ch);
        bool ok = s.size() == digits + 1 && s[0] == '#';
        for (std::size_t i = 1; ok && i < s.size(); ++i) ok = std::isxdigit(static_cast<unsigned char>(s[i])) != 0;
        if (!ok)
            throw nb::value_error(("background: '" + s + "' is not a colour of an " + fmt + " image; expected '" +
                                   (ch == 3 ? "#rrggbb'" : "#rrggbbaa'") + " (hexadecimal digits)")
                                      .c_str());
        std::vector<std::uint64_t> v;
        for (int c = 0; c < ch; ++c) v.push_back(std::stoul(s.substr(1 + 2 * std::size_t(c), 2), nullptr, 16));
        return v;
    }
    const bool number = PyIndex_Check(h.ptr()) || PyBool_Check(h.ptr()) || PyFloat_Check(h.ptr()) ||
                        (PyNumber_Check(h.ptr()) && nb::hasattr(h, "is_integer") && !PyComplex_Check(h.ptr()));
    if (number) {
        if (ch != 1)
            throw nb::value_error(("background: an " + fmt + " image needs " + std::to_string(ch) +
                                   " values, e.g. a tuple of ints or " + (ch == 3 ? "'#ffffff'" : "'#ffffffff'") +
                                   ", got a single int")
                                      .c_str());
        return std::vector<std::uint64_t>{background_int(h, L, "value")};
    }
    if (PySequence_Check(h.ptr()) && !nb::isinstance<nb::bytes>(h)) {
        const Py_ssize_t n = PySequence_Size(h.ptr());
        if (n < 0) {
            PyErr_Clear();
            throw nb::type_error(("background: cannot read " + py_type_name(h) + " as a sequence").c_str());
        }
        if (n != ch)
            throw nb::value_error(("background: has " + std::to_string(n) + " value(s), but a pixel of this " + fmt +
                                   " image has " + std::to_string(ch))
                                      .c_str());
        std::vector<std::uint64_t> v;
        for (Py_ssize_t i = 0; i < n; ++i) {
            nb::object item = nb::steal(PySequence_GetItem(h.ptr(), i));
            if (!item.is_valid()) throw nb::python_error();
            v.push_back(background_int(item, L, ("channel " + std::to_string(i)).c_str()));
        }
        return v;
    }
    throw nb::type_error(("background: expected None, an int, a tuple of ints or a '#rrggbb' string, got " +
                          py_type_name(h))
                             .c_str());
}

// Checks an output (or counts) array: uint32, C-contiguous, writable, the expected shape, on the
// image's device, not overlapping the image.
OutArray import_out(nb::handle h, const char* name, const std::vector<std::int64_t>& want, const Layout& L,
                    bool int32_ok) {
    OutArray a;
    if (!nb::try_cast(h, a, /*convert=*/false)) {
        InArray ro;
        if (nb::try_cast(h, ro, false))
            throw nb::value_error((std::string(name) + ": the array is read-only").c_str());
        throw nb::type_error((std::string(name) + ": expected a writable uint32 array, got " + py_type_name(h)).c_str());
    }
    if (!is<std::uint32_t>(a.dtype()) && !(int32_ok && is<std::int32_t>(a.dtype())))
        throw nb::type_error((std::string(name) + ": dtype must be uint32, got " + dtype_str(a.dtype())).c_str());
    std::vector<std::int64_t> shape;
    for (std::size_t i = 0; i < a.ndim(); ++i) shape.push_back(std::int64_t(a.shape(i)));
    if (shape != want)
        throw nb::value_error((std::string(name) + ": shape must be " + shape_str(want) + " for this image, got " +
                               shape_str(shape))
                                  .c_str());
    if (a.stride_ptr() && a.size() != 0) {
        std::int64_t c = 1;
        for (std::size_t i = a.ndim(); i-- > 0;) {
            if (a.shape(i) != 1 && a.stride(i) != c)
                throw nb::value_error((std::string(name) + ": must be C-contiguous").c_str());
            c *= std::int64_t(a.shape(i));
        }
    }
    const bool same_device = (on_host(a.device_type()) && on_host(L.device_type)) ||
                             (on_gpu(a.device_type()) && on_gpu(L.device_type) && a.device_id() == L.device_id);
    if (!same_device)
        throw nb::value_error((std::string(name) + ": must be on the image's device (" +
                               device_str(L.device_type, L.device_id) + "), got " +
                               device_str(a.device_type(), a.device_id()))
                                  .c_str());
    // Overlap with the image (bounding byte ranges).
    if (a.size() != 0 && L.B * L.H * L.W != 0) {
        const auto* o0 = static_cast<const std::uint8_t*>(a.data_handle()) + a.byte_offset();
        const auto* o1 = o0 + a.nbytes();
        const std::int64_t bpp = cclabel::bytes_per_pixel(L.format);
        const std::int64_t span_b = (L.B - 1) * L.batch_stride, span_r = (L.H - 1) * L.row_stride;
        const std::uint8_t* i0 = L.data + std::min<std::int64_t>(0, span_b);
        const std::uint8_t* i1 = L.data + std::max<std::int64_t>(0, span_b) + span_r + L.W * bpp;
        if (o0 < i1 && i0 < o1)
            throw nb::value_error((std::string(name) + ": must not overlap the image").c_str());
    }
    return a;
}

cclabel::ImageView view_of(const Layout& L, std::int64_t b) {
    return cclabel::ImageView{L.data + b * L.batch_stride, L.W, L.H, L.row_stride, L.format};
}

cclabel::BatchView batch_of(const Layout& L) {
    return cclabel::BatchView{L.data, L.B, L.W, L.H, L.row_stride, L.batch_stride, L.format};
}

// A batch whose images lie one after another (what label_batch_device stacks into one set of
// launches). Other batch strides (broadcast 0, negative, overlapping) go image by image.
bool stackable(const Layout& L) { return L.batch && L.B > 1 && L.batch_stride == L.H * L.row_stride; }

// _inspect(image, connectivity, background, backend) -> dict: checks every argument but out and
// says what the Python layer needs to allocate the result.
nb::dict py_inspect(nb::handle image, nb::handle connectivity, nb::handle background, nb::handle backend,
                    bool as_unsigned, nb::handle threads, nb::handle tolerance) {
    InArray a = import_image(image);
    bool needs_copy = false;
    Layout L = inspect(a, &needs_copy, as_unsigned);
    cclabel::Options opt;
    opt.connectivity = parse_connectivity(connectivity);
    opt.background = parse_background(background, L);
    opt.backend = parse_backend(backend);
    opt.threads = parse_threads(threads);
    opt.tolerance = cclabel_py::tolerance_arg(tolerance);
    const bool gpu = on_gpu(L.device_type);
    if (gpu && opt.backend == cclabel::Backend::Cpu)
        throw nb::value_error("backend: 'cpu' cannot label an array on the GPU; copy it to the host first, "
                              "or use backend='auto' or 'cuda'");
    std::uint64_t workspace = 0;
    {  // sizes, strides, limits: before the caller allocates anything (a copy included)
        const std::uint32_t dummy = 0;
        cclabel::ImageView v = view_of(L, 0);
        if (needs_copy) v.stride = 0;  // as the C-order copy will be
        cclabel::validate(v, &dummy, opt);
    }
    if (gpu && !needs_copy) {
#if CCLABEL_HAVE_CUDA
        std::size_t bytes = 0;
        // A batch goes through the batched labeller (one set of launches for packed images).
        if (stackable(L))
            cclabel::cuda::label_batch_device(nullptr, bytes, batch_of(L), nullptr, nullptr, opt, nullptr);
        else
            cclabel::cuda::label_device(nullptr, bytes, view_of(L, 0), nullptr, nullptr, opt, nullptr);
        workspace = bytes;
#else
        throw nb::value_error("image: is on the GPU, but this cclabel was built without CUDA (nvcc was not found "
                              "when it was installed); copy the array to the host or reinstall with nvcc on PATH");
#endif
    }
    nb::dict r;
    r["needs_copy"] = needs_copy;
    r["batch"] = L.batch;
    r["shape"] = L.batch ? nb::make_tuple(L.B, L.H, L.W) : nb::make_tuple(L.H, L.W);
    r["gpu"] = gpu;
    r["device_id"] = L.device_id;
    r["workspace_bytes"] = workspace;
    return r;
}

// _label(image, out, counts, connectivity, background, backend, stream, workspace): labels into
// out and writes the counts (shape (B,) or ()), on the image's device.
// The backend the calling thread's last label() of a host array ran on (Auto resolved), for the
// benchmark of backend="auto" (bench/auto_sweep.py); "" before any.
thread_local std::string last_backend;

std::string py_last_backend() { return last_backend; }

void py_label(nb::handle image, nb::handle out, nb::handle counts, nb::handle connectivity, nb::handle background,
              nb::handle backend, std::uintptr_t stream, nb::handle workspace, bool as_unsigned, bool out_int32,
              nb::handle threads, nb::handle tolerance) {
    InArray a = import_image(image);
    Layout L = inspect(a, nullptr, as_unsigned);
    cclabel::Options opt;
    opt.connectivity = parse_connectivity(connectivity);
    opt.background = parse_background(background, L);
    opt.backend = parse_backend(backend);
    opt.threads = parse_threads(threads);
    opt.tolerance = cclabel_py::tolerance_arg(tolerance);
    const std::vector<std::int64_t> want =
        L.batch ? std::vector<std::int64_t>{L.B, L.H, L.W} : std::vector<std::int64_t>{L.H, L.W};
    OutArray o = import_out(out, "out", want, L, out_int32);
    OutArray n = import_out(counts, "counts", L.batch ? std::vector<std::int64_t>{L.B} : std::vector<std::int64_t>{},
                            L, out_int32);
    auto* labels = static_cast<std::uint32_t*>(o.data_handle()) + o.byte_offset() / 4;
    auto* count = static_cast<std::uint32_t*>(n.data_handle()) + n.byte_offset() / 4;
    const std::int64_t plane = L.H * L.W;

    if (on_host(L.device_type)) {
        if (L.B == 0) return;
        cclabel::validate(view_of(L, 0), plane ? labels : nullptr, opt);
        nb::gil_scoped_release unlock;
        if (stackable(L)) {
            // One call for the whole batch: auto weighs it as one workload, and the GPU takes it in
            // one transfer each way and one set of launches.
            const cclabel::BatchResult r = cclabel::label_batch(batch_of(L), labels, opt);
            for (std::int64_t b = 0; b < L.B; ++b) count[b] = r.counts[std::size_t(b)];
            last_backend = r.backend == cclabel::Backend::Cuda ? "cuda" : "cpu";
            return;
        }
        for (std::int64_t b = 0; b < L.B; ++b) {
            const cclabel::LabelResult r = cclabel::label(view_of(L, b), labels + b * plane, opt);
            count[b] = r.count;
            last_backend = r.backend == cclabel::Backend::Cuda ? "cuda" : "cpu";
        }
        return;
    }
#if CCLABEL_HAVE_CUDA
    if (opt.backend == cclabel::Backend::Cpu)
        throw nb::value_error("backend: 'cpu' cannot label an array on the GPU; copy it to the host first, "
                              "or use backend='auto' or 'cuda'");
    nb::ndarray<> ws;
    void* ws_ptr = nullptr;
    std::size_t ws_bytes = 0;
    if (!workspace.is_none()) {
        if (!nb::try_cast(workspace, ws, false) || !on_gpu(ws.device_type()) || ws.device_id() != L.device_id)
            throw nb::type_error("workspace: expected a writable byte array on the image's GPU");
        ws_ptr = static_cast<std::uint8_t*>(ws.data_handle()) + ws.byte_offset();
        ws_bytes = ws.nbytes();
    }
    if (L.B == 0) return;
    auto s = reinterpret_cast<cudaStream_t>(stream);
    nb::gil_scoped_release unlock;
    int previous = -1;
    if (cudaGetDevice(&previous) != cudaSuccess) previous = -1;
    if (previous != L.device_id) {
        const cudaError_t e = cudaSetDevice(L.device_id);
        if (e != cudaSuccess)
            throw cclabel::Error("cudaSetDevice(" + std::to_string(L.device_id) + "): " + cudaGetErrorString(e));
    }
    struct Restore {
        int dev, prev;
        ~Restore() {
            if (prev >= 0 && prev != dev) cudaSetDevice(prev);
        }
    } restore{L.device_id, previous};
    if (plane == 0) {  // empty images: N = 0 each, nothing to launch
        const cudaError_t e = cudaMemsetAsync(count, 0, std::size_t(L.B) * sizeof(std::uint32_t), s);
        if (e != cudaSuccess) throw cclabel::Error(std::string("cudaMemsetAsync: ") + cudaGetErrorString(e));
        return;
    }
    if (ws_ptr == nullptr) throw cclabel::Error("label_device: no workspace was given");
    if (stackable(L)) {
        std::size_t bytes = ws_bytes;
        cclabel::cuda::label_batch_device(ws_ptr, bytes, batch_of(L), labels, count, opt, s);
        return;
    }
    for (std::int64_t b = 0; b < L.B; ++b) {
        std::size_t bytes = ws_bytes;
        cclabel::cuda::label_device(ws_ptr, bytes, view_of(L, b), labels + b * plane, count + b, opt, s);
    }
#else
    (void)stream;
    (void)workspace;
    throw nb::value_error("image: is on the GPU, but this cclabel was built without CUDA");
#endif
}

// --- region statistics and filters ---------------------------------------------------------------

// A label image argument: uint32 (H, W), C-contiguous; writable when asked for.
struct LabelArg {
    std::uint32_t* data = nullptr;
    std::int64_t H = 0, W = 0;
    int device_type = kCpu, device_id = 0;
};

template <typename Arr>
LabelArg label_arg(const Arr& a) {
    LabelArg L;
    if (!is<std::uint32_t>(a.dtype()))
        throw nb::type_error(("labels: dtype must be uint32, got " + dtype_str(a.dtype()) +
                              " (convert with .astype(np.uint32))")
                                 .c_str());
    if (a.ndim() != 2)
        throw nb::value_error(("labels: expected shape (H, W), got " + std::to_string(a.ndim()) + " dimensions").c_str());
    L.H = std::int64_t(a.shape(0));
    L.W = std::int64_t(a.shape(1));
    if (a.stride_ptr() && L.H * L.W != 0 && !((L.W == 1 || a.stride(1) == 1) && (L.H == 1 || a.stride(0) == L.W)))
        throw nb::value_error("labels: must be C-contiguous (np.ascontiguousarray(labels))");
    L.device_type = a.device_type();
    L.device_id = a.device_id();
    if (!on_host(L.device_type) && !on_gpu(L.device_type))
        throw nb::value_error(("labels: arrays on " + device_str(L.device_type, L.device_id) + " are not supported").c_str());
    L.data = reinterpret_cast<std::uint32_t*>(
        const_cast<std::uint8_t*>(static_cast<const std::uint8_t*>(a.data_handle())) + a.byte_offset());
    return L;
}

LabelArg import_labels(nb::handle h, bool writable) {
    if (h.is_none()) throw nb::type_error("labels: expected a uint32 array, got None");
    OutArray w;
    if (nb::try_cast(h, w, /*convert=*/false)) return label_arg(w);
    InArray ro;
    if (!nb::try_cast(h, ro, false))
        throw nb::type_error(("labels: expected a uint32 array (NumPy or CuPy), got " + py_type_name(h)).c_str());
    if (writable) throw nb::value_error("labels: the array is read-only");
    return label_arg(ro);  // read, never written
}

// The image of a regions call: one (H, W) picture on the labels' device.
Layout import_stats_image(nb::handle image, const LabelArg& lab) {
    InArray a = import_image(image);
    Layout L = inspect(a, nullptr, false);
    if (L.batch) throw nb::value_error("image: regions() takes one image, not a batch; call it per image");
    if (L.H != lab.H || L.W != lab.W)
        throw nb::value_error(("image: shape (" + std::to_string(L.H) + ", " + std::to_string(L.W) +
                               ") does not match the labels' (" + std::to_string(lab.H) + ", " + std::to_string(lab.W) +
                               ")")
                                  .c_str());
    if (on_gpu(L.device_type) != on_gpu(lab.device_type) || (on_gpu(L.device_type) && L.device_id != lab.device_id))
        throw nb::value_error(("image: must be on the labels' device (" + device_str(lab.device_type, lab.device_id) +
                               "), got " + device_str(L.device_type, L.device_id))
                                  .c_str());
    return L;
}

std::uint64_t parse_count(nb::handle h, const char* name) {
    if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
        throw nb::type_error((std::string(name) + ": expected an int, got " + py_type_name(h)).c_str());
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(nb::int_(h).ptr(), &overflow);
    if (overflow || v < 0)
        throw nb::value_error((std::string(name) + ": must be a non-negative int, got " +
                               nb::cast<std::string>(nb::str(h)))
                                  .c_str());
    return std::uint64_t(v);
}

// _regions(labels, image, connectivity, backend) -> (N + 1, 10) uint64 NumPy array of RegionStats rows.
nb::ndarray<nb::numpy, std::uint64_t> py_regions(nb::handle labels, nb::handle image, nb::handle connectivity,
                                                 nb::handle backend, nb::handle threads) {
    const LabelArg lab = import_labels(labels, false);
    const Layout L = import_stats_image(image, lab);
    if (!on_host(L.device_type)) throw nb::value_error("labels: on the GPU; use the device path");
    cclabel::Options opt;
    opt.connectivity = parse_connectivity(connectivity);
    opt.backend = parse_backend(backend);
    opt.threads = parse_threads(threads);
    auto* rows = new std::vector<cclabel::RegionStats>();
    nb::capsule owner(rows, [](void* p) noexcept { delete static_cast<std::vector<cclabel::RegionStats>*>(p); });
    {
        nb::gil_scoped_release unlock;
        *rows = cclabel::regions(view_of(L, 0), lab.H * lab.W != 0 ? lab.data : nullptr, opt);
    }
    const std::size_t shape[2] = {rows->size(), 10};
    return nb::ndarray<nb::numpy, std::uint64_t>(static_cast<void*>(rows->data()), 2, shape, owner);
}

// _filter(labels, largest, param, backend, threads) -> M: remove_small / keep_largest in place on
// the host. threads is validated only: the library's CPU filters run on one thread (stats.hpp).
std::uint32_t py_filter(nb::handle labels, bool largest, nb::handle param, nb::handle backend, nb::handle threads) {
    const LabelArg lab = import_labels(labels, true);
    if (!on_host(lab.device_type)) throw nb::value_error("labels: on the GPU; use the device path");
    const std::uint64_t p = parse_count(param, largest ? "k" : "min_size");
    const cclabel::Backend b = parse_backend(backend);
    (void)parse_threads(threads);
    if (largest && p > 0xFFFFFFFFull) throw nb::value_error("k: must be at most 2**32 - 1");
    nb::gil_scoped_release unlock;
    return largest ? cclabel::keep_largest(lab.data, lab.W, lab.H, std::uint32_t(p), b)
                   : cclabel::remove_small(lab.data, lab.W, lab.H, p, b);
}

#if CCLABEL_HAVE_CUDA
struct DeviceScope {
    int prev = -1, dev = 0;
    explicit DeviceScope(int d) : dev(d) {
        if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
        if (prev != dev) {
            const cudaError_t e = cudaSetDevice(dev);
            if (e != cudaSuccess) throw cclabel::Error("cudaSetDevice(" + std::to_string(dev) + "): " + cudaGetErrorString(e));
        }
    }
    ~DeviceScope() {
        if (prev >= 0 && prev != dev) cudaSetDevice(prev);
    }
};

void* workspace_ptr(nb::handle workspace, int device_id, std::size_t& bytes) {
    nb::ndarray<> ws;
    if (!nb::try_cast(workspace, ws, false) || !on_gpu(ws.device_type()) || ws.device_id() != device_id)
        throw nb::type_error("workspace: expected a writable byte array on the labels' GPU");
    bytes = ws.nbytes();
    return static_cast<std::uint8_t*>(ws.data_handle()) + ws.byte_offset();
}
#endif

// _regions_device(labels, image, rows, connectivity, stream, workspace): rows (capacity, 10)
// uint64 on the GPU, N = the largest label (found on the GPU), on the caller's stream.
void py_regions_device(nb::handle labels, nb::handle image, nb::handle rows, nb::handle connectivity,
                       std::uintptr_t stream, nb::handle workspace) {
#if CCLABEL_HAVE_CUDA
    const LabelArg lab = import_labels(labels, false);
    const Layout L = import_stats_image(image, lab);
    cclabel::Options opt;
    opt.connectivity = parse_connectivity(connectivity);
    OutArray r;
    if (!nb::try_cast(rows, r, false) || !is<std::uint64_t>(r.dtype()) || r.ndim() != 2 || r.shape(1) != 10 ||
        !on_gpu(r.device_type()))
        throw nb::type_error("rows: expected a writable (capacity, 10) uint64 GPU array");
    std::size_t ws_bytes = 0;
    void* ws = workspace_ptr(workspace, lab.device_id, ws_bytes);
    auto* out = reinterpret_cast<cclabel::RegionStats*>(static_cast<std::uint8_t*>(r.data_handle()) + r.byte_offset());
    nb::gil_scoped_release unlock;
    DeviceScope scope(lab.device_id);
    cclabel::cuda::regions_device(ws, ws_bytes, view_of(L, 0), lab.data, nullptr, r.shape(0), out, opt,
                                  reinterpret_cast<cudaStream_t>(stream));
#else
    (void)labels, (void)image, (void)rows, (void)connectivity, (void)stream, (void)workspace;
    throw nb::value_error("labels: are on the GPU, but this cclabel was built without CUDA");
#endif
}

// _filter_device(labels, largest, param, capacity, new_count, stream, workspace): in place on the GPU.
// With workspace None, returns the workspace size.
std::uint64_t py_filter_device(nb::handle labels, bool largest, nb::handle param, std::uint64_t capacity,
                               nb::handle new_count, std::uintptr_t stream, nb::handle workspace) {
#if CCLABEL_HAVE_CUDA
    const LabelArg lab = import_labels(labels, true);
    const std::uint64_t p = parse_count(param, largest ? "k" : "min_size");
    if (largest && p > 0xFFFFFFFFull) throw nb::value_error("k: must be at most 2**32 - 1");
    std::size_t ws_bytes = 0;
    void* ws = workspace.is_none() ? nullptr : workspace_ptr(workspace, lab.device_id, ws_bytes);
    std::uint32_t* m = nullptr;
    if (ws) {
        OutArray mc;
        if (!nb::try_cast(new_count, mc, false) || !is<std::uint32_t>(mc.dtype()) || !on_gpu(mc.device_type()))
            throw nb::type_error("new_count: expected a uint32 GPU array");
        m = reinterpret_cast<std::uint32_t*>(static_cast<std::uint8_t*>(mc.data_handle()) + mc.byte_offset());
    }
    nb::gil_scoped_release unlock;
    DeviceScope scope(lab.device_id);
    auto s = reinterpret_cast<cudaStream_t>(stream);
    if (largest)
        cclabel::cuda::keep_largest_device(ws, ws_bytes, lab.data, lab.W, lab.H, nullptr, capacity, std::uint32_t(p),
                                           m, s);
    else
        cclabel::cuda::remove_small_device(ws, ws_bytes, lab.data, lab.W, lab.H, nullptr, capacity, p, m, s);
    return ws_bytes;
#else
    (void)labels, (void)largest, (void)param, (void)capacity, (void)new_count, (void)stream, (void)workspace;
    throw nb::value_error("labels: are on the GPU, but this cclabel was built without CUDA");
#endif
}

// _needs_copy(image) -> bool: whether the image must be copied to C order to be read (regions()).
bool py_needs_copy(nb::handle image) {
    InArray a = import_image(image);
    bool needs_copy = false;
    (void)inspect(a, &needs_copy, false);
    return needs_copy;
}

// _inspect_labels(labels) -> dict(gpu, device_id, shape): for the Python layer's allocations.
nb::dict py_inspect_labels(nb::handle labels) {
    const LabelArg lab = import_labels(labels, false);
    nb::dict r;
    r["gpu"] = on_gpu(lab.device_type);
    r["device_id"] = lab.device_id;
    r["shape"] = nb::make_tuple(lab.H, lab.W);
    return r;
}

// --- the tile steps (cclabel/tiles.hpp), for schedulers such as Dask ----------------------------
// Tables cross this boundary as NumPy arrays (1-D, C-contiguous, the exact dtype: the Python layer
// converts) so that they pickle as they are; a tile is (x0, y0, width, height, image_width,
// first_index, edge_keys, edge_labels).

template <typename T>
using Vec = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& v, std::size_t cols = 1) {
    auto* owned = new std::vector<T>(std::move(v));
    nb::capsule owner(owned, [](void* q) noexcept { delete static_cast<std::vector<T>*>(q); });
    const std::size_t shape[2] = {owned->size() / cols, cols};
    return nb::ndarray<nb::numpy, T>(owned->data(), cols == 1 ? 1 : 2, shape, owner);
}

template <typename T>
std::vector<T> to_vector(const Vec<T>& a) {
    return std::vector<T>(a.data(), a.data() + a.shape(0));
}

using TileTuple = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, Vec<std::uint64_t>,
                             Vec<std::uint32_t>, Vec<std::uint32_t>>;

cclabel::TileInfo tile_of(const TileTuple& t) {
    cclabel::TileInfo info;
    info.rect = cclabel::TileRect{std::get<0>(t), std::get<1>(t), std::get<2>(t), std::get<3>(t)};
    info.image_width = std::get<4>(t);
    info.first_index = to_vector(std::get<5>(t));
    info.edge_keys = to_vector(std::get<6>(t));
    info.edge_labels = to_vector(std::get<7>(t));
    return info;
}

// _label_tile(tile, labels, x0, y0, image_width, connectivity, background, backend)
//   -> (first_index uint64, edge_keys uint32, edge_labels uint32); labels (h, w) uint32 is written.
std::tuple<nb::ndarray<nb::numpy, std::uint64_t>, nb::ndarray<nb::numpy, std::uint32_t>,
           nb::ndarray<nb::numpy, std::uint32_t>>
py_label_tile(nb::handle image, nb::ndarray<std::uint32_t, nb::ndim<2>, nb::c_contig, nb::device::cpu> labels,
              std::int64_t x0, std::int64_t y0, std::int64_t image_width, nb::handle connectivity,
              nb::handle background, nb::handle backend, nb::handle threads) {
    InArray a = import_image(image);
    const Layout L = inspect(a, nullptr, false);
    if (L.batch) throw nb::value_error("tile: one (H, W) or (H, W, 3|4) tile, not a batch");
    if (!on_host(L.device_type)) throw nb::value_error("tile: label_tile takes host arrays; label GPU tiles with label()");
    if (std::int64_t(labels.shape(0)) != L.H || std::int64_t(labels.shape(1)) != L.W)
        throw nb::value_error("labels: shape must be the tile's (H, W)");
    cclabel::Options opt;
    opt.connectivity = parse_connectivity(connectivity);
    opt.background = parse_background(background, L);
    opt.backend = parse_backend(backend);
    opt.threads = parse_threads(threads);
    cclabel::TileInfo info;
    {
        nb::gil_scoped_release unlock;
        info = cclabel::label_tile(view_of(L, 0), x0, y0, image_width, L.H * L.W != 0 ? labels.data() : nullptr, opt);
    }
    return {to_numpy(std::move(info.first_index)), to_numpy(std::move(info.edge_keys)),
            to_numpy(std::move(info.edge_labels))};
}

// _seam(a, b, connectivity) -> (k, 2) uint32 pairs (label in a, label in b).
nb::ndarray<nb::numpy, std::uint32_t> py_seam(const TileTuple& a, const TileTuple& b, nb::handle connectivity) {
    const int conn = parse_connectivity(connectivity);
    const cclabel::TileInfo ta = tile_of(a), tb = tile_of(b);
    std::vector<std::uint32_t> pairs;
    {
        nb::gil_scoped_release unlock;
        pairs = cclabel::seam_equivalences(ta, tb, conn);
    }
    return to_numpy(std::move(pairs), 2);
}

// _resolve(first_indices, seams: [(tile_a, tile_b, pairs (k, 2) uint32 flattened)]) -> (N, [map uint64]).
std::tuple<std::uint64_t, std::vector<nb::ndarray<nb::numpy, std::uint64_t>>> py_resolve(
    const std::vector<Vec<std::uint64_t>>& first_indices,
    const std::vector<std::tuple<std::uint64_t, std::uint64_t, Vec<std::uint32_t>>>& seams) {
    std::vector<std::vector<std::uint64_t>> fi;
    fi.reserve(first_indices.size());
    for (const auto& f : first_indices) fi.push_back(to_vector(f));
    std::vector<cclabel::Seam> ss;
    ss.reserve(seams.size());
    for (const auto& [ta, tb, pairs] : seams) ss.push_back(cclabel::Seam{ta, tb, to_vector(pairs)});
    cclabel::Resolution res;
    {
        nb::gil_scoped_release unlock;
        res = cclabel::resolve_tiles(fi, ss);
    }
    std::vector<nb::ndarray<nb::numpy, std::uint64_t>> maps;
    maps.reserve(res.maps.size());
    for (auto& m : res.maps) maps.push_back(to_numpy(std::move(m)));
    return {res.count, std::move(maps)};
}

// _relabel(local (h, w) uint32, map uint64, out (h, w) uint32 or uint64).
void py_relabel(nb::ndarray<const std::uint32_t, nb::ndim<2>, nb::c_contig, nb::device::cpu> local,
                const Vec<std::uint64_t>& map, nb::ndarray<nb::ndim<2>, nb::c_contig, nb::device::cpu> out) {
    if (out.shape(0) != local.shape(0) || out.shape(1) != local.shape(1))
        throw nb::value_error("out: shape must be the local labels' shape");
    const std::vector<std::uint64_t> m = to_vector(map);
    const auto h = std::int64_t(local.shape(0)), w = std::int64_t(local.shape(1));
    if (is<std::uint32_t>(out.dtype())) {
        nb::gil_scoped_release unlock;
        cclabel::relabel_tile(local.data(), w, h, m, static_cast<std::uint32_t*>(out.data()), w);
    } else if (is<std::uint64_t>(out.dtype())) {
        nb::gil_scoped_release unlock;
        cclabel::relabel_tile(local.data(), w, h, m, static_cast<std::uint64_t*>(out.data()), w);
    } else {
        throw nb::type_error(("out: dtype must be uint32 or uint64, got " + dtype_str(out.dtype())).c_str());
    }
}

}  // namespace

void register_tree_merge(nb::module_& m);  // tree_merge.cpp: cclabel.dask's merge step

void bind_graph(nb::module_& m);  // graph.cpp: tolerance labelling and the adjacency graph

void bind_volume(nb::module_& m);  // volume.cpp: 3-D volumes on the CPU

void bind_volume_stats(nb::module_& m);  // volume_stats.cpp: regions() of 3-D volumes

void bind_verify(nb::module_& m);  // verify.cpp: the certificate of pictures and volumes

void bind_slab_seam(nb::module_& m);  // slab_seam.cpp: the seams of cclabel.label_slabs

void bind_host_output(nb::module_& m);  // host_output.cpp: new label arrays from reused buffers

NB_MODULE(_cclabel, m) {
    m.doc() = "cclabel's compiled core; use the functions of the cclabel package.";
    bind_graph(m);
    bind_volume(m);
    bind_volume_stats(m);
    bind_verify(m);
    bind_slab_seam(m);
    bind_host_output(m);
    m.attr("__version__") = CCLABEL_VERSION_STRING;
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const cclabel::Error& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        }
    });
    m.def("_inspect", &py_inspect, "image"_a.none(), "connectivity"_a.none(), "background"_a.none(), "backend"_a.none(),
          "as_unsigned"_a = false, "threads"_a.none() = nb::none(), "tolerance"_a.none() = nb::none());
    m.def("_label", &py_label, "image"_a.none(), "out"_a.none(), "counts"_a, "connectivity"_a.none(),
          "background"_a.none(), "backend"_a.none(), "stream"_a, "workspace"_a.none(), "as_unsigned"_a = false,
          "out_int32"_a = false, "threads"_a.none() = nb::none(), "tolerance"_a.none() = nb::none());
    m.def("_regions", &py_regions, "labels"_a.none(), "image"_a.none(), "connectivity"_a.none(), "backend"_a.none(),
          "threads"_a.none() = nb::none());
    m.def("_filter", &py_filter, "labels"_a.none(), "largest"_a, "param"_a.none(), "backend"_a.none(),
          "threads"_a.none() = nb::none());
    m.def("_needs_copy", &py_needs_copy, "image"_a.none());
    m.def("_last_backend", &py_last_backend);
    m.def("_threads", &parse_threads, "threads"_a.none());
    m.def("_regions_device", &py_regions_device, "labels"_a.none(), "image"_a.none(), "rows"_a.none(),
          "connectivity"_a.none(), "stream"_a, "workspace"_a.none());
    m.def("_filter_device", &py_filter_device, "labels"_a.none(), "largest"_a, "param"_a.none(), "capacity"_a,
          "new_count"_a.none(), "stream"_a, "workspace"_a.none());
    m.def("_inspect_labels", &py_inspect_labels, "labels"_a.none());
    m.def("_label_tile", &py_label_tile, "image"_a.none(), "labels"_a, "x0"_a, "y0"_a, "image_width"_a,
          "connectivity"_a.none(), "background"_a.none(), "backend"_a.none(), "threads"_a.none() = nb::none());
    m.def("_check_threads", &parse_threads, "threads"_a.none(),
          "Validates a threads= argument as every call does; returns it as an int (None: 0).");
    m.def("_seam", &py_seam, "a"_a, "b"_a, "connectivity"_a.none());
    m.def("_resolve", &py_resolve, "first_indices"_a, "seams"_a);
    m.def("_relabel", &py_relabel, "local"_a, "map"_a, "out"_a);
    register_tree_merge(m);
    m.def("cuda_available", &cclabel::cuda_available,
          "True where this build has the CUDA backend and a CUDA device is present.");
#if CCLABEL_HAVE_CUDA
    m.attr("built_with_cuda") = true;
#else
    m.attr("built_with_cuda") = false;
#endif
}
