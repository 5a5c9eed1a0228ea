#pragma once
// Transparent huge pages for a large buffer that is about to be written for the first time. A
// fresh buffer faults in a page at a time on its first write: 4 KiB pages made building the 800
// dpi sheet's 35 MB edge list take 18.7 ms on the H100 host, most of it in the kernel's page-fault
// path (2026-12-07); 2 MiB pages take a fault each. Advice only: where THP is off, or for the part
// of the buffer outside whole huge pages, nothing changes.
#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace cclabel::detail {

/// Advises the whole 2 MiB pages inside [@p p, @p p + @p bytes) to be huge pages. Buffers below
/// 4 MiB are left alone (a huge page for them would mostly hold other allocations).
inline void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    if (p == nullptr || bytes < 2 * kHuge) return;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

}  // namespace cclabel::detail
