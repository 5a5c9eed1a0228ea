// The CUDA backend: kernels over the shared per-thread programs (kernels/bodies.cuh, where the
// algorithm and its papers are described), the device API (include/cclabel/cuda.hpp: the tuned
// calls of cuda/label_tuned.hpp with the defaults) and the host API's CUDA path (pinned staging,
// chunked copies).
//
// The host path hands label()'s validated Request down unchanged (label_cuda_host, label_host, the
// Request overload of label_device_tuned, enqueue_label), with only the data and stride of the
// copy on the device swapped in: a call is validated once. The Options entry points (the device
// API, the tests) make their Request and join it.
//
// One call enqueues, on one stream: a memset of the workspace counters; Start+Connect (one
// kernel, tiles in ticket order) or Start and Connect; Count (roots per Number tile); CUB's in-place exclusive sum over the
// per-tile root counts; Number (one kernel, ticket order), or on the wide path Collapse and Number;
// and a 4-byte copy of N. Nothing is allocated and the host never waits.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <memory>
#include <string>
#include <vector>

#include "cclabel/cuda.hpp"
#include "cclabel/error.hpp"
#include "cclabel/tiles.hpp"
#include "core/backends.hpp"
#include "core/batch_request.hpp"
#include "core/cores.hpp"
#include "core/env_list.hpp"
#include "core/request.hpp"
#include "cuda/kernels/bodies.cuh"
#include "cuda/device_cache.hpp"
#include "cuda/device_keys.hpp"
#include "cuda/device_ops.cuh"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/kernels/segments.cuh"
#include "cuda/label_tuned.hpp"
#include "cuda/launch.hpp"
#include "cuda/params.hpp"

namespace cclabel::cuda::detail {
namespace {

template <PixelFormat F>
__global__ void __launch_bounds__(1024) start_connect_kernel(Params g, int mode) {
    __shared__ std::uint32_t smem[40];
    __shared__ std::uint32_t tsm[1024];
    __shared__ std::uint32_t tkeys[1024];
    DeviceOps ops{smem, threadIdx.x, blockDim.x, tsm, tkeys};
    start_connect_program<F>(ops, g, threadIdx.x, blockIdx.x, mode);
}

// At most 512 threads (two rows a thread or more), so 128 registers a thread for the rows in flight.
template <PixelFormat F>
__global__ void __launch_bounds__(512) start_rows_kernel(Params g) {
    __shared__ std::uint32_t smem[40];
    __shared__ std::uint32_t tsm[1024];
    __shared__ std::uint32_t tkeys[512];
    DeviceOps ops{smem, threadIdx.x, blockDim.x, tsm, tkeys};
    start_tile_rows<F>(ops, g, blockIdx.x, threadIdx.x);
}

template <PixelFormat F>
__global__ void __launch_bounds__(1024) connect_border_kernel(Params g) {
    __shared__ std::uint32_t smem[40];
    DeviceOps ops{smem, threadIdx.x, blockDim.x};
    connect_border_program<F>(ops, g, threadIdx.x, blockIdx.x, blockDim.x);
}

template <PixelFormat F>
__global__ void __launch_bounds__(1024) count_kernel(Params g) {
    __shared__ std::uint32_t smem[40];
    DeviceOps ops{smem, threadIdx.x, blockDim.x};
    count_program<F>(ops, g, threadIdx.x, blockIdx.x);
}

template <PixelFormat F>
__global__ void __launch_bounds__(256) batch_base_kernel(Params g, std::uint32_t* image_base, std::uint32_t* image_counts,
                                                         std::uint64_t images) {
    __shared__ std::uint32_t smem[40];
    DeviceOps ops{smem, threadIdx.x, blockDim.x};
    batch_base_program<F>(ops, g, image_base, image_counts, images, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

template <PixelFormat F>
__global__ void __launch_bounds__(1024) number_kernel(Params g) {
    __shared__ std::uint32_t smem[40];
    DeviceOps ops{smem, threadIdx.x, blockDim.x};
    number_program<F>(ops, g, threadIdx.x);
}

template <PixelFormat F>
__global__ void __launch_bounds__(1024) collapse_wide_kernel(Params g) {
    __shared__ std::uint32_t smem[40];
    DeviceOps ops{smem, threadIdx.x, blockDim.x};
    collapse_wide_program<F>(ops, g, threadIdx.x, blockIdx.x);
}

template <PixelFormat F>
__global__ void __launch_bounds__(1024) number_wide_kernel(Params g) {
    __shared__ std::uint32_t smem[40];
    DeviceOps ops{smem, threadIdx.x, blockDim.x};
    number_wide_program<F>(ops, g, threadIdx.x, blockIdx.x);
}

// The segment pipeline (segments.cuh): one thread a segment, no shared memory, no barriers.
__device__ inline std::uint64_t seg_index() { return std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; }

// One kernel for every stage (at most 512 threads: Start holds ~104 registers). StartHalves, which
// holds no row of keys, is built for two blocks of 512 a multiprocessor: at most 64 registers
// (Binary8's would spill 28 bytes there, so it keeps the compiler's choice).
// StartHalvesTolerance likewise for Gray8, Gray16 and RGB8; the formats of 4-byte keys spilled 4 bytes
// there (U32, RGBA8; Binary8 16) and keep the compiler's choice.
template <SegStage S, PixelFormat F>
constexpr int seg_min_blocks() {
    if constexpr (S == SegStage::StartHalves) return F != PixelFormat::Binary8 ? 2 : 1;
    else if constexpr (S == SegStage::StartHalvesTolerance)
        return F == PixelFormat::Gray8 || F == PixelFormat::Gray16 || F == PixelFormat::RGB8 ? 2 : 1;
    else return 1;
}

template <SegStage S, PixelFormat F>
__global__ void __launch_bounds__(512, seg_min_blocks<S, F>()) seg_kernel(Params g) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    seg_stage_program<S, F>(ops, g, seg_index());
}

__global__ void seg_batch_counts_kernel(Params g, std::uint32_t* image_counts, std::uint64_t images) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    seg_batch_counts_program(ops, g, image_counts, images, seg_index());
}

void record(cudaEvent_t e, cudaStream_t s, const char* what) {
    if (e) check(cudaEventRecord(e, s), what);
}

std::size_t scan_temp_bytes(std::uint64_t items, cudaStream_t stream) {
    std::size_t bytes = 0;
    CCL_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<std::uint32_t*>(nullptr),
                                           static_cast<std::uint32_t*>(nullptr), items, stream));
    return bytes;
}

