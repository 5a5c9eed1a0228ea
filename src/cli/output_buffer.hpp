#pragma once
// The CLI's per-page outputs (labels, masks, cluster indices) as vectors whose resize leaves the
// new elements uninitialised: every element is written by the call that fills it, and zeroing
// first cost the CLI more than the labelling. An 806 Mpx page's 3.2 GB of labels took 1.5-2.5 s to
// zero (and fault in) on one thread before the labeller's threads wrote them again in 75 ms.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

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
};

template <typename T>
using OutputBuffer = std::vector<T, NoZeroAllocator<T>>;

}  // namespace cclabel::cli
