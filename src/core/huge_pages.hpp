#pragma once
// Transparent huge pages for a large buffer that is about to be written for the first time. A
// fresh buffer faults in a page at a time on its first write: 4 KiB pages made building the 800
// dpi sheet's 35 MB edge list take 18.7 ms on the H100 host, most of it in the kernel's page-fault
// path (2026-12-07); 2 MiB pages take a fault each. Advice only: where THP is off, or for the part
// of the buffer outside whole huge pages, nothing changes.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/parallel_for.hpp"

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

/// Faults [@p p, @p p + @p bytes) in, writable, on up to @p threads threads, before it is written
/// for the first time: the kernel zeroes pages in parallel where a first write would take every
/// fault on one thread (the 800 dpi sheet's 35 MB edge list: 11 ms built on one thread on the H100
/// host, huge-page advice and all, 2026-12-07). The contents are unchanged (zero pages read as
/// zero; a populated page keeps what it held), so this is valid on a vector's reserved capacity.
/// Advice only: where MADV_POPULATE_WRITE is missing (Linux before 5.14) nothing happens.
inline void populate_for_writing(void* p, std::size_t bytes, int threads) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    constexpr std::uintptr_t kPage = 4096, kPart = std::uintptr_t(4) << 20;
    if (p == nullptr || bytes < kPart) return;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kPage - 1);
    if (end <= begin) return;
    const std::uint64_t parts = (end - begin + kPart - 1) / kPart;
    parallel_for(parts, std::max(1, threads), [&](std::uint64_t i) {
        const std::uintptr_t a = begin + i * kPart, b = std::min(end, a + kPart);
        (void)::madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);
    }, cpu::Work::streaming);
#else
    (void)p;
    (void)bytes;
    (void)threads;
#endif
}

}  // namespace cclabel::detail