/// A batch stacked into one launch: `images` images of image_h rows; Batch Base writes each
/// image's first number to image_base (workspace) and N_b to image_counts.
struct StackLaunch {
    std::uint32_t image_h = 0;
    std::uint64_t images = 0;
    std::uint32_t* image_base = nullptr;
    std::uint32_t* image_counts = nullptr;
};

LaunchPlan plan_for(const cclabel::detail::Request& r, const Tuning& tuning, bool force_wide, cudaStream_t stream) {
    const auto w = std::uint64_t(r.width), h = std::uint64_t(r.height);
    const LaunchPlan first = plan_launch(w, h, tuning.shape, force_wide, 0, true, tuning.switches);
    if (!first.error.empty() || first.pixels == 0) return first;
    return plan_launch(w, h, tuning.shape, force_wide, scan_temp_bytes(first.scan_items, stream), true,
                       tuning.switches);
}

/// The segment pipeline's launches (see segments.cuh); N goes to @p count.
void enqueue_segments(const cclabel::detail::Request& r, const LaunchPlan& plan, Params& g, std::uint8_t* ws,
                      std::uint32_t* count, cudaStream_t stream, const StageEvents* events, const StackLaunch* stack) {
    auto* seg = reinterpret_cast<std::uint32_t*>(ws + plan.off_seg);
    g.seg_s = seg;
    g.seg_g = seg + plan.seg_words;
    g.seg_zin = seg + 2 * plan.seg_words;
    g.seg_zl = seg + 3 * plan.seg_words;
    g.seg_zr = seg + 4 * plan.seg_words;
    g.seg_c = seg + 5 * plan.seg_words;
    const std::uint64_t blocks = plan.seg_blocks;
    const unsigned threads = plan.shape.seg_threads;
    if (events) record(events->after_clear, stream, "cudaEventRecord(after_clear)");
    cclabel::detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        auto launch = [&]<SegStage S>(std::uint64_t grid, const char* name) {
            seg_kernel<S, F><<<unsigned(grid), threads, 0, stream>>>(g);
            check(cudaGetLastError(), name);
        };
        // A tolerance takes Start and Connect's tolerance instantiations (segments.cuh, T).
        const bool tol = g.tolerance > 0;
        if (tol && g.sw.seg_start_halves)
            launch.template operator()<SegStage::StartHalvesTolerance>(plan.start_blocks, "launch of seg_kernel (Start, halves, tolerance)");
        else if (tol)
            launch.template operator()<SegStage::StartTolerance>(plan.start_blocks, "launch of seg_kernel (Start, tolerance)");
        else if (g.sw.seg_start_halves)
            launch.template operator()<SegStage::StartHalves>(plan.start_blocks, "launch of seg_kernel (Start, halves)");
        else
            launch.template operator()<SegStage::Start>(plan.start_blocks, "launch of seg_kernel (Start)");
        // Carry is timed with Start (the benchmark's "start" column).
        if (plan.carry && !plan.warp_carry) launch.template operator()<SegStage::Carry>(blocks, "launch of seg_kernel (Carry)");
        if (events) record(events->after_start, stream, "cudaEventRecord(after_start)");
        if (tol)
            launch.template operator()<SegStage::ConnectTolerance>(blocks, "launch of seg_kernel (Connect, tolerance)");
        else
            launch.template operator()<SegStage::Connect>(blocks, "launch of seg_kernel (Connect)");
        if (events) record(events->after_connect, stream, "cudaEventRecord(after_connect)");
        launch.template operator()<SegStage::Flatten>(blocks, "launch of seg_kernel (Flatten)");
        if (events) record(events->after_count, stream, "cudaEventRecord(after_count)");
        std::size_t temp = plan.scan_temp_bytes;
        CCL_CUDA(cub::DeviceScan::ExclusiveSum(ws + plan.off_scan_temp, temp, g.seg_zl, g.seg_zl, plan.scan_items,
                                               stream));
        if (events) record(events->after_scan, stream, "cudaEventRecord(after_scan)");
        if (plan.quad) {
            launch.template operator()<SegStage::Resolve>(blocks, "launch of seg_kernel (Resolve)");
            if (g.carry_labels)
                launch.template operator()<SegStage::CarryLabels>(carry_labels_blocks(plan.segs, g.warp_w, threads),
                                                                  "launch of seg_kernel (CarryLabels)");
            launch.template operator()<SegStage::QuadNumber>(plan.quad_blocks, "launch of seg_kernel (Number, number_px pixels a thread)");
        } else {
            launch.template operator()<SegStage::Number>(blocks, "launch of seg_kernel (Number)");
        }
        if (events) record(events->after_number, stream, "cudaEventRecord(after_number)");
        return 0;
    });
    if (stack) {
        constexpr unsigned kThreads = 256;
        seg_batch_counts_kernel<<<unsigned((stack->images + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
            g, stack->image_counts, stack->images);
        CCL_LAUNCHED("seg_batch_counts_kernel");
    }
    if (count)
        CCL_CUDA(cudaMemcpyAsync(count, g.seg_zl + plan.segs, sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
}

/// Enqueues every kernel of one labelling on @p stream (the request non-empty, the workspace
/// checked): the body of label_device, and of label_batch_device with @p stack.
void enqueue_label(const cclabel::detail::Request& r, const LaunchPlan& plan, std::uint8_t* ws, std::uint32_t* labels,
                   std::uint32_t* count, cudaStream_t stream, const Tuning& tuning, const StageEvents* events,
                   const StackLaunch* stack) {
    Params g = make_params(r, plan, tuning);
    g.labels = labels;
    g.counts = reinterpret_cast<std::uint32_t*>(ws + plan.off_counts);
    g.done = reinterpret_cast<std::uint32_t*>(ws + plan.off_done);
    g.tickets = reinterpret_cast<std::uint32_t*>(ws + plan.off_tickets);
    g.mask = plan.wide ? reinterpret_cast<std::uint32_t*>(ws + plan.off_mask) : nullptr;
    if (stack) set_batch(g, stack->image_h);
    if (plan.segments) {
        enqueue_segments(r, plan, g, ws, count, stream, events, stack);
        return;
    }

    CCL_CUDA(cudaMemsetAsync(ws, 0, plan.zero_end, stream));
    if (events) record(events->after_clear, stream, "cudaEventRecord(after_clear)");
    const unsigned tiles = unsigned(plan.tiles), ntiles = unsigned(plan.number_tiles);
    cclabel::detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        if (tuning.switches.fuse_start_connect) {
            start_connect_kernel<F><<<tiles, plan.tile_threads, 0, stream>>>(g, 0);
            CCL_LAUNCHED("start_connect_kernel (fused)");
            if (events) record(events->after_start, stream, "cudaEventRecord(after_start)");
            if (events) record(events->after_connect, stream, "cudaEventRecord(after_connect)");
        } else {
            if (plan.rows_per_thread > 1) {
                start_rows_kernel<F><<<tiles, plan.start_threads, 0, stream>>>(g);
                CCL_LAUNCHED("start_rows_kernel");
            } else {
                start_connect_kernel<F><<<tiles, plan.start_threads, 0, stream>>>(g, 1);
                CCL_LAUNCHED("start_connect_kernel (Start)");
            }
            if (events) record(events->after_start, stream, "cudaEventRecord(after_start)");
            if (tuning.switches.tile_union_find) {
                connect_border_kernel<F><<<unsigned(plan.border_blocks), plan.tile_threads, 0, stream>>>(g);
                CCL_LAUNCHED("connect_border_kernel");
            } else {
                start_connect_kernel<F><<<tiles, plan.tile_threads, 0, stream>>>(g, 2);
                CCL_LAUNCHED("start_connect_kernel (Connect)");
            }
            if (events) record(events->after_connect, stream, "cudaEventRecord(after_connect)");
        }
        if (tuning.switches.count_after_connect) {
            count_kernel<F><<<ntiles, plan.number_threads, 0, stream>>>(g);
            CCL_LAUNCHED("count_kernel");
        }
        if (events) record(events->after_count, stream, "cudaEventRecord(after_count)");
        std::size_t temp = plan.scan_temp_bytes;
        CCL_CUDA(cub::DeviceScan::ExclusiveSum(ws + plan.off_scan_temp, temp, g.counts, g.counts,
                                               plan.number_tiles + 1, stream));
        if (events) record(events->after_scan, stream, "cudaEventRecord(after_scan)");
        if (stack) {
            constexpr unsigned kThreads = 256;
            batch_base_kernel<F><<<unsigned((stack->images + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
                g, stack->image_base, stack->image_counts, stack->images);
            CCL_LAUNCHED("batch_base_kernel");
            g.image_base = stack->image_base;
        }
        if (!plan.wide) {
            number_kernel<F><<<ntiles, plan.number_threads, 0, stream>>>(g);
            CCL_LAUNCHED("number_kernel");
        } else {
            collapse_wide_kernel<F><<<ntiles, plan.number_threads, 0, stream>>>(g);
            CCL_LAUNCHED("collapse_wide_kernel");
            number_wide_kernel<F><<<ntiles, plan.number_threads, 0, stream>>>(g);
            CCL_LAUNCHED("number_wide_kernel");
        }
        if (events) record(events->after_number, stream, "cudaEventRecord(after_number)");
        return 0;
    });
    if (count)
        CCL_CUDA(cudaMemcpyAsync(count, g.counts + plan.number_tiles, sizeof(std::uint32_t), cudaMemcpyDeviceToDevice,
                                 stream));
}

/// for_tolerance(@p t), with Switches::tolerance_segments off when CCLABEL_CUDA_OFF names
/// "tolerance_segments" and on when CCLABEL_CUDA_ON does (read once): the benchmarks' A/B of the
/// two pipelines for a tolerance through the public calls (bench_graph), which take no Tuning.
Tuning tolerance_tuning(Tuning t) {
    static const bool off = cclabel::detail::env_list_has("CCLABEL_CUDA_OFF", "tolerance_segments");
    static const bool on = cclabel::detail::env_list_has("CCLABEL_CUDA_ON", "tolerance_segments");
    if (on) t.switches.tolerance_segments = true;
    if (off) t.switches.tolerance_segments = false;
    return for_tolerance(t);
}

}  // namespace

