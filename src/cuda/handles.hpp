#pragma once
// The CUDA runtime's resources as C++ objects, and the checked call, for every host-side file of
// the CUDA backend: an error becomes a cclabel::Error naming the call, and nothing leaks when one
// is thrown half-way. Each handle is released with the device current that it was made on.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "cclabel/error.hpp"

namespace cclabel::cuda::detail {

/// Throws Error("CUDA error in WHAT: NAME (description)"), clearing a non-sticky error first so
/// that a later call is not blamed for it.
[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what) {
    cudaGetLastError();
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw_cuda(e, what);
}

/// " (F of T bytes free)" for an allocation's error message; empty when unknown.
inline std::string mem_info() {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return " (" + std::to_string(free_b) + " of " + std::to_string(total_b) + " bytes free)";
}

/// Device memory; empty until alloc() (or the sizing constructor).
struct DeviceBuffer {
    void* p = nullptr;
    DeviceBuffer() = default;
    DeviceBuffer(std::size_t bytes, const char* what) { alloc(bytes, what); }
    /// Frees what it held and takes @p bytes (at least one); an error names @p what and the free memory.
    void alloc(std::size_t bytes, const char* what) {
        reset();
        const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(bytes, 1));
        if (e != cudaSuccess) {
            cudaGetLastError();  // allocation errors are not sticky
            p = nullptr;
            throw Error(std::string("cudaMalloc of ") + std::to_string(bytes) + " bytes for " + what +
                        " failed: " + cudaGetErrorString(e) + mem_info());
        }
    }
    void reset() noexcept {
        if (p) cudaFree(p);
        p = nullptr;
    }
    template <typename T>
    T* as() const {
        return static_cast<T*>(p);
    }
    ~DeviceBuffer() { reset(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

/// A non-blocking stream; empty until create().
struct Stream {
    cudaStream_t s = nullptr;
    void create() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
    ~Stream() {
        if (s) cudaStreamDestroy(s);
    }
    Stream() = default;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
};

/// An event without timing; empty until create().
struct Event {
    cudaEvent_t e = nullptr;
    void create() { check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags"); }
    ~Event() {
        if (e) cudaEventDestroy(e);
    }
    Event() = default;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
};

/// Restores the caller's current device on scope exit.
struct DeviceGuard {
    int saved = 0;
    DeviceGuard() { check(cudaGetDevice(&saved), "cudaGetDevice"); }
    ~DeviceGuard() { cudaSetDevice(saved); }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;
};

}  // namespace cclabel::cuda::detail

#define CCL_CUDA(call) ::cclabel::cuda::detail::check((call), #call)
#define CCL_LAUNCHED(name) ::cclabel::cuda::detail::check(cudaGetLastError(), "launch of " name)
