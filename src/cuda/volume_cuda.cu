// The CUDA volume labeller: the kernels over the per-thread programs of kernels/volume_bodies.cuh
// (where the algorithm is described), the device API (include/cclabel/cuda_volume.hpp) and the
// host API's Backend::Cuda path for volumes.
//
// One call enqueues, on one stream: Local and Border (tiles), Flatten (a thread a voxel, root bits
// and per-word counts), CUB's in-place exclusive sum over the counts, Number (a thread a voxel),
// and a 4-byte copy of N. With VolumeSwitches::runs (exact labelling only) the run kernels of
// kernels/volume_runs.cuh take the place of all four: Start, Connect, Flatten, the same scan over
// a count a segment, Number. The typed formats are made keys first (device_keys.hpp), into the
// workspace. Nothing is allocated and the host never waits.
//
// With a tolerance (Options::tolerance on an untyped volume; a typed volume's tolerance_value, its
// values read where they lie; a typed picture's, labelled here as a volume of one slice,
// label_typed_tolerance_device) Local and Border are their
// own instantiations, with the policy CloseKeys or CloseValues (kernels/close_values.cuh) and
// without cover: the exact kernels are the same code as before, with no tolerance test in them.
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>
#include <string>

#include "cclabel/cuda_volume.hpp"
#include "cclabel/error.hpp"
#include "core/backends.hpp"
#include "core/request.hpp"
#include "core/volume_backends.hpp"
#include "core/volume_request.hpp"
#include "cuda/device_cache.hpp"
#include "cuda/device_keys.hpp"
#include "cuda/kernels/close_values.cuh"
#include "cuda/device_ops.cuh"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/kernels/volume_bodies.cuh"
#include "cuda/kernels/volume_runs.cuh"
#include "cuda/pinned_pool.hpp"
#include "cuda/volume_plan.hpp"
#include "cuda/volume_tuned.hpp"

namespace cclabel::cuda::detail {
namespace {

using vol::VolParams;

// Local and Border: four blocks of 512 a multiprocessor (at most 32 registers), said outright:
// left to itself ptxas built some variants for more (Local with prelink took 35, three blocks) or
// for 32 with spills (Border with cover, before tile_corner took the tile's FastDivs out of each
// voxel's place).
template <PixelFormat F, int Conn, bool Cover, class M = EqualKeys<F>>
__global__ void __launch_bounds__(512, 4) volume_local_kernel(VolParams g) {
    __shared__ std::uint32_t tsm[kVolumeMaxTileVoxels];
    __shared__ std::uint32_t tkeys[M::kShared ? kVolumeMaxTileVoxels : 1];
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x, tsm, tkeys};
    vol::volume_local_program<F, Conn, Cover, M>(ops, g, threadIdx.x, blockIdx.x);
}

template <PixelFormat F, int Conn, bool Cover, class M = EqualKeys<F>>
__global__ void __launch_bounds__(512, 4) volume_border_kernel(VolParams g) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    vol::volume_border_program<F, Conn, Cover, M>(ops, g, threadIdx.x, blockIdx.x, blockIdx.y);
}

__global__ void __launch_bounds__(1024) volume_flatten_kernel(VolParams g) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    vol::volume_flatten_program(ops, g, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x, threadIdx.x & 31u);
}