void label_device_tuned(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* labels,
                        std::uint32_t* count, const Options& options, cudaStream_t stream, const Tuning& tuning,
                        const StageEvents* events) {
    // The size query needs no buffers (as with CUB): a stand-in for the labels lets it validate the rest.
    static std::uint32_t no_labels;
    label_device_tuned(workspace, workspace_bytes,
                       cclabel::detail::make_request(image, workspace ? labels : &no_labels, options, /*typed_tolerance=*/true),
                       labels, count, stream, tuning, events);
}

void label_device_tuned(void* workspace, std::size_t& workspace_bytes, const cclabel::detail::Request& r,
                        std::uint32_t* labels, std::uint32_t* count, cudaStream_t stream, const Tuning& given,
                        const StageEvents* events) {
    if (r.tolerance_value > 0)  // typed values compared as values (volume_cuda.cu): no tuning applies
        return label_typed_tolerance_device(workspace, workspace_bytes, r, labels, count, stream);
    if (is_typed_format(r.format))  // keys on the device first (device_keys.hpp)
        return label_typed_device(workspace, workspace_bytes, r, labels, count, stream, given, events);
    const Tuning tuning = r.tolerance > 0 ? tolerance_tuning(given) : given;  // for_tolerance (tuning.hpp)
    const std::uint64_t pixels = r.pixels();
    const LaunchPlan plan = plan_for(r, tuning, tuning.force_wide_numbering, stream);
    if (!plan.error.empty()) throw Error("label_device: " + plan.error);
    const std::size_t need = std::size_t(std::max<std::uint64_t>(plan.workspace_bytes, kWorkspaceAlign));
    if (!workspace) {
        workspace_bytes = need;
        return;
    }
    if (!count) throw Error("label_device: the count pointer is null");
    if (workspace_bytes < need)
        throw Error("label_device: workspace of " + std::to_string(workspace_bytes) + " bytes, " +
                    std::to_string(need) + " needed");
    if (pixels == 0) {
        CCL_CUDA(cudaMemsetAsync(count, 0, sizeof(std::uint32_t), stream));
        return;
    }
    enqueue_label(r, plan, static_cast<std::uint8_t*>(workspace), labels, count, stream, tuning, events, nullptr);
}

