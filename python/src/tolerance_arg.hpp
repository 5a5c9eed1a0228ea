#pragma once
// The `tolerance` argument of the bindings (graph.cpp's host labelling and module.cpp's device
// arrays): an int (Python or NumPy, not bool) in 0..2^32 - 1; the format's own range is the
// library's check.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>

namespace cclabel_py {

inline std::uint32_t tolerance_arg(nanobind::handle h) {
    namespace nb = nanobind;
    auto repr = [](nb::handle x) { return nb::cast<std::string>(nb::repr(x)); };
    if (h.is_none()) return 0;
    if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
        throw nb::type_error(("tolerance: must be an int, got " + repr(h) + " (" +
                              nb::cast<std::string>(nb::type_name(h.type())) + ")").c_str());
    nb::object v = nb::steal(PyNumber_Index(h.ptr()));
    if (!v.is_valid()) throw nb::python_error();
    if (PyObject_RichCompareBool(v.ptr(), nb::int_(0).ptr(), Py_LT) == 1)
        throw nb::value_error(("tolerance: must not be negative, got " + repr(v)).c_str());
    if (PyObject_RichCompareBool(v.ptr(), nb::int_(0xFFFFFFFFull).ptr(), Py_GT) == 1)
        throw nb::value_error(("tolerance: " + repr(v) + " is above 4294967295 (and above every format's range)").c_str());
    return std::uint32_t(nb::cast<std::uint64_t>(v));
}

}  // namespace cclabel_py
