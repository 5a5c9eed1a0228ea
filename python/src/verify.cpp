// cclabel._cclabel._verify: the certificate of a host label image or volume (cclabel::verify,
// cclabel::verify_volume): are these labels exactly what cclabel.label gives, checked in one pass
// without a second labeller. The Python layer (python/cclabel/_verify.py) has made both arrays
// C-contiguous (labels as uint32), picked the pixel format from the dtype and the channels, and
// checked the shapes; the background arrives as None, an int or a tuple of ints, the library's
// cclabel::Error (bad arguments) becomes ValueError.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "cclabel/verify.hpp"
#include "cclabel/volume_stats.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Pixels = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using Labels = nb::ndarray<const std::uint32_t, nb::c_contig, nb::device::cpu>;
using Verdict = std::tuple<bool, std::string, std::int64_t, std::int64_t, std::int64_t, std::uint32_t>;

/// Options::background from None, an int or a tuple of ints (a colour's channels).
void set_background(cclabel::Options& o, nb::handle background) {
    if (background.is_none()) return;
    std::vector<std::uint64_t> v;
    auto channel = [&](nb::handle h) {
        if (!nb::isinstance<nb::int_>(h) || nb::cast<bool>(nb::borrow<nb::int_>(h).attr("__lt__")(0)))
            throw nb::value_error("background: channels must be non-negative ints");
        v.push_back(nb::cast<std::uint64_t>(h));
    };
    if (nb::isinstance<nb::tuple>(background)) {
        for (nb::handle h : nb::borrow<nb::tuple>(background)) channel(h);
    } else {
        channel(background);
    }
    o.background = v;
}

Verdict py_verify(const Pixels& image, int format, std::int64_t depth, std::int64_t height, std::int64_t width,
                  const Labels& labels, int connectivity, nb::handle background) {
    const auto f = cclabel::PixelFormat(format);
    const std::uint64_t count = std::uint64_t(depth > 0 ? depth : 1) * std::uint64_t(height) * std::uint64_t(width);
    if (labels.size() != count) throw nb::value_error("labels: one label a pixel expected");
    if (image.size() * image.itemsize() != count * std::uint64_t(cclabel::bytes_per_pixel(f)))
        throw nb::value_error("image: its bytes do not match its shape and format");
    cclabel::Options o;
    o.connectivity = connectivity;
    set_background(o, background);
    const std::uint32_t* lab = count != 0 ? labels.data() : nullptr;
    nb::gil_scoped_release unlock;
    if (depth > 0) {
        const cclabel::VolumeView v = cclabel::make_volume_view(image.data(), width, height, depth, f);
        const cclabel::VolumeVerifyReport r = cclabel::verify_volume(v, lab, o);
        return {r.ok, r.message, r.x, r.y, r.z, r.count};
    }
    const cclabel::ImageView v = cclabel::make_view(image.data(), width, height, f);
    const cclabel::VerifyReport r = cclabel::verify(v, lab, o);
    return {r.ok, r.message, r.x, r.y, -1, r.count};
}

}  // namespace

void bind_verify(nb::module_& m) {
    m.def("_verify", &py_verify, "image"_a, "format"_a, "depth"_a, "height"_a, "width"_a, "labels"_a,
          "connectivity"_a, "background"_a.none());
}