void label_batch_device_tuned(void* workspace, std::size_t& workspace_bytes, const BatchView& batch,
                              std::uint32_t* labels, std::uint32_t* counts, const Options& options,
                              cudaStream_t stream, const Tuning& given) {
    static std::uint32_t no_labels;
    if (is_typed_format(batch.format))  // keys on the device first (device_keys.hpp)
        return label_batch_typed_device(workspace, workspace_bytes, batch, labels, counts, options, stream, given);
    const cclabel::detail::BatchRequest br =
        cclabel::detail::make_batch_request(batch, workspace ? labels : &no_labels, options);
    const Tuning tuning = br.options.tolerance > 0 ? tolerance_tuning(given) : given;
    const std::uint64_t B = br.images.size();
    const std::uint64_t P = B ? std::uint64_t(br.images[0].pixels()) : 0;
    const std::int64_t row = B ? br.images[0].stride : 0;
    // Stacked: packed images (the stack is then one strided picture) that stay on the flag path.
    const bool stacked = P > 0 && P < kFlagPathLimit && br.batch_stride == row * batch.height &&
                         !tuning.force_wide_numbering;
    const std::uint64_t cap = tuning.batch_stack_pixels ? std::min(tuning.batch_stack_pixels, kFlagPathLimit - 1)
                                                        : kFlagPathLimit - 1;
    const std::uint64_t per = stacked ? std::max<std::uint64_t>(1, std::min<std::uint64_t>(B, cap / P)) : 1;
    const std::uint64_t last = stacked ? B - (B - 1) / per * per : 1;

    auto stack_request = [&](std::uint64_t first, std::uint64_t n, std::uint32_t* out) {
        const ImageView v{br.images[first].data, batch.width, batch.height * std::int64_t(n), row, batch.format};
        return cclabel::detail::make_request(v, out, br.options);
    };
    std::size_t need = kWorkspaceAlign;
    std::uint64_t off_base = 0;
    if (stacked) {
        for (std::uint64_t n : {per, last}) {
            const LaunchPlan plan = plan_for(stack_request(0, n, labels ? labels : &no_labels), tuning, false, stream);
            if (!plan.error.empty()) throw Error("label_batch_device: " + plan.error);
            off_base = std::max(off_base, align_up(plan.workspace_bytes, kWorkspaceAlign));
        }
        need = std::size_t(off_base + align_up(4 * per, kWorkspaceAlign));
    } else if (P > 0) {
        std::size_t one = 0;
        label_device_tuned(nullptr, one, br.images[0], nullptr, nullptr, br.options, stream, tuning);
        need = std::max(need, one);
    }
    if (!workspace) {
        workspace_bytes = need;
        return;
    }
    if (B && !counts) throw Error("label_batch_device: the counts pointer is null");
    if (workspace_bytes < need)
        throw Error("label_batch_device: workspace of " + std::to_string(workspace_bytes) + " bytes, " +
                    std::to_string(need) + " needed");
    if (B == 0) return;
    if (P == 0) {
        CCL_CUDA(cudaMemsetAsync(counts, 0, B * sizeof(std::uint32_t), stream));
        return;
    }
    auto* ws = static_cast<std::uint8_t*>(workspace);
    if (!stacked) {
        for (std::uint64_t b = 0; b < B; ++b) {
            std::size_t bytes = workspace_bytes;
            label_device_tuned(workspace, bytes, br.images[b], labels + b * P, counts + b, br.options, stream,
                               tuning);
        }
        return;
    }
    for (std::uint64_t first = 0; first < B; first += per) {
        const std::uint64_t n = std::min(per, B - first);
        const cclabel::detail::Request r = stack_request(first, n, labels + first * P);
        const LaunchPlan plan = plan_for(r, tuning, false, stream);
        StackLaunch stack;
        stack.image_h = std::uint32_t(batch.height);
        stack.images = n;
        stack.image_base = reinterpret_cast<std::uint32_t*>(ws + off_base);
        stack.image_counts = counts + first;
        enqueue_label(r, plan, ws, labels + first * P, nullptr, stream, tuning, nullptr, &stack);
    }
}

