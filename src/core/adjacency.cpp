// cclabel::adjacency: the arguments checked once for both backends, then the backend: device
// labels stay on the GPU; host labels go where the cost model says (core/cost_model.hpp, op
// Adjacency: the CPU's banded pass against the copy up and the GPU's sort).
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

}  // namespace cclabel
