// The statistics and filter entry points: validate, pick the backend as label() does, run it.
#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/stats.hpp"
#include "core/backends.hpp"
#include "core/format_keys.hpp"
#include "core/request.hpp"
#include "core/stats_backends.hpp"

namespace cclabel {
namespace {

/// Auto resolved by the cost model, as label() resolves it. An empty image never needs the GPU (same
/// result), but a Cuda request without a device still fails, as label() fails.
Backend resolve(Backend b, const detail::Workload& w) {
    if (b == Backend::Auto) return detail::resolve_auto(b, w);
    if (b == Backend::Cuda && !detail::cuda_device_present()) detail::cuda_stats_unavailable();
    return b;
}

/// The filters read and write uint32 labels, on one CPU thread.
detail::Workload filter_workload(std::uint64_t pixels) {
    return {detail::Workload::Op::Filter, pixels, PixelFormat::U32, 1};
}

}  // namespace

std::vector<RegionStats> regions(const ImageView& image, const std::uint32_t* labels, const Options& options) {
    const std::uint32_t dummy = 0;
    const detail::Request r = detail::make_request(image, labels != nullptr ? labels : &dummy, options);
    if (is_typed_format(image.format)) {  // the key picture's rows, with the typed values put back
        const detail::KeyedImage k = detail::keyed_image(image, options, r);
        std::vector<RegionStats> rows = regions(k.view, labels, k.options);
        detail::restore_values(k.map, rows);
        return rows;
    }
    const Backend use = resolve(options.backend, {detail::Workload::Op::Stats, r.pixels(), r.format, r.threads});
    if (r.pixels() != 0 && labels == nullptr) throw Error("label image is null for a non-empty image");
    if (use == Backend::Cuda && r.pixels() != 0) return detail::regions_cuda_host(image, labels, options);
    return detail::regions_cpu(image, labels, options);
}

std::uint32_t remove_small(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::uint64_t min_area,
                           Backend backend) {
    const std::uint64_t pixels = detail::filter_pixels(labels, width, height);
    if (resolve(backend, filter_workload(pixels)) == Backend::Cuda && pixels != 0)
        return detail::filter_cuda_host(labels, width, height, false, min_area, 0);
    return detail::remove_small_cpu(labels, width, height, min_area);
}

std::uint32_t keep_largest(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::uint32_t k,
                           Backend backend) {
    const std::uint64_t pixels = detail::filter_pixels(labels, width, height);
    if (resolve(backend, filter_workload(pixels)) == Backend::Cuda && pixels != 0)
        return detail::filter_cuda_host(labels, width, height, true, 0, k);
    return detail::keep_largest_cpu(labels, width, height, k);
}

LabelResult label(const ImageView& image, std::uint32_t* out, const Options& options, std::vector<RegionStats>& stats) {
    const detail::Request r = detail::make_request(image, out, options);
    if (is_typed_format(image.format)) {
        const detail::KeyedImage k = detail::keyed_image(image, options, r);
        const LabelResult res = label(k.view, out, k.options, stats);
        detail::restore_values(k.map, stats);
        return res;
    }
    const Backend use = resolve(options.backend, {r.tolerance > 0 ? detail::Workload::Op::Tolerance : detail::Workload::Op::Label, r.pixels(), r.format, r.threads});
    if (use == Backend::Cuda && r.pixels() != 0)
        return LabelResult{detail::label_regions_cuda_host(image, out, options, stats), use};
    Options cpu = options;
    cpu.backend = Backend::Cpu;
    const LabelResult res = label(image, out, cpu);
    stats = detail::regions_cpu(image, out, cpu);
    return LabelResult{res.count, use};
}

}  // namespace cclabel