namespace {

/// CCLABEL_TRACE_HOST=1: one line a host-path call on stderr, with its steps' wall times (set-up:
/// buffers, stream, pinned ring; the upload until the last block is handed to the copy engine; the
/// rest: labelling, download, drain), for the benchmark's view of what is left above the copies.
struct HostTrace {
    bool on = [] {
        const char* e = std::getenv("CCLABEL_TRACE_HOST");
        return e != nullptr && *e != '\0' && *e != '0';
    }();
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    double now() const {
        return on ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() : 0.0;
    }
    static int device() {
        int d = 0;
        if (cudaGetDevice(&d) != cudaSuccess) cudaGetLastError();
        return d;
    }
    void say(std::uint64_t pixels, std::size_t bytes, double ready, double up) const {
        if (!on) return;
        const double end = now();
        std::fprintf(stderr,
                     "cclabel host: %.1f Mpx, %.1f MB moved: set-up %.3f ms, upload %.3f ms, label+download %.3f ms, "
                     "total %.3f ms (buffers kept %zu MB, %zu allocated so far)\n",
                     double(pixels) / 1e6, double(bytes) / 1e6, ready, up - ready, end - up, end,
                     DeviceCache::process().cached_bytes(device()) >> 20, DeviceCache::process().fresh_allocations());
    }
};

}  // namespace

