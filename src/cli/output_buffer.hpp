#pragma once
// The CLI's per-page outputs (labels, masks, cluster indices) as vectors whose resize leaves the
// new elements uninitialised: every element is written by the call that fills it, and zeroing
// first cost the CLI more than the labelling. An 806 Mpx page's 3.2 GB of labels took 1.5-2.5 s to
// zero (and fault in) on one thread before the labeller's threads wrote them again in 75 ms.
//
// Large buffers are also put on transparent huge pages (as NumPy does for its arrays): the
// labeller's first write faults each page in, and 4 KiB pages made that 370 ms of the C++ library's
// 450 ms for a fresh 800 dpi sheet's labels on the H100 host, where NumPy's output took 85 ms more
// than a reused one (bench_host "cpu fresh" and bench/auto_sweep.py, 2026-12-07).
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "cli/cli_switches.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace cclabel::cli {

/// std::allocator, except that value-initialisation (resize(n)) becomes default-initialisation,
/// which leaves trivially constructible elements as they are.
template <typename T>
struct NoZeroAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = NoZeroAllocator<U>;
    };
    NoZeroAllocator() = default;
    template <typename U>
    NoZeroAllocator(const NoZeroAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }

    static bool huge_off() noexcept { return cli_switch_off("hugepages"); }
    static constexpr std::size_t kHugePage = std::size_t(2) << 20;
    static constexpr std::size_t kHugeFrom = std::size_t(32) << 20;  ///< smaller buffers: std::allocator

    T* allocate(std::size_t n) {
        if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (bytes < kHugeFrom || huge_off()) return std::allocator<T>::allocate(n);
        const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        void* p = std::aligned_alloc(kHugePage, rounded);
        if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        (void)::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages are 4 KiB
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) < kHugeFrom || huge_off())
            std::allocator<T>::deallocate(p, n);
        else
            std::free(p);
    }
};

template <typename T, typename U>
bool operator==(const NoZeroAllocator<T>&, const NoZeroAllocator<U>&) noexcept {
    return true;
}

template <typename T>
using OutputBuffer = std::vector<T, NoZeroAllocator<T>>;

}  // namespace cclabel::cli
