// New uint32 label arrays for host pictures, from the process's cache of freed label buffers
// (core/host_output_cache.hpp says why): the array owns its buffer through a capsule, and giving
// the array up gives the buffer back to the cache.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "core/backends.hpp"
#include "core/cores.hpp"
#include "core/host_output_cache.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using cclabel::detail::HostOutputCache;

struct Held {
    void* p;
    std::size_t mapped;  // 0: from malloc
};

/// CCLABEL_TRACE_HOST=1 (as the GPU's host path, cuda/label_cuda.cu): the time a new label array's
/// buffer took to get and to give back, on stderr, so that a Python call's wall time can be split
/// into the C++ call's steps and what the package adds around them.
bool trace_host() {
    static const bool on = [] {
        const char* e = std::getenv("CCLABEL_TRACE_HOST");
        return e != nullptr && *e != '\0' && !(e[0] == '0' && e[1] == '\0');
    }();
    return on;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void give_back(void* h) noexcept {
    auto* held = static_cast<Held*>(h);
    const auto t0 = std::chrono::steady_clock::now();
    if (held->mapped == 0)
        std::free(held->p);
    else
        HostOutputCache::process().release(held->p, held->mapped);
    if (trace_host() && held->mapped != 0)
        std::fprintf(stderr, "cclabel host labels: gave back %zu bytes in %.3f ms\n", held->mapped, ms_since(t0));
    delete held;
}

/// An uninitialised C-ordered uint32 array of @p shape, as numpy.empty; @p threads (0: every core
/// this process may use) fault a new buffer in.
nb::ndarray<nb::numpy, std::uint32_t, nb::c_contig> host_labels(const std::vector<std::size_t>& shape, int threads) {
    std::size_t items = 1;
    for (std::size_t s : shape) {
        if (s != 0 && items > SIZE_MAX / sizeof(std::uint32_t) / s) throw std::bad_alloc();
        items *= s;
    }
    const std::size_t bytes = items * sizeof(std::uint32_t);
    HostOutputCache& cache = HostOutputCache::process();
    auto* held = new Held{nullptr, 0};
    try {
        if (bytes >= HostOutputCache::kMinBytes && cache.limit() > 0) {
            nb::gil_scoped_release unlocked;  // faulting gigabytes in takes milliseconds
            const auto t0 = std::chrono::steady_clock::now();
            const std::uint64_t fresh = cache.fresh_mappings();
            held->p = cache.acquire(bytes, threads > 0 ? threads : cclabel::detail::usable_cores(), held->mapped);
            if (trace_host())
                std::fprintf(stderr, "cclabel host labels: got %zu bytes (%s) in %.3f ms\n", held->mapped,
                             cache.fresh_mappings() != fresh ? "new" : "reused", ms_since(t0));
        } else {
            held->p = std::malloc(bytes ? bytes : 1);
            if (!held->p) throw std::bad_alloc();
        }
    } catch (...) {
        delete held;
        throw;
    }
    nb::capsule owner(held, give_back);
    return nb::ndarray<nb::numpy, std::uint32_t, nb::c_contig>(held->p, shape.size(), shape.data(), owner);
}

}  // namespace

void bind_host_output(nb::module_& m) {
    m.def("_host_labels", &host_labels, "shape"_a, "threads"_a = 0);
    m.def("free_cached_memory",
          [] { return HostOutputCache::process().free_all() + cclabel::detail::free_device_cache(); },
          "Gives the buffers that cclabel keeps for reuse back to the system; returns their bytes.\n\n"
          "New label arrays of 1 MiB and more come from buffers that earlier results gave up, so that a\n"
          "pipeline labelling picture after picture writes into memory already faulted in. At most a\n"
          "quarter of the machine's memory is kept (CCLABEL_HOST_CACHE_BYTES sets the limit in bytes, 0\n"
          "turns the reuse off), as pages the kernel may reclaim under memory pressure. Likewise the GPU\n"
          "path of NumPy pictures keeps its device buffers (the picture's copy, the labels, the\n"
          "workspace) for the next call, up to a quarter of the GPU's memory (CCLABEL_DEVICE_CACHE_BYTES;\n"
          "0 turns it off).");
    m.def("_host_cache_info", [] {
        const HostOutputCache& c = HostOutputCache::process();
        return nb::make_tuple(c.cached_bytes(), c.limit(), c.fresh_mappings());
    });
}
