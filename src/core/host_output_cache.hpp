#pragma once
// Reused host buffers for the labels the Python package hands back as new NumPy arrays.
//
// A new NumPy array of 3.2 GB (the 800 dpi sheet's labels) is a fresh mapping from the kernel, and
// its first write faults every page in: on the H100 host that made the Python call twice the C++
// call that writes into a buffer it already had (298-310 ms against 135 ms on the GPU path, about
// 150 against 80 on the CPU, 2026-12-07). A pipeline labels sheet after sheet of one size and drops
// each result before the next, so the buffer of the last result is the natural home of the next:
// freed buffers wait here (those of 64 MiB and more given back to the kernel as MADV_FREE, so memory pressure can take
// them, once a later buffer is released while they are still unused: the buffer a pipeline takes
// straight back never pays for it) and a new one is faulted in on several threads at once, on huge pages.
//
// The cache holds at most `limit` bytes of freed buffers (CCLABEL_HOST_CACHE_BYTES; by default a
// quarter of the machine's memory; 0 turns it off), and free_all() gives them all back.
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "core/freed_buffers.hpp"

namespace cclabel::detail {

class HostOutputCache {
public:
    /// Buffers below this many bytes come from malloc, which keeps small freed blocks warm. Not
    /// those of a few MiB: the 25 dpi sheet's 3.2 MB of labels came fresh from the kernel on every
    /// call, 0.4 of the call's 1.0 ms on the 2-core machine (2026-12-07).
    static constexpr std::size_t kMinBytes = std::size_t(1) << 20;
    /// Freed buffers kept at most (the oldest leave first), so that the search for a fit stays short.
    static constexpr std::size_t kMaxEntries = FreedBuffers::kMaxEntries;

    explicit HostOutputCache(std::size_t limit) : limit_(limit) {}
    ~HostOutputCache() { free_all(); }
    HostOutputCache(const HostOutputCache&) = delete;
    HostOutputCache& operator=(const HostOutputCache&) = delete;

    /// A buffer of at least @p bytes, writable; its size for release() in @p mapped (whole huge
    /// pages from 4 MiB, whole pages below).
    /// A cached one of up to 5/4 of the size asked is taken first; else a new mapping, faulted in
    /// on @p threads threads. Throws std::bad_alloc when the kernel refuses the mapping.
    void* acquire(std::size_t bytes, int threads, std::size_t& mapped);
    /// Takes back a buffer of acquire(): cached while the cache stays within its limit (the oldest
    /// buffers leave first), else unmapped.
    void release(void* p, std::size_t mapped) noexcept;
    /// Unmaps every cached buffer; returns the bytes given back.
    std::size_t free_all() noexcept;

    std::size_t cached_bytes() const;
    std::size_t limit() const { return limit_; }
    /// Buffers mapped and faulted in by acquire() so far (not taken from the cache).
    std::uint64_t fresh_mappings() const;

    /// The process's cache, its limit from CCLABEL_HOST_CACHE_BYTES (a byte count) or a quarter of
    /// the physical memory.
    static HostOutputCache& process();

private:
    mutable std::mutex m_;
    std::size_t limit_;
    std::uint64_t fresh_ = 0;
    FreedBuffers freed_;  ///< a few entries, each at least kMinBytes
    /// The buffer released last, still in freed_ and not yet given up to the kernel (MADV_FREE):
    /// the next release gives it up if no acquire took it back in between. A pipeline takes it
    /// back at once, and then never pays for giving up 200 MB (0.6-0.7 ms a call at 50 Mpx on the
    /// H100 host, the Python call's whole excess over the C++ call's, twentieth session).
    void* pending_ = nullptr;
    std::size_t pending_bytes_ = 0;
};

/// The environment variable @p name as a byte count, or @p fallback where unset; throws
/// cclabel::Error for text that is not a non-negative integer.
std::size_t byte_count_from_environment(const char* name, std::size_t fallback);

/// CCLABEL_HOST_CACHE_BYTES (byte_count_from_environment).
inline std::size_t host_cache_limit_from_environment(std::size_t fallback) {
    return byte_count_from_environment("CCLABEL_HOST_CACHE_BYTES", fallback);
}

}  // namespace cclabel::detail