__global__ void __launch_bounds__(1024) volume_number_kernel(VolParams g) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    vol::volume_number_program(ops, g, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

// The run kernels (VolumeSwitches::runs): a thread a strip of segments, no shared memory. Two
// blocks a multiprocessor said outright: with the block size alone ptxas built Connect for 40
// registers and spilled; so bounded it takes 48-80 (64 for Gray8 and Binary8 at 18 and 26; 22
// Flatten, 62 Number, 32-66 Start), no spills (ptxas -v, CUDA 13, sm_90).
template <PixelFormat F>
__global__ void __launch_bounds__(kVolumeMaxRunThreads, 2) volume_runs_start_kernel(vruns::RunParams g) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    vruns::runs_start_program<F>(ops, g, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

template <PixelFormat F, int Conn>
__global__ void __launch_bounds__(kVolumeMaxRunThreads, 2) volume_runs_connect_kernel(vruns::RunParams g) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    vruns::runs_connect_program<F, Conn>(ops, g, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

__global__ void __launch_bounds__(kVolumeMaxRunThreads, 2) volume_runs_flatten_kernel(vruns::RunParams g) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    vruns::runs_flatten_program(ops, g, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

__global__ void __launch_bounds__(kVolumeMaxRunThreads, 2) volume_runs_number_kernel(vruns::RunParams g) {
    DeviceOps ops{nullptr, threadIdx.x, blockDim.x};
    vruns::runs_number_program(ops, g, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x);
}

VolumePlan plan_for(const cclabel::detail::VolumeRequest& r, const VolumeShape& requested, cudaStream_t stream) {
    const VolumeShape shape = shape_for_request(r, requested);
    const VolumePlan first = plan_volume(std::uint64_t(r.width), std::uint64_t(r.height), std::uint64_t(r.depth), shape, 0);
    if (!first.error.empty() || first.voxels == 0) return first;
    std::size_t temp = 0;
    CCL_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, temp, static_cast<std::uint32_t*>(nullptr),
                                           static_cast<std::uint32_t*>(nullptr), first.scan_items, stream));
    return plan_volume(std::uint64_t(r.width), std::uint64_t(r.height), std::uint64_t(r.depth), shape, temp);
}

void record(cudaEvent_t e, cudaStream_t s) {
    if (e) CCL_CUDA(cudaEventRecord(e, s));
}

/// Enqueues a labelling. @p typed: a typed picture with a tolerance (typed_picture), whose
/// tolerance_value and background bits the parameters take on top of @p r.
void enqueue_volume(const cclabel::detail::VolumeRequest& r, const VolumePlan& plan, const VolumeShape& shape,
                    std::uint8_t* ws, std::uint32_t* labels, std::uint32_t* count, cudaStream_t stream,
                    const VolumeEvents& ev, const TypedPicture* typed = nullptr) {
    VolParams g = vol::make_vol_params(r, plan, shape, labels, reinterpret_cast<std::uint32_t*>(ws + plan.off_mask),
                                       reinterpret_cast<std::uint32_t*>(ws + plan.off_prefix));
    // A typed volume's tolerance and background bits come with its request; a typed picture's with
    // the TypedPicture made of it.
    g.tolerance_value = typed ? typed->tolerance_value : r.tolerance_value;
    g.background_bits = typed ? typed->background_bits : r.background_bits;
    CCL_CUDA(cudaMemsetAsync(g.prefix + plan.words, 0, sizeof(std::uint32_t), stream));
    const auto tiles = unsigned(plan.tiles), vblocks = unsigned(plan.voxel_blocks);
    record(ev.start, stream);
    if (plan.runs) {
        // The run kernels (exact labelling; plan_for planned them only then). The events keep
        // their places: Local is Start here, Border Connect.
        const vruns::RunParams rg = vruns::make_run_params(r, plan, shape, labels, ws);
        const auto rblocks = unsigned(plan.run_blocks), rthreads = shape.run_threads;
        cclabel::detail::dispatch_format(r.format, [&]<PixelFormat F>() {
            volume_runs_start_kernel<F><<<rblocks, rthreads, 0, stream>>>(rg);
            CCL_LAUNCHED("volume_runs_start_kernel");
            record(ev.after_local, stream);
            switch (r.connectivity) {
                case 6: volume_runs_connect_kernel<F, 6><<<rblocks, rthreads, 0, stream>>>(rg); break;
                case 18: volume_runs_connect_kernel<F, 18><<<rblocks, rthreads, 0, stream>>>(rg); break;
                default: volume_runs_connect_kernel<F, 26><<<rblocks, rthreads, 0, stream>>>(rg); break;
            }
            CCL_LAUNCHED("volume_runs_connect_kernel");
            record(ev.after_border, stream);
            return 0;
        });
        volume_runs_flatten_kernel<<<rblocks, rthreads, 0, stream>>>(rg);
        CCL_LAUNCHED("volume_runs_flatten_kernel");
        record(ev.after_flatten, stream);
        std::size_t temp = plan.scan_temp_bytes;
        CCL_CUDA(cub::DeviceScan::ExclusiveSum(ws + plan.off_scan_temp, temp, rg.counts, rg.counts, plan.scan_items, stream));
        volume_runs_number_kernel<<<rblocks, rthreads, 0, stream>>>(rg);
        CCL_LAUNCHED("volume_runs_number_kernel");
        record(ev.after_number, stream);
        CCL_CUDA(cudaMemcpyAsync(count, rg.counts + plan.segments, sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
        return;
    }
    auto launch = [&]<PixelFormat F, int Conn, bool Cover, class M>() {
        volume_local_kernel<F, Conn, Cover, M><<<tiles, plan.tile_threads, 0, stream>>>(g);
        CCL_LAUNCHED("volume_local_kernel");
        record(ev.after_local, stream);
        volume_border_kernel<F, Conn, Cover, M><<<dim3(tiles, plan.steps), plan.tile_threads, 0, stream>>>(g);
        CCL_LAUNCHED("volume_border_kernel");
        record(ev.after_border, stream);
        return 0;
    };
    if (typed || volume_tolerance(r) || r.tolerance_value > 0) {
        // Closeness is not an equivalence: no cover (kernels/volume_bodies.cuh says why).
        dispatch_tolerance(r.format, [&]<PixelFormat F, class M>() {
            switch (r.connectivity) {
                case 6: return launch.template operator()<F, 6, false, M>();
                case 18: return launch.template operator()<F, 18, false, M>();
                default: return launch.template operator()<F, 26, false, M>();
            }
        });
    } else {
        // Under 6 no two earlier neighbours are adjacent: cover has nothing to skip.
        const bool cover = shape.switches.cover;
        cclabel::detail::dispatch_format(r.format, [&]<PixelFormat F>() {
            using M = EqualKeys<F>;
            switch (r.connectivity) {
                case 6: return launch.template operator()<F, 6, false, M>();
                case 18: return cover ? launch.template operator()<F, 18, true, M>() : launch.template operator()<F, 18, false, M>();
                default: return cover ? launch.template operator()<F, 26, true, M>() : launch.template operator()<F, 26, false, M>();
            }
        });
    }
    volume_flatten_kernel<<<vblocks, shape.voxel_threads, 0, stream>>>(g);
    CCL_LAUNCHED("volume_flatten_kernel");
    record(ev.after_flatten, stream);
    std::size_t temp = plan.scan_temp_bytes;
    CCL_CUDA(cub::DeviceScan::ExclusiveSum(ws + plan.off_scan_temp, temp, g.prefix, g.prefix, plan.scan_items, stream));
    volume_number_kernel<<<vblocks, shape.voxel_threads, 0, stream>>>(g);
    CCL_LAUNCHED("volume_number_kernel");
    record(ev.after_number, stream);
    CCL_CUDA(cudaMemcpyAsync(count, g.prefix + plan.words, sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
}

/// A validated volume request labelled as its voxels are stored: keys of an untyped format, or a
/// typed format's values with a tolerance (CloseValues).
void label_request_device(void* workspace, std::size_t& workspace_bytes, const cclabel::detail::VolumeRequest& r,
                          std::uint32_t* labels, std::uint32_t* count, cudaStream_t stream, const VolumeShape& shape,
                          const VolumeEvents& events) {
    const VolumePlan plan = plan_for(r, shape, stream);
    if (!plan.error.empty()) throw Error("label_volume_device: " + plan.error);
    const std::size_t need = std::size_t(std::max<std::uint64_t>(plan.workspace_bytes, kVolumeAlign));
    if (!workspace) {
        workspace_bytes = need;
        return;
    }
    if (!count) throw Error("label_volume_device: the count pointer is null");
    if (workspace_bytes < need)
        throw Error("label_volume_device: workspace of " + std::to_string(workspace_bytes) + " bytes, " +
                    std::to_string(need) + " needed");
    if (r.voxels() == 0) {
        CCL_CUDA(cudaMemsetAsync(count, 0, sizeof(std::uint32_t), stream));
        return;
    }
    enqueue_volume(r, plan, shape, static_cast<std::uint8_t*>(workspace), labels, count, stream, events);
}

/// A volume of an untyped format (keys as they are stored).
void label_keys_device(void* workspace, std::size_t& workspace_bytes, const VolumeView& volume, std::uint32_t* labels,
                       std::uint32_t* count, const Options& options, cudaStream_t stream, const VolumeShape& shape,
                       const VolumeEvents& events) {
    static std::uint32_t no_labels;  // the size query validates the rest without buffers (as CUB)
    const cclabel::detail::VolumeRequest r =
        cclabel::detail::make_volume_request(volume, workspace ? labels : &no_labels, options, /*takes_tolerance=*/true);
    label_request_device(workspace, workspace_bytes, r, labels, count, stream, shape, events);
}

}  // namespace

void label_typed_tolerance_device(void* workspace, std::size_t& workspace_bytes, const cclabel::detail::Request& r,
                                  std::uint32_t* labels, std::uint32_t* count, cudaStream_t stream) {
    const TypedPicture p = typed_picture(r);
    const VolumeShape shape = typed_picture_shape();
    const VolumePlan plan = plan_for(p.volume, shape, stream);
    if (!plan.error.empty()) throw Error("label_device: " + plan.error);
    const std::size_t need = std::size_t(std::max<std::uint64_t>(plan.workspace_bytes, kVolumeAlign));
    if (!workspace) {
        workspace_bytes = need;
        return;
    }
    if (!count) throw Error("label_device: the count pointer is null");
    if (workspace_bytes < need)
        throw Error("label_device: workspace of " + std::to_string(workspace_bytes) + " bytes, " + std::to_string(need) +
                    " needed");
    if (plan.voxels == 0) {
        CCL_CUDA(cudaMemsetAsync(count, 0, sizeof(std::uint32_t), stream));
        return;
    }
    enqueue_volume(p.volume, plan, shape, static_cast<std::uint8_t*>(workspace), labels, count, stream, VolumeEvents{}, &p);
}

void label_volume_device_shaped(void* workspace, std::size_t& workspace_bytes, const VolumeView& volume,
                                std::uint32_t* labels, std::uint32_t* count, const Options& options,
                                cudaStream_t stream, const VolumeShape& shape, const VolumeEvents* events) {
    const VolumeEvents ev = events ? *events : VolumeEvents{};
    if (!is_typed_format(volume.format))
        return label_keys_device(workspace, workspace_bytes, volume, labels, count, options, stream, shape, ev);
    static std::uint32_t no_labels;
    const cclabel::detail::VolumeRequest r =
        cclabel::detail::make_volume_request(volume, workspace ? labels : &no_labels, options, /*takes_tolerance=*/true);
    // With a tolerance the values themselves are compared (CloseValues): keys keep equality only,
    // not distances, so no key map and no copy.
    if (r.tolerance_value > 0) return label_request_device(workspace, workspace_bytes, r, labels, count, stream, shape, ev);
    // Typed: the volume's slices as a stack of pictures with one key map (at most 2^32 - 1 voxels,
    // so one map covers them all), then the keys labelled as a volume.
    Options picture = options;
    picture.connectivity = 8;
    const cclabel::detail::Request bg =
        cclabel::detail::make_request(ImageView{nullptr, 0, 0, 0, volume.format}, nullptr, picture);
    const std::uint64_t plane = std::uint64_t(r.width) * std::uint64_t(r.height);
    const KeyLayout L = key_layout(volume.format, std::uint64_t(r.depth), plane, stream);
    const Options ko = key_options(L, volume.format, bg, options);
    auto* ws = static_cast<std::uint8_t*>(workspace);
    VolumeView kv{volume.data, r.width, r.height, r.depth, volume.row_stride, volume.slice_stride, L.to};
    if (L.copies) kv = VolumeView{ws ? ws : volume.data, r.width, r.height, r.depth, 0, 0, L.to};
    keyed_call(
        "label_volume_device", L, workspace, workspace_bytes,
        [&](void* w, std::size_t& bytes) { label_keys_device(w, bytes, kv, labels, count, ko, stream, shape, ev); },
        [&] {
            if (!count) throw Error("label_volume_device: the count pointer is null");
            const keys::Stack s{r.data, std::uint64_t(r.width), plane, r.row_stride, r.slice_stride,
                                std::uint32_t(bytes_per_pixel(volume.format))};
            enqueue_keys(L, volume.format, s, std::uint64_t(r.depth), bg, ws, stream);
        });
}

}  // namespace cclabel::cuda::detail

namespace cclabel::cuda {

void label_volume_device(void* workspace, std::size_t& workspace_bytes, const VolumeView& volume, std::uint32_t* labels,
                         std::uint32_t* count, const Options& options, cudaStream_t stream) {
    detail::label_volume_device_shaped(workspace, workspace_bytes, volume, labels, count, options, stream,
                                       detail::volume_shape_for(std::uint64_t(std::max<std::int64_t>(volume.depth, 0)),
                                                                options.connectivity));
}

}  // namespace cclabel::cuda

namespace cclabel::detail {

std::uint32_t label_volume_cuda_host(const VolumeView& volume, std::uint32_t* out, const Options& options) {
    using namespace cclabel::cuda::detail;
    const VolumeRequest r = make_volume_request(volume, out, options, /*takes_tolerance=*/true);
    if (!cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    if (r.voxels() == 0) return 0;
    // Host threads never touch the data here, but a device pointer given to the host API is a
    // mistake the picture path refuses too.
    if (cuda::host::memory_kind(r.data) == cuda::host::MemoryKind::Device ||
        cuda::host::memory_kind(out) == cuda::host::MemoryKind::Device)
        throw Error("backend cuda: the volume or its labels are in device memory; the host API takes host memory "
                    "(use cclabel::cuda::label_volume_device for device pointers)");
    const std::size_t row_bytes = std::size_t(r.width) * std::size_t(bytes_per_pixel(r.format));
    const std::size_t slice_bytes = row_bytes * std::size_t(r.height);
    Stream stream;
    stream.create();
    // Kept for the next call (cuda/device_cache.hpp), as the picture path's.
    CachedDevice d_volume(slice_bytes * std::size_t(r.depth), "the volume", stream.s);
    CachedDevice d_labels(std::size_t(r.voxels()) * sizeof(std::uint32_t), "the labels", stream.s);
    CachedDevice d_count(sizeof(std::uint32_t), "the count", stream.s);
    const VolumeView packed{d_volume.p, r.width, r.height, r.depth, 0, 0, r.format};
    std::size_t ws_bytes = 0;
    cuda::label_volume_device(nullptr, ws_bytes, packed, d_labels.as<std::uint32_t>(), d_count.as<std::uint32_t>(),
                              options, stream.s);
    CachedDevice d_ws(ws_bytes, "the workspace", stream.s);
    struct SyncOnExit {  // nothing may still copy from the caller's memory after an error
        cudaStream_t s;
        ~SyncOnExit() {
            cudaStreamSynchronize(s);
            cudaGetLastError();
        }
    } sync_on_exit{stream.s};
    // Through the pinned ring on the call's threads, as pictures go (cuda/host_stager.hpp): one
    // thread's cudaMemcpy from pageable memory moves a fraction of what the link can.
    const int threads = cuda::host::copy_threads(options.threads);
    if (r.slice_stride == r.row_stride * r.height) {  // slices back to back: one picture of height × depth rows
        cuda::host::copy_up(d_volume.p, r.data, std::size_t(r.row_stride), row_bytes, std::size_t(r.height * r.depth),
                            stream.s, threads);
    } else {
        cuda::host::HostStager up;
        up.create(slice_bytes, threads);
        for (std::int64_t z = 0; z < r.depth; ++z)
            up.upload(d_volume.as<std::uint8_t>() + std::size_t(z) * slice_bytes, r.row(z, 0), std::size_t(r.row_stride),
                      row_bytes, std::size_t(r.height), stream.s);
    }
    cuda::label_volume_device(d_ws.p, ws_bytes, packed, d_labels.as<std::uint32_t>(), d_count.as<std::uint32_t>(), options,
                              stream.s);
    std::uint32_t n = 0;
    CCL_CUDA(cudaMemcpyAsync(&n, d_count.p, sizeof n, cudaMemcpyDeviceToHost, stream.s));
    const std::size_t label_row = std::size_t(r.width) * sizeof(std::uint32_t);
    cuda::host::copy_down(out, label_row, d_labels.p, label_row, std::size_t(r.height * r.depth), stream.s, threads);
    CCL_CUDA(cudaStreamSynchronize(stream.s));
    return n;
}

}  // namespace cclabel::detail
