// cclabel's own batch loop on the GPU (batch_loop.hpp), and the host batch path of Backend::Cuda:
// the images' bytes are copied up in one transfer (through the host path's staging ring,
// cuda/host_stager.hpp, when they are pageable), labelled on one stream, and the labels and
// counts copied back. Runs of packed images of one size (a whole uniform batch, or such runs of
// a ragged one) go through label_batch_device, one set of launches a run; the rest one
// label_device call an image.
#include "cuda/batch_loop.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "cclabel/cuda.hpp"
#include "cclabel/error.hpp"
#include "core/backends.hpp"
#include "core/batch_request.hpp"
#include "core/cores.hpp"
#include "cuda/device_cache.hpp"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"

namespace cclabel::cuda {

std::size_t batch_loop_workspace_bytes(const std::vector<ImageView>& images, const Options& options,
                                       cudaStream_t stream) {
    std::size_t most = 0;
    for (const ImageView& v : images) {
        std::size_t bytes = 0;
        label_device(nullptr, bytes, v, nullptr, nullptr, options, stream);
        most = std::max(most, bytes);
    }
    return most;
}

void label_batch_loop(void* workspace, std::size_t workspace_bytes, const std::vector<ImageView>& images,
                      const std::uint64_t* label_offsets, std::uint32_t* labels, std::uint32_t* counts,
                      const Options& options, cudaStream_t stream) {
    if (!images.empty() && (!label_offsets || !counts))
        throw Error("label_batch_loop: the label offsets or the count pointer is null");
    for (std::size_t b = 0; b < images.size(); ++b) {
        std::size_t bytes = workspace_bytes;
        label_device(workspace, bytes, images[b], labels + label_offsets[b], counts + b, options, stream);
    }
}

}  // namespace cclabel::cuda

