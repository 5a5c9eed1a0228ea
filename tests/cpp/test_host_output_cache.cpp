// HostOutputCache (src/core/host_output_cache.hpp): the reuse of freed label buffers behind the
// Python package's new arrays. What a caller relies on: a buffer in use is never handed out twice,
// a freed one of about the right size comes back instead of a new mapping, and the cache never
// holds more than its limit.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "cclabel/error.hpp"
#include "core/host_output_cache.hpp"

namespace cclabel::test {
namespace {

using detail::HostOutputCache;
constexpr std::size_t kMiB = std::size_t(1) << 20;

TEST(HostOutputCache, AFreedBufferOfTheSameSizeComesBackInsteadOfANewOne) {
    HostOutputCache cache(256 * kMiB);
    std::size_t m1 = 0, m2 = 0;
    void* a = cache.acquire(40 * kMiB, 2, m1);
    ASSERT_NE(a, nullptr);
    EXPECT_GE(m1, 40 * kMiB);
    std::memset(a, 0xAB, 40 * kMiB);  // all of it writable
    cache.release(a, m1);
    EXPECT_EQ(cache.cached_bytes(), m1);
    void* b = cache.acquire(40 * kMiB - 12345, 2, m2);
    EXPECT_EQ(b, a);
    EXPECT_EQ(m2, m1);
    EXPECT_EQ(cache.fresh_mappings(), 1u);
    EXPECT_EQ(cache.cached_bytes(), 0u);
    std::memset(b, 0x11, 40 * kMiB);
    cache.release(b, m2);
}

TEST(HostOutputCache, APipelinesBuffersKeepWhatTheirOwnersWriteAcrossReleases) {
    // Buffers of 64 MiB and more are given up to the kernel (MADV_FREE) only when a later release
    // finds them still unused: two results alternating, as `lab = label(img)` in a loop does, each
    // taken back at once and written; then one left unused, given up by the next release, and
    // reused; then everything freed while a buffer waits to be given up. What an owner wrote must
    // stay, and the cache's counts must add up (AddressSanitizer in CI checks the freed mappings).
    HostOutputCache cache(1024 * kMiB);
    const std::size_t n = 80 * kMiB;
    std::size_t ma = 0, mb = 0;
    auto* a = static_cast<unsigned char*>(cache.acquire(n, 2, ma));
    std::memset(a, 1, n);
    for (int round = 0; round < 4; ++round) {
        auto* b = static_cast<unsigned char*>(cache.acquire(n, 2, mb));
        ASSERT_NE(b, a);
        std::memset(b, 2 + round, n);
        cache.release(a, ma);  // the last result given up: the next acquire takes it back
        a = b;
        std::swap(ma, mb);
        EXPECT_EQ(a[0], 2 + round);
        EXPECT_EQ(a[n - 1], 2 + round);
    }
    EXPECT_EQ(cache.fresh_mappings(), 2u);
    std::size_t mc = 0;
    auto* c = static_cast<unsigned char*>(cache.acquire(n, 2, mc));  // the other buffer, back again
    EXPECT_EQ(cache.fresh_mappings(), 2u);
    std::memset(c, 9, n);
    cache.release(a, ma);  // waits to be given up
    cache.release(c, mc);  // gives a up (unused since), waits itself
    EXPECT_EQ(cache.cached_bytes(), ma + mc);
    std::size_t md = 0;
    auto* d = static_cast<unsigned char*>(cache.acquire(n, 2, md));
    std::memset(d, 7, n);  // whichever came back, given up or not, is writable and keeps what is written
    EXPECT_EQ(d[n / 2], 7);
    EXPECT_EQ(cache.fresh_mappings(), 2u);
    cache.release(d, md);
    EXPECT_EQ(cache.free_all(), ma + mc);
    EXPECT_EQ(cache.cached_bytes(), 0u);
}

TEST(HostOutputCache, BuffersInUseAreNeverSharedAndEachIsWholeAndWritable) {
    HostOutputCache cache(1024 * kMiB);
    std::vector<std::pair<void*, std::size_t>> held;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 4; ++i) {
            std::size_t m = 0;
            void* p = cache.acquire(20 * kMiB, 1, m);
            // Each buffer carries its own mark in every word; a shared or short one would be overwritten.
            auto* w = static_cast<std::uint32_t*>(p);
            for (std::size_t k = 0; k < 20 * kMiB / 4; ++k) w[k] = std::uint32_t(i * 7919 + round);
            held.emplace_back(p, m);
        }
        std::set<void*> distinct;
        for (std::size_t i = 0; i < held.size(); ++i) {
            distinct.insert(held[i].first);
            const auto* w = static_cast<const std::uint32_t*>(held[i].first);
            const std::uint32_t mark = std::uint32_t(int(i) * 7919 + round);
            for (std::size_t k = 0; k < 20 * kMiB / 4; k += 4093) ASSERT_EQ(w[k], mark) << "buffer " << i;
        }
        EXPECT_EQ(distinct.size(), held.size());
        for (auto& [p, m] : held) cache.release(p, m);
        held.clear();
    }
    EXPECT_EQ(cache.fresh_mappings(), 4u) << "rounds 2 and 3 reuse round 1's four buffers";
}

