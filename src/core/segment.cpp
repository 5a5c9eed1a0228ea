// The public segmentation functions: validate, pick the backend, run it.
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/segment.hpp"
#include "core/backends.hpp"
#include "core/request.hpp"
#include "core/segment_backends.hpp"

namespace cclabel {

namespace {

struct Checked {
    seg::Picture picture{};
    int threads = 1;
    Backend backend = Backend::Cpu;
    bool empty = true;
};

/// Validates the view, backend and threads as label() does, then the output pointer.
Checked check(const char* what, const ImageView& image, const void* out, const char* out_name, Backend backend,
              int threads) {
    Options o;
    o.backend = backend;
    o.threads = threads;
    static std::uint32_t dummy;
    const detail::Request r = detail::make_request(image, &dummy, o);
    Checked c;
    c.empty = r.pixels() == 0;
    if (!c.empty && out == nullptr)
        throw Error(std::string(what) + ": " + out_name + " is null for a non-empty image");
    c.picture = seg::Picture{r.data, std::uint64_t(r.stride), std::uint32_t(r.width), std::uint32_t(r.height),
                             int(r.format)};
    c.threads = r.threads;
    c.backend = backend;
    c.backend = detail::resolve_auto(backend, detail::Workload{detail::Workload::Op::Segment, r.pixels(), r.format, r.threads});
    return c;
}

[[noreturn]] void bad_format(const char* what, PixelFormat f, const char* supported) {
    throw Error(std::string(what) + ": " + std::string(format_name(f)) + " images are not supported (supported: " +
                supported + ")");
}

}  // namespace

std::uint32_t otsu_threshold(const ImageView& image, const SegmentOptions& options) {
    const Checked c = check("otsu_threshold", image, &image, "", options.backend, options.threads);
    if (image.format == PixelFormat::Binary8 || image.format == PixelFormat::U32)
        bad_format("otsu_threshold", image.format, "gray8, gray16, rgb8, rgba8");
    // A Cuda request without a device fails even for an empty image, as label() does.
    if (c.backend == Backend::Cuda && (!c.empty || !detail::cuda_device_present())) return detail::otsu_cuda_host(c.picture);
    if (c.empty) return 0;
    std::vector<std::uint32_t> hist(seg::histogram_bins(c.picture.format));
    detail::histogram_cpu(c.picture, c.threads, hist.data());
    return detail::otsu_from_histogram(hist.data(), std::uint32_t(hist.size()));
}

void threshold(const ImageView& image, std::uint32_t t, std::uint8_t* mask, const SegmentOptions& options) {
    const Checked c = check("threshold", image, mask, "mask", options.backend, options.threads);
    if (image.format == PixelFormat::Binary8) bad_format("threshold", image.format, "gray8, gray16, u32, rgb8, rgba8");
    if (c.backend == Backend::Cuda && (!c.empty || !detail::cuda_device_present()))
        return detail::threshold_cuda_host(c.picture, t, mask);
    if (c.empty) return;
    detail::threshold_cpu(c.picture, c.threads, t, mask);
}

KMeansResult kmeans(const ImageView& image, std::uint32_t* clusters, const KMeansOptions& options) {
    const Checked c = check("kmeans", image, clusters, "cluster buffer", options.backend, options.threads);
    if (image.format != PixelFormat::RGB8 && image.format != PixelFormat::RGBA8 && image.format != PixelFormat::Gray8)
        bad_format("kmeans", image.format, "rgb8, rgba8, gray8");
    if (options.k < 1 || options.k > kKMeansMaxK)
        throw Error("kmeans: k must be 1.." + std::to_string(kKMeansMaxK) + " (got " + std::to_string(options.k) + ")");
    if (options.max_iterations < 0)
        throw Error("kmeans: max_iterations must not be negative (got " + std::to_string(options.max_iterations) + ")");
    if (c.backend == Backend::Cuda && (!c.empty || !detail::cuda_device_present()))
        return detail::kmeans_cuda_host(c.picture, clusters, options);
    if (c.empty) {
        KMeansResult r;
        r.centres.assign(std::size_t(options.k), {0.f, 0.f, 0.f});
        r.backend = c.backend;
        return r;
    }
    return detail::kmeans_cpu(c.picture, c.threads, clusters, options);
}

}  // namespace cclabel