std::uint32_t label_host(const ImageView& image, std::uint32_t* out, const Options& options, const Tuning& tuning) {
    return label_host(cclabel::detail::make_request(image, out, options, /*typed_tolerance=*/true), out, tuning,
                      options.threads);
}

std::uint32_t label_host(const cclabel::detail::Request& r, std::uint32_t* out, const Tuning& tuning, int copy_threads) {
    if (!cclabel::detail::cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    const std::uint64_t pixels = r.pixels();
    if (pixels == 0) return 0;
    // Host threads read the picture and write the labels: device memory would crash them.
    if (host::memory_kind(r.data) == host::MemoryKind::Device)
        throw Error("backend cuda: the picture is in device memory; the host API takes host memory (use "
                    "cclabel::cuda::label_device for device pointers)");
    if (host::memory_kind(out) == host::MemoryKind::Device)
        throw Error("backend cuda: the labels buffer is in device memory; the host API takes host memory (use "
                    "cclabel::cuda::label_device for device pointers)");
    const std::size_t row_bytes = std::size_t(r.width) * std::size_t(bytes_per_pixel(r.format));
    const std::size_t image_bytes = row_bytes * std::size_t(r.height);
    const std::size_t label_bytes = std::size_t(pixels) * sizeof(std::uint32_t);

    const HostTrace trace;
    Stream stream;
    stream.create();
    std::size_t ws_bytes = 0;
    // From the process's cache of device buffers (cuda/device_cache.hpp): cudaMalloc and cudaFree of
    // the picture's copy and labels on every call were a fixed cost the copies alone do not have.
    CachedDevice d_image(image_bytes, "the picture", stream.s);
    // The request of the packed copy on the device: the caller's, validated already.
    cclabel::detail::Request d_r = r;
    d_r.data = static_cast<const std::uint8_t*>(d_image.p);
    d_r.stride = std::int64_t(row_bytes);
    CachedDevice d_labels(label_bytes, "the labels", stream.s);
    CachedDevice d_count(sizeof(std::uint32_t), "the count", stream.s);
    label_device_tuned(nullptr, ws_bytes, d_r, static_cast<std::uint32_t*>(d_labels.p), nullptr, stream.s, tuning);
    CachedDevice d_ws(ws_bytes, "the workspace", stream.s);

    // Pageable memory goes through a ring of pinned blocks that the call's host threads fill and
    // empty while the copy engine moves the others (cuda/host_stager.hpp); memory the caller pinned
    // already is copied in place.
    const host::StagerTuning& st = host::stager_tuning();
    const bool in_pinned = st.direct_pinned && std::int64_t(row_bytes) <= r.stride &&
                           host::is_pinned(r.data, std::size_t(r.stride) * std::size_t(r.height - 1) + row_bytes);
    const bool out_pinned = st.direct_pinned && host::is_pinned(out, label_bytes);
    host::HostStager stager;
    if (!in_pinned || !out_pinned) {
        const int threads = host::copy_threads(copy_threads);
        stager.create(std::max(in_pinned ? 0 : image_bytes, out_pinned ? 0 : label_bytes), threads, st);
    }
    host::PooledPinned count_host;
    count_host.reserve(sizeof(std::uint32_t), "the count");
    // After an error mid-way, nothing may still be copying into or out of a block that goes back to
    // the pool: this is destroyed first.
    struct SyncOnExit {
        cudaStream_t s;
        ~SyncOnExit() {
            cudaStreamSynchronize(s);
            cudaGetLastError();
        }
    } sync_on_exit{stream.s};
    const double t_ready = trace.now();

    if (in_pinned)
        CCL_CUDA(cudaMemcpy2DAsync(d_image.p, row_bytes, r.data, std::size_t(r.stride), row_bytes,
                                   std::size_t(r.height), cudaMemcpyHostToDevice, stream.s));
    else
        stager.upload(d_image.p, r.data, std::size_t(r.stride), row_bytes, std::size_t(r.height), stream.s);
    const double t_up = trace.now();

    label_device_tuned(d_ws.p, ws_bytes, d_r, static_cast<std::uint32_t*>(d_labels.p),
                       static_cast<std::uint32_t*>(d_count.p), stream.s, tuning);

    CCL_CUDA(cudaMemcpyAsync(count_host.p, d_count.p, sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream.s));
    if (out_pinned)
        CCL_CUDA(cudaMemcpyAsync(out, d_labels.p, label_bytes, cudaMemcpyDeviceToHost, stream.s));
    else
        stager.download(out, label_bytes, d_labels.p, label_bytes, 1, stream.s);
    if (stager.created()) stager.drain_all();
    CCL_CUDA(cudaStreamSynchronize(stream.s));
    const std::uint32_t n = *count_host.as<std::uint32_t>();
    trace.say(pixels, image_bytes + label_bytes, t_ready, t_up);
    return n;
}

}  // namespace cclabel::cuda::detail