TEST(HostOutputCache, OnlyBuffersOfAboutTheSizeAskedAreReused) {
    HostOutputCache cache(1024 * kMiB);
    std::size_t m = 0, m2 = 0;
    void* big = cache.acquire(100 * kMiB, 1, m);
    cache.release(big, m);
    void* small = cache.acquire(40 * kMiB, 1, m2);  // 100 MiB would waste more than a quarter
    EXPECT_NE(small, big);
    EXPECT_EQ(cache.fresh_mappings(), 2u);
    cache.release(small, m2);
    void* larger = cache.acquire(101 * kMiB, 1, m2);  // neither cached one holds it
    EXPECT_NE(larger, big);
    EXPECT_EQ(cache.fresh_mappings(), 3u);
    cache.release(larger, m2);
}

TEST(HostOutputCache, NeverHoldsMoreThanItsLimitAndTheOldestLeaveFirst) {
    HostOutputCache cache(64 * kMiB);
    std::size_t ma = 0, mb = 0, mc = 0;
    void* a = cache.acquire(30 * kMiB, 1, ma);
    void* b = cache.acquire(30 * kMiB, 1, mb);
    void* c = cache.acquire(30 * kMiB, 1, mc);
    cache.release(a, ma);
    cache.release(b, mb);
    EXPECT_EQ(cache.cached_bytes(), ma + mb);
    cache.release(c, mc);  // a leaves
    EXPECT_LE(cache.cached_bytes(), cache.limit());
    EXPECT_EQ(cache.cached_bytes(), mb + mc);
    std::size_t m = 0;
    std::set<void*> back{cache.acquire(30 * kMiB, 1, m)};
    back.insert(cache.acquire(30 * kMiB, 1, m));
    EXPECT_EQ(back, (std::set<void*>{b, c}));
    EXPECT_EQ(cache.fresh_mappings(), 3u);
    for (void* p : back) cache.release(p, m);
    EXPECT_EQ(cache.free_all(), 2 * m);
    EXPECT_EQ(cache.cached_bytes(), 0u);
}

TEST(HostOutputCache, ALimitOfZeroKeepsNothing) {
    HostOutputCache cache(0);
    std::size_t m = 0;
    void* p = cache.acquire(16 * kMiB, 1, m);
    cache.release(p, m);
    EXPECT_EQ(cache.cached_bytes(), 0u);
    cache.release(cache.acquire(16 * kMiB, 1, m), m);
    EXPECT_EQ(cache.fresh_mappings(), 2u);
}

TEST(HostOutputCache, SmallBuffersTakeWholePagesAndTheCacheKeepsAtMostItsEntries) {
    HostOutputCache cache(1024 * kMiB);
    std::size_t m = 0;
    void* p = cache.acquire(kMiB + 1, 1, m);
    EXPECT_EQ(m, kMiB + 4096) << "a page, not a huge page, above 1 MiB";
    static_cast<char*>(p)[kMiB] = 1;
    cache.release(p, m);
    void* q = cache.acquire(5 * kMiB + 1, 1, m);
    EXPECT_EQ(m, 6 * kMiB) << "whole huge pages from 4 MiB";
    cache.release(q, m);
    EXPECT_EQ(cache.free_all(), kMiB + 4096 + 6 * kMiB);
    std::vector<std::pair<void*, std::size_t>> held(HostOutputCache::kMaxEntries + 5);
    for (auto& [b, bm] : held) b = cache.acquire(kMiB, 1, bm);
    for (auto& [b, bm] : held) cache.release(b, bm);
    EXPECT_EQ(cache.cached_bytes(), HostOutputCache::kMaxEntries * kMiB);
    cache.free_all();
}

TEST(HostOutputCache, TheLimitFromTheEnvironment) {
    ::unsetenv("CCLABEL_HOST_CACHE_BYTES");
    EXPECT_EQ(detail::host_cache_limit_from_environment(77), 77u);
    ::setenv("CCLABEL_HOST_CACHE_BYTES", "0", 1);
    EXPECT_EQ(detail::host_cache_limit_from_environment(77), 0u);
    ::setenv("CCLABEL_HOST_CACHE_BYTES", "1073741824", 1);
    EXPECT_EQ(detail::host_cache_limit_from_environment(77), std::size_t(1) << 30);
    for (const char* bad : {"-1", "1e9", "lots", "12 MiB", "99999999999999999999999"}) {
        ::setenv("CCLABEL_HOST_CACHE_BYTES", bad, 1);
        EXPECT_THROW(detail::host_cache_limit_from_environment(77), Error) << bad;
    }
    ::unsetenv("CCLABEL_HOST_CACHE_BYTES");
}

}  // namespace
}  // namespace cclabel::test
