// The host API: validate once, pick the backend, run it.
#include <algorithm>
#include <chrono>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "core/auto_feedback.hpp"
#include "core/backends.hpp"
#include "core/format_keys.hpp"
#include "core/format_value.hpp"
#include "core/request.hpp"
#include "cpu/label_cpu.hpp"
#include "cpu/tolerance_cpu.hpp"

namespace cclabel {
namespace {

/// What Auto weighs for a typed picture with a tolerance: the tolerance labeller of an untyped
/// format of the same width stands in for the CPU's rate (both are the same union-find over pixels,
/// differing in the compare; the probes have no typed form; 64-bit values as U32, whose copies
/// move 4 bytes a pixel fewer: the estimate favours the GPU there by that much). The picture is not
/// sampled: its density is measured on keys, which a typed picture does not have here.
detail::Workload typed_tolerance_workload(const detail::Request& r) {
    const int bpp = bytes_per_pixel(r.format);
    const PixelFormat stand_in = bpp == 1 ? PixelFormat::Gray8 : bpp == 2 ? PixelFormat::Gray16 : PixelFormat::U32;
    return detail::Workload{detail::Workload::Op::Tolerance, r.pixels(), stand_in, r.threads, nullptr};
}

}  // namespace

bool cuda_available() noexcept { return detail::cuda_device_present(); }

LabelResult label(const ImageView& image, std::uint32_t* out, const Options& options) {
    const detail::Request r = detail::make_request(image, out, options, true);
    if (r.tolerance_value > 0) {  // a typed picture compared by value (cpu/tolerance_cpu.cpp, cuda/volume_cuda.cu)
        const Backend use = detail::resolve_auto(options.backend, typed_tolerance_workload(r));
        if (use == Backend::Cuda) return LabelResult{detail::label_cuda_host(r, out), use};  // throws without a device
        return LabelResult{r.pixels() ? cpu::label_tolerance_typed(r, out) : 0, Backend::Cpu};
    }
    if (is_typed_format(image.format)) {  // labelled as a picture of keys (core/format_keys.hpp)
        const detail::KeyedImage k = detail::keyed_image(image, options, r);
        return label(k.view, out, k.options);
    }
    detail::AutoTicket ticket;
    const Backend use = detail::resolve_auto(options.backend, detail::Workload{r.tolerance > 0 ? detail::Workload::Op::Tolerance : detail::Workload::Op::Label,
                                                                              r.pixels(), r.format, r.threads, &r},
                                             &ticket);
    if (use == Backend::Cuda && !detail::cuda_device_present())
        return LabelResult{detail::label_cuda_host(r, out), use};  // throws with the reason
    if (r.pixels() == 0) return LabelResult{0, use};
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint32_t n = use == Backend::Cuda ? detail::label_cuda_host(r, out) : cpu::label(r, out);
    ticket.done(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return LabelResult{n, use};
}

Labels label(const ImageView& image, const Options& options) {
    // Validate before allocating: a dummy non-null output pointer stands in for the buffer.
    static std::uint32_t dummy;
    validate(image, &dummy, options);
    Labels l;
    l.width = std::max<std::int64_t>(image.width, 0);
    l.height = std::max<std::int64_t>(image.height, 0);
    l.data.resize(image.pixels());
    const LabelResult res = label(image, l.data.empty() ? &dummy : l.data.data(), options);
    l.count = res.count;
    return l;
}

}  // namespace cclabel