namespace cclabel::cuda {

// The public calls: the tuned ones with the defaults (no laboratory knobs on the include path).
void label_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* labels,
                  std::uint32_t* count, const Options& options, cudaStream_t stream) {
    const std::uint64_t pixels = image.width > 0 && image.height > 0 ? std::uint64_t(image.width) * std::uint64_t(image.height) : 0;
    detail::label_device_tuned(workspace, workspace_bytes, image, labels, count, options, stream, default_tuning(pixels));
}

void label_batch_device(void* workspace, std::size_t& workspace_bytes, const BatchView& batch, std::uint32_t* labels,
                        std::uint32_t* counts, const Options& options, cudaStream_t stream) {
    // The stack of a batch is labelled in one set of launches: its pixels decide.
    const std::uint64_t pixels = batch.width > 0 && batch.height > 0 && batch.count > 0
                                     ? std::uint64_t(batch.width) * std::uint64_t(batch.height) * std::uint64_t(batch.count)
                                     : 0;
    detail::label_batch_device_tuned(workspace, workspace_bytes, batch, labels, counts, options, stream,
                                     default_tuning(pixels));
}

}  // namespace cclabel::cuda

namespace cclabel::detail {

bool cuda_device_present() noexcept {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return n > 0;
}

namespace {

std::uint64_t gpu_free_bytes() {
    // Test hook: pretend the GPU has this many bytes free, to exercise the tiled fallback.
    if (const char* e = std::getenv("CCLABEL_TEST_GPU_FREE_BYTES")) {
        const long long v = std::atoll(e);
        if (v > 0) return std::uint64_t(v);
    }
    std::size_t free_b = 0, total_b = 0;
    int device = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return ~std::uint64_t(0);  // unknown: try the whole picture, and say so if it does not fit
    }
    // The buffers kept for the next call are this call's to take (or to free, when it needs more).
    return free_b + cuda::detail::DeviceCache::process().cached_bytes(device);
}

/// @p r as Options (its background as channels of its format) for label_tiled, which takes Options:
/// only a picture too large for the GPU's free memory pays for the conversion.
Options options_of(const Request& r) {
    Options o;
    o.connectivity = r.connectivity;
    o.tolerance = r.tolerance;
    if (r.has_background && r.format != PixelFormat::Binary8) {
        const std::uint32_t k = r.background_key;
        switch (r.format) {
            case PixelFormat::RGB8: o.background = std::vector<std::uint64_t>{k & 0xFF, (k >> 8) & 0xFF, (k >> 16) & 0xFF}; break;
            case PixelFormat::RGBA8:
                o.background = std::vector<std::uint64_t>{k & 0xFF, (k >> 8) & 0xFF, (k >> 16) & 0xFF, k >> 24};
                break;
            default: o.background = std::vector<std::uint64_t>{k}; break;
        }
    }
    return o;
}

}  // namespace

