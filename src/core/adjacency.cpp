// cclabel::adjacency: the arguments checked once for both backends, then the backend: device
// labels stay on the GPU; host labels go where the cost model says (core/cost_model.hpp, op
// Adjacency: the CPU's banded pass against the copy up and the GPU's sort). Label volumes: checked
// here, then the same choice between the CPU's pass (src/cpu/adjacency3d_cpu.cpp) and the GPU's
// (src/cuda/adjacency3d_cuda.cu), the voxels counted as a picture's pixels.
#include "cclabel/adjacency.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "cclabel/error.hpp"
#include "core/adjacency_backends.hpp"
#include "core/backends.hpp"
#include "core/cores.hpp"
#include "core/cost_model.hpp"

namespace cclabel {

std::vector<AdjacencyEdge> adjacency(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                     int connectivity, bool include_background, std::int64_t stride, Backend backend,
                                     int threads) {
    if (connectivity != 4 && connectivity != 8)
        throw Error("adjacency: connectivity must be 4 or 8 (got " + std::to_string(connectivity) + ")");
    if (width < 0 || height < 0)
        throw Error("adjacency: label image size must not be negative (got " + std::to_string(width) + " x " +
                    std::to_string(height) + ")");
    if (stride < 0) throw Error("adjacency: negative row stride " + std::to_string(stride));
    if (width == 0 || height == 0) return {};
    if (stride == 0) stride = width;
    if (stride < width)
        throw Error("adjacency: row stride of " + std::to_string(stride) + " labels is smaller than the width " +
                    std::to_string(width));
    if (stride > INT64_MAX / height) throw Error("adjacency: row stride times height overflows");
    if (labels == nullptr) throw Error("adjacency: the label image is null");
    if (threads < 0) throw Error("adjacency: threads must not be negative (got " + std::to_string(threads) + ")");
    if (backend != Backend::Cpu && backend != Backend::Cuda && backend != Backend::Auto)
        throw Error("adjacency: unknown backend " + std::to_string(int(backend)));
    const bool device = detail::on_device(labels);
    if (device && backend == Backend::Cpu)
        throw Error("adjacency: the labels are in device memory; backend cpu reads host memory (use backend cuda or auto)");
    const std::uint64_t px = std::uint64_t(width) * std::uint64_t(height);
    // 0: every core, at least 2^16 pixels a band (a band's table and its merge cost about that).
    const int cpu_threads =
        threads > 0 ? threads : int(std::clamp<std::uint64_t>(px >> 16, 1, std::uint64_t(detail::usable_cores())));
    if (backend == Backend::Auto) {
        if (device) {
            backend = Backend::Cuda;
        } else {
            backend = detail::resolve_auto(
                Backend::Auto, detail::Workload{detail::Workload::Op::Adjacency, px, PixelFormat::U32, cpu_threads});
        }
    }
    if (backend == Backend::Cuda)
        return detail::adjacency_cuda(labels, width, height, stride, connectivity, include_background, threads);
    return detail::adjacency_cpu(labels, width, height, stride, connectivity, include_background, cpu_threads);
}

std::vector<AdjacencyEdge> adjacency(const VolumeView& v, int connectivity, bool include_background, Backend backend,
                                     int threads) {
    if (connectivity == 4 || connectivity == 8)
        throw Error("adjacency: connectivity " + std::to_string(connectivity) +
                    " is for pictures; a volume takes 6 (faces), 18 (faces and edges) or 26 (faces, edges and corners)");
    if (connectivity != 6 && connectivity != 18 && connectivity != 26)
        throw Error("adjacency: connectivity must be 6, 18 or 26 for a volume (got " + std::to_string(connectivity) + ")");
    if (v.format != PixelFormat::U32)
        throw Error("adjacency: a label volume must be of format u32 (got " + std::string(format_name(v.format)) + ")");
    if (v.width < 0 || v.height < 0 || v.depth < 0)
        throw Error("adjacency: label volume size must not be negative (got " + std::to_string(v.width) + " x " +
                    std::to_string(v.height) + " x " + std::to_string(v.depth) + ")");
    if (v.row_stride < 0 || v.slice_stride < 0)
        throw Error("adjacency: negative strides (row " + std::to_string(v.row_stride) + ", slice " +
                    std::to_string(v.slice_stride) + " bytes) are not supported");
    if (v.row_stride % 4 != 0 || v.slice_stride % 4 != 0)
        throw Error("adjacency: strides (row " + std::to_string(v.row_stride) + ", slice " +
                    std::to_string(v.slice_stride) + " bytes) must be multiples of 4 bytes, one uint32 label");
    if (threads < 0) throw Error("adjacency: threads must not be negative (got " + std::to_string(threads) + ")");
    if (backend != Backend::Cpu && backend != Backend::Cuda && backend != Backend::Auto)
        throw Error("adjacency: unknown backend " + std::to_string(int(backend)));
    if (v.width == 0 || v.height == 0 || v.depth == 0) return {};
    if (v.width > INT64_MAX / 4) throw Error("adjacency: the volume's width overflows");
    const std::int64_t rs = v.row_stride != 0 ? v.row_stride / 4 : v.width;
    if (rs < v.width)
        throw Error("adjacency: row stride of " + std::to_string(rs) + " labels is smaller than the width " +
                    std::to_string(v.width) + ": the rows would overlap");
    if (rs > INT64_MAX / v.height) throw Error("adjacency: row stride times height overflows");
    const std::int64_t ss = v.slice_stride != 0 ? v.slice_stride / 4 : rs * v.height;
    if (ss < rs * v.height)
        throw Error("adjacency: slice stride of " + std::to_string(ss) + " labels is smaller than a slice of " +
                    std::to_string(rs * v.height) + ": the slices would overlap");
    if (ss > INT64_MAX / 4 / v.depth) throw Error("adjacency: slice stride times depth overflows");
    if (v.data == nullptr) throw Error("adjacency: the label volume is null");
    const auto* labels = static_cast<const std::uint32_t*>(v.data);
    const bool device = detail::on_device(labels);
    if (device && backend == Backend::Cpu)
        throw Error("adjacency: the label volume is in device memory; backend cpu reads host memory (use backend "
                    "cuda or auto)");
    const std::uint64_t voxels = std::uint64_t(v.width) * std::uint64_t(v.height) * std::uint64_t(v.depth);
    const int cpu_threads =
        threads > 0 ? threads : int(std::clamp<std::uint64_t>(voxels >> 16, 1, std::uint64_t(detail::usable_cores())));
    // The GPU kernel's coordinates are 32-bit (rows and tiles past the end included).
    constexpr std::int64_t kSide = std::int64_t(1) << 31;
    const bool gpu_fits = v.width < kSide && v.height < kSide && v.depth < kSide;
    if (backend == Backend::Auto) {
        if (device) {
            backend = Backend::Cuda;
        } else if (gpu_fits) {
            backend = detail::resolve_auto(
                Backend::Auto, detail::Workload{detail::Workload::Op::Adjacency, voxels, PixelFormat::U32, cpu_threads});
        } else {
            backend = Backend::Cpu;
        }
    }
    if (backend == Backend::Cuda) {
        if (!gpu_fits)
            throw Error("adjacency: backend cuda takes volumes of fewer than 2^31 voxels a side (got " +
                        std::to_string(v.width) + " x " + std::to_string(v.height) + " x " + std::to_string(v.depth) +
                        ")");
        return detail::adjacency3d_cuda(labels, v.width, v.height, v.depth, rs, ss, connectivity, include_background,
                                        threads);
    }
    return detail::adjacency3d_cpu(labels, v.width, v.height, v.depth, rs, ss, connectivity, include_background,
                                   cpu_threads);
}

}  // namespace cclabel