namespace cclabel::detail {
namespace {

using cuda::detail::check;
using cuda::detail::CachedDevice;
using cuda::detail::Stream;

}  // namespace

void cuda_label_batch(const BatchRequest& r, std::uint32_t* out, std::uint32_t* counts) {
    if (!cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    const std::size_t B = r.images.size();
    if (B == 0) return;
    // The bytes from the lowest image start to the highest image end go up in one copy (gaps too).
    const std::uint8_t *lo = nullptr, *hi = nullptr;
    for (const ImageView& v : r.images) {
        if (v.pixels() == 0) continue;
        const auto* start = static_cast<const std::uint8_t*>(v.data);
        const auto* end = start + (v.height - 1) * v.stride + v.width * bytes_per_pixel(v.format);
        lo = lo ? std::min(lo, start) : start;
        hi = hi ? std::max(hi, end) : end;
    }
    const std::size_t pixel_bytes = lo ? std::size_t(hi - lo) : 0;
    const std::uint64_t total = r.label_offsets[B];

    Stream stream;
    stream.create();
    // Kept for the next call (cuda/device_cache.hpp).
    CachedDevice d_pixels(pixel_bytes, "the batch's pixels", stream.s);
    CachedDevice d_labels(std::size_t(total) * sizeof(std::uint32_t), "the batch's labels", stream.s);
    CachedDevice d_counts(B * sizeof(std::uint32_t), "the batch's counts", stream.s);
    std::vector<ImageView> d_images = r.images;
    for (ImageView& v : d_images)
        v.data = v.pixels() ? static_cast<std::uint8_t*>(d_pixels.p) + (static_cast<const std::uint8_t*>(v.data) - lo)
                            : nullptr;
    // Runs [first, end) of images of one size, each starting where the one before ends.
    struct Run {
        std::size_t first, end;
    };
    std::vector<Run> runs;
    for (std::size_t b = 0; b < B;) {
        std::size_t e = b + 1;
        const ImageView& v = d_images[b];
        const std::int64_t bytes = v.height * v.stride;
        while (e < B && v.pixels() > 0 && d_images[e].width == v.width && d_images[e].height == v.height &&
               d_images[e].stride == v.stride &&
               static_cast<const std::uint8_t*>(d_images[e].data) ==
                   static_cast<const std::uint8_t*>(d_images[e - 1].data) + bytes)
            ++e;
        runs.push_back({b, e});
        b = e;
    }
    auto run_view = [&](const Run& u) {
        const ImageView& v = d_images[u.first];
        return BatchView{v.data, std::int64_t(u.end - u.first), v.width, v.height, v.stride, v.height * v.stride, v.format};
    };
    std::size_t ws_bytes = 0;
    for (const Run& u : runs) {
        std::size_t bytes = 0;
        if (u.end - u.first > 1)
            cuda::label_batch_device(nullptr, bytes, run_view(u), nullptr, nullptr, r.options, stream.s);
        else if (d_images[u.first].pixels() > 0)
            cuda::label_device(nullptr, bytes, d_images[u.first], nullptr, nullptr, r.options, stream.s);
        ws_bytes = std::max(ws_bytes, bytes);
    }
    CachedDevice d_ws(ws_bytes, "the workspace", stream.s);

    // Pageable memory through the host path's staging ring (its threads fill and empty pinned
    // blocks while the copy engine moves others); memory the caller pinned is copied in place.
    const std::size_t label_bytes = std::size_t(total) * sizeof(std::uint32_t);
    const cuda::host::StagerTuning& st = cuda::host::stager_tuning();
    const bool in_pinned = st.direct_pinned && cuda::host::is_pinned(lo, pixel_bytes);
    const bool out_pinned = st.direct_pinned && cuda::host::is_pinned(out, label_bytes);
    cuda::host::HostStager stager;
    if (!in_pinned || !out_pinned) {
        const int threads = cuda::host::copy_threads(r.options.threads);
        stager.create(std::max(in_pinned ? 0 : pixel_bytes, out_pinned ? 0 : label_bytes), threads, st);
    }
    cuda::host::PooledPinned counts_host;
    counts_host.reserve(B * sizeof(std::uint32_t), "the batch's counts");
    struct SyncOnExit {  // nothing may copy into a pooled block after an error returns it
        cudaStream_t s;
        ~SyncOnExit() {
            cudaStreamSynchronize(s);
            cudaGetLastError();
        }
    } sync_on_exit{stream.s};
    if (pixel_bytes && in_pinned)
        check(cudaMemcpyAsync(d_pixels.p, lo, pixel_bytes, cudaMemcpyHostToDevice, stream.s), "copying the pixels up");
    else if (pixel_bytes)
        stager.upload(d_pixels.p, lo, pixel_bytes, pixel_bytes, 1, stream.s);
    auto* d_out = static_cast<std::uint32_t*>(d_labels.p);
    auto* d_n = static_cast<std::uint32_t*>(d_counts.p);
    for (const Run& u : runs) {
        std::size_t bytes = ws_bytes;
        if (u.end - u.first > 1)
            cuda::label_batch_device(d_ws.p, bytes, run_view(u), d_out + r.label_offsets[u.first], d_n + u.first,
                                     r.options, stream.s);
        else if (d_images[u.first].pixels() > 0)
            cuda::label_device(d_ws.p, bytes, d_images[u.first], d_out + r.label_offsets[u.first], d_n + u.first,
                               r.options, stream.s);
        else
            check(cudaMemsetAsync(d_n + u.first, 0, sizeof(std::uint32_t), stream.s), "clearing a count");
    }
    check(cudaMemcpyAsync(counts_host.p, d_counts.p, B * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream.s),
          "copying the counts back");
    if (total && out_pinned)
        check(cudaMemcpyAsync(out, d_labels.p, label_bytes, cudaMemcpyDeviceToHost, stream.s), "copying the labels back");
    else if (total)
        stager.download(out, label_bytes, d_labels.p, label_bytes, 1, stream.s);
    if (stager.created()) stager.drain_all();
    check(cudaStreamSynchronize(stream.s), "labelling the batch");
    std::memcpy(counts, counts_host.p, B * sizeof(std::uint32_t));
}

}  // namespace cclabel::detail
