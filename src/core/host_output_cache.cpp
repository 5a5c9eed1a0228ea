#include "core/host_output_cache.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <new>
#include <string>

#include "cclabel/error.hpp"
#include "core/huge_pages.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace cclabel::detail {
namespace {

constexpr std::size_t kHuge = std::size_t(2) << 20, kPage = 4096;

/// Whole huge pages where they pay (advise_huge_pages leaves buffers below 4 MiB alone), so that a
/// buffer of 1 MiB does not take 2.
std::size_t round_up(std::size_t bytes) {
    const std::size_t unit = bytes >= 2 * kHuge ? kHuge : kPage;
    return (bytes + unit - 1) / unit * unit;
}

/// A private anonymous mapping; from 4 MiB on, starting on a huge page's boundary, so that every
/// 2 MiB of it can be a huge page (and MADV_FREE never splits one at its ends).
void* map_buffer(std::size_t bytes) {
#if defined(__linux__)
    const std::size_t extra = bytes >= 2 * kHuge ? kHuge : 0;
    void* p = ::mmap(nullptr, bytes + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (extra == 0) return p;
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (start + kHuge - 1) & ~std::uintptr_t(kHuge - 1);
    if (aligned > start) (void)::munmap(p, aligned - start);
    if (start + extra > aligned) (void)::munmap(reinterpret_cast<void*>(aligned + bytes), start + extra - aligned);
    return reinterpret_cast<void*>(aligned);
#else
    void* p = std::malloc(bytes);
    if (!p) throw std::bad_alloc();
    return p;
#endif
}

void unmap_buffer(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
    (void)::munmap(p, bytes);
#else
    (void)bytes;
    std::free(p);
#endif
}

/// The pages' contents are no longer needed: the kernel may take them under memory pressure (the
/// next write then faults a zero page in), and otherwise they stay, with no fault on reuse. Only
/// for large buffers: a page given up so must be marked dirty again by its next write, which on
/// 4 KiB pages cost more than the buffer was worth (the 25 dpi sheet's 3.2 MB: filling it took 0.13
/// ms against 0.055 for glibc's warm block, 2-core machine, 2026-12-07); large buffers are on huge
/// pages, a mark each 2 MiB, and they are what memory pressure would want back.
constexpr std::size_t kLetGoBytes = std::size_t(64) << 20;

void let_go(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_FREE)
    if (bytes >= kLetGoBytes) (void)::madvise(p, bytes, MADV_FREE);
#else
    (void)p;
    (void)bytes;
#endif
}

std::size_t physical_memory() noexcept {
#if defined(__linux__)
    const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) return std::size_t(pages) * std::size_t(size);
#endif
    return std::size_t(4) << 30;
}

}  // namespace

void* HostOutputCache::acquire(std::size_t bytes, int threads, std::size_t& mapped) {
    const std::size_t want = round_up(bytes < kPage ? kPage : bytes);
    {
        std::lock_guard<std::mutex> lock(m_);
        FreedBuffers::Entry e;
        if (freed_.take(want, 0, e)) {
            if (e.p == pending_) pending_ = nullptr;  // taken back before it was given up
            mapped = e.bytes;
            return e.p;
        }
        ++fresh_;
    }
    void* p = map_buffer(want);
    advise_huge_pages(p, want);
    populate_for_writing(p, want, threads);
    mapped = want;
    return p;
}

void HostOutputCache::release(void* p, std::size_t mapped) noexcept {
    if (p == nullptr) return;
    std::lock_guard<std::mutex> lock(m_);
    // The buffer released before this one sat unused since: its pages may go now.
    if (pending_ != nullptr) let_go(pending_, pending_bytes_);
    pending_ = nullptr;
    bool kept = true;  // put drops the buffer itself when it alone exceeds the limit
    freed_.put(FreedBuffers::Entry{p, mapped, 0}, limit_, [&](const FreedBuffers::Entry& e) noexcept {
        if (e.p == p) kept = false;
        unmap_buffer(e.p, e.bytes);
    });
    if (kept) {
        pending_ = p;
        pending_bytes_ = mapped;
    }
}

std::size_t HostOutputCache::free_all() noexcept {
    std::lock_guard<std::mutex> lock(m_);
    const std::size_t had = freed_.bytes();
    pending_ = nullptr;
    freed_.trim(0, [](const FreedBuffers::Entry& e) noexcept { unmap_buffer(e.p, e.bytes); });
    return had;
}

std::size_t HostOutputCache::cached_bytes() const {
    std::lock_guard<std::mutex> lock(m_);
    return freed_.bytes();
}

std::uint64_t HostOutputCache::fresh_mappings() const {
    std::lock_guard<std::mutex> lock(m_);
    return fresh_;
}

std::size_t byte_count_from_environment(const char* name, std::size_t fallback) {
    const char* env = std::getenv(name);
    if (env == nullptr || *env == '\0') return fallback;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (*env == '-' || end == env || *end != '\0' || errno == ERANGE)
        throw Error(std::string(name) + "=" + env + " is not a byte count (0 turns the cache off)");
    return std::size_t(v);
}

HostOutputCache& HostOutputCache::process() {
    // Never destroyed: arrays that outlive the interpreter's teardown still give their buffers back.
    static HostOutputCache* cache = new HostOutputCache(host_cache_limit_from_environment(physical_memory() / 4));
    return *cache;
}

}  // namespace cclabel::detail
