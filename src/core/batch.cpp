// label_batch(): validate the batch once, pick the backend, run it. The CPU spreads the images
// over its threads (and a thread's share of the rest over each image when B is small); the GPU
// gets the whole batch through detail::cuda_label_batch.
#include <algorithm>
#include <chrono>
#include <exception>

#include "cclabel/batch.hpp"
#include "cclabel/label.hpp"
#include "core/auto_feedback.hpp"
#include "core/backends.hpp"
#include "core/batch_request.hpp"
#include "core/format_keys.hpp"
#include "core/parallel_for.hpp"
#include "core/probe.hpp"
#include "core/request.hpp"

namespace cclabel {
namespace {

/// The break density (core/probe.hpp) of up to 16 evenly spaced images, pixel-weighted, over a
/// 64th of the batch's pixels (at least 2^12, at most 2^16), as auto samples one picture: what the
/// images hold decides the CPU's cost as it does for one picture (a batch of masks of blobs labels
/// several times faster than one of noise); with a background, the share of the sampled runs that
/// are background too (the CPU skips their joins, cost_model.hpp).
void sample_batch(const detail::BatchRequest& r, detail::Workload& w) {
    const std::uint64_t B = r.images.size(), k = std::min<std::uint64_t>(B, 16);
    const std::uint64_t sample = std::clamp<std::uint64_t>(r.label_offsets.back() / 64, 1 << 12, 1 << 16);
    std::optional<std::uint32_t> background;
    if (B > 0) {
        static std::uint32_t dummy;
        const detail::Request q = detail::make_request(r.images[0], &dummy, r.options);
        if (q.has_background) background = q.background_key;
    }
    double sum = 0, weight = 0, runs = 0, background_runs = 0;
    for (std::uint64_t i = 0; i < k; ++i) {
        const ImageView& im = r.images[std::size_t(i * B / k)];
        if (im.pixels() == 0) continue;
        const detail::PictureSample s = detail::sample_picture(im, sample / k, background);
        sum += s.density * double(im.pixels());
        weight += double(im.pixels());
        runs += s.runs * double(im.pixels());
        background_runs += s.background_runs * double(im.pixels());
    }
    w.density = weight > 0 ? sum / weight : -1;
    w.background_share = runs > 0 ? background_runs / runs : 0;
}

BatchResult run(const detail::BatchRequest& r, std::uint32_t* out) {
    if (!r.images.empty() && is_typed_format(r.images[0].format))  // one key map for every image
        return run(detail::keyed_batch(r).request, out);
    const std::uint64_t B = r.images.size();
    // The CPU spreads the images over its threads, so the batch is one workload of all its pixels.
    detail::Workload w{r.options.tolerance > 0 ? detail::Workload::Op::Tolerance : detail::Workload::Op::Label,
                       r.label_offsets.back(), r.images.empty() ? PixelFormat::Gray8 : r.images[0].format,
                       r.options.threads};
    w.images = std::max<std::uint64_t>(B, 1);
    if (r.options.backend == Backend::Auto && B > 1 && detail::cuda_device_present()) sample_batch(r, w);
    detail::AutoTicket ticket;
    const Backend use = detail::resolve_auto(r.options.backend, w, &ticket);
    BatchResult res;
    res.backend = use;
    res.counts.assign(B, 0);
    const auto t0 = std::chrono::steady_clock::now();
    struct Report {  // what the batch took, for auto's next estimates (core/auto_feedback.hpp)
        const detail::AutoTicket& t;
        std::chrono::steady_clock::time_point t0;
        ~Report() {
            if (std::uncaught_exceptions() == 0)
                t.done(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
    } report{ticket, t0};
    if (use == Backend::Cuda) {
        detail::cuda_label_batch(r, out, res.counts.data());
        return res;
    }
    const int workers = int(std::min<std::uint64_t>(B, std::uint64_t(r.options.threads)));
    Options o = r.options;
    o.backend = Backend::Cpu;
    o.threads = std::max(1, r.options.threads / std::max(workers, 1));
    detail::parallel_for(B, workers, [&](std::uint64_t b) {
        if (r.images[b].pixels() == 0) return;
        res.counts[b] = label(r.images[b], out + r.label_offsets[b], o).count;
    });
    return res;
}

}  // namespace

BatchResult label_batch(const BatchView& batch, std::uint32_t* out, const Options& options) {
    return run(detail::make_batch_request(batch, out, options), out);
}

BatchResult label_batch(const RaggedBatchView& batch, std::uint32_t* out, const Options& options) {
    return run(detail::make_batch_request(batch, out, options), out);
}

}  // namespace cclabel
