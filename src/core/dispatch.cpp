// The host API: validate once, pick the backend, run it.
#include <algorithm>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "core/backends.hpp"
#include "core/format_keys.hpp"
#include "core/format_value.hpp"
#include "core/request.hpp"
#include "cpu/label_cpu.hpp"
#include "cpu/tolerance_cpu.hpp"

namespace cclabel {

bool cuda_available() noexcept { return detail::cuda_device_present(); }

LabelResult label(const ImageView& image, std::uint32_t* out, const Options& options) {
    const detail::Request r = detail::make_request(image, out, options, true);
    if (r.tolerance_value > 0) {  // a typed picture compared by value (cpu/tolerance_cpu.cpp)
        if (options.backend == Backend::Cuda)
            throw Error("tolerance " + detail::format_double(r.tolerance_value) + " is not yet supported for " +
                        std::string(format_name(image.format)) + " on the GPU (backend cuda); use backend cpu or auto");
        return LabelResult{r.pixels() ? cpu::label_tolerance_typed(r, out) : 0, Backend::Cpu};
    }
    if (is_typed_format(image.format)) {  // labelled as a picture of keys (core/format_keys.hpp)
        const detail::KeyedImage k = detail::keyed_image(image, options, r);
        return label(k.view, out, k.options);
    }
    const Backend use = detail::resolve_auto(options.backend, detail::Workload{r.tolerance > 0 ? detail::Workload::Op::Tolerance : detail::Workload::Op::Label,
                                                                              r.pixels(), r.format, r.threads, &r});
    if (use == Backend::Cuda && !detail::cuda_device_present())
        return LabelResult{detail::label_cuda_host(r, out), use};  // throws with the reason
    if (r.pixels() == 0) return LabelResult{0, use};
    const std::uint32_t n = use == Backend::Cuda ? detail::label_cuda_host(r, out) : cpu::label(r, out);
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