std::uint32_t label_cuda_host(const Request& r, std::uint32_t* out) {
    if (!cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    // A picture whose copy, labels and workspace do not fit in the GPU's free memory is labelled
    // in tiles (label_tiled: the streamed pipeline, or one tile at a time), each of which fits.
    constexpr std::int64_t kMinTile = 256;
    const std::uint64_t pixels = r.pixels();
    const std::uint64_t bpp = std::uint64_t(bytes_per_pixel(r.format));
    const std::uint64_t free_b = gpu_free_bytes();
    // Tiles join their seams by equal values, and a typed tolerance has no tiled form yet: such a
    // picture is labelled whole (a cudaMalloc error when it does not fit).
    if (r.tolerance_value == 0 && pixels > std::uint64_t(kMinTile * kMinTile) && pixels * (bpp + 5) > free_b / 10 * 9) {
        std::int64_t side = 16384;
        while (side > kMinTile && std::uint64_t(side) * std::uint64_t(side) * (bpp + 12) > free_b / 2) side /= 2;
        Options to = options_of(r);
        to.backend = Backend::Cuda;
        const ImageView view{r.data, r.width, r.height, r.stride, r.format};
        return std::uint32_t(label_tiled(view, out, to, side, side).count);
    }
    // Staged with every core but one (copy threads 0), as label() always has: r.threads are the CPU
    // labeller's.
    return cuda::detail::label_host(r, out, cuda::default_tuning(pixels), 0);
}

}  // namespace cclabel::detail
