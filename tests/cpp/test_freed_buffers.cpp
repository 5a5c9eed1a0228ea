// FreedBuffers (src/core/freed_buffers.hpp): the rule the host label arrays' cache and the device
// buffers' cache share. What the caches rely on: a buffer comes back only for a request it holds
// with at most a quarter to spare, only for its own key (device), the smallest such first; the kept
// bytes never pass the limit, the oldest leave first, and everything dropped is handed to the
// dropper exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "core/freed_buffers.hpp"

namespace cclabel::test {
namespace {

using detail::FreedBuffers;

void* fake(std::uintptr_t i) { return reinterpret_cast<void*>(i * 4096); }

struct Dropped {
    std::vector<void*> p;
    void operator()(const FreedBuffers::Entry& e) { p.push_back(e.p); }
};

TEST(FreedBuffers, TakesTheSmallestThatHoldsTheRequestWithAQuarterToSpare) {
    FreedBuffers f;
    Dropped d;
    f.put({fake(1), 1000, 0}, 1 << 20, d);
    f.put({fake(2), 1240, 0}, 1 << 20, d);
    f.put({fake(3), 1100, 0}, 1 << 20, d);
    FreedBuffers::Entry e;
    EXPECT_FALSE(f.take(1001, 1, e)) << "another key never fits";
    ASSERT_TRUE(f.take(1001, 0, e));
    EXPECT_EQ(e.p, fake(3));  // 1100 and 1240 hold it; 1100 is smaller
    EXPECT_EQ(f.bytes(), 2240u);
    EXPECT_FALSE(f.take(799, 0, e)) << "1000 wastes more than a quarter of 799";
    ASSERT_TRUE(f.take(800, 0, e)) << "a quarter of 800 to spare is allowed";
    EXPECT_EQ(e.p, fake(1));
    ASSERT_TRUE(f.take(1240, 0, e));
    EXPECT_EQ(e.p, fake(2));
    EXPECT_EQ(f.bytes(), 0u);
    EXPECT_FALSE(f.take(1, 0, e));
    EXPECT_TRUE(d.p.empty());
}

TEST(FreedBuffers, KeysAreKeptApartAndCountedApart) {
    FreedBuffers f;
    Dropped d;
    f.put({fake(1), 4096, 0}, 1 << 20, d);
    f.put({fake(2), 4096, 1}, 1 << 20, d);
    EXPECT_EQ(f.bytes(0), 4096u);
    EXPECT_EQ(f.bytes(1), 4096u);
    EXPECT_EQ(f.bytes(2), 0u);
    FreedBuffers::Entry e;
    ASSERT_TRUE(f.take(4096, 1, e));
    EXPECT_EQ(e.p, fake(2));
    EXPECT_EQ(e.key, 1);
    EXPECT_EQ(f.bytes(1), 0u);
    EXPECT_EQ(f.bytes(0), 4096u);
}

TEST(FreedBuffers, TheLimitDropsTheOldestFirstAndABufferOverItAtOnce) {
    FreedBuffers f;
    Dropped d;
    const std::size_t limit = 10000;
    f.put({fake(1), 4000, 0}, limit, d);
    f.put({fake(2), 4000, 0}, limit, d);
    EXPECT_TRUE(d.p.empty());
    f.put({fake(3), 4000, 0}, limit, d);  // 12000 > limit: the oldest goes
    ASSERT_EQ(d.p.size(), 1u);
    EXPECT_EQ(d.p[0], fake(1));
    EXPECT_EQ(f.bytes(), 8000u);
    f.put({fake(4), limit + 1, 0}, limit, d);  // alone over the limit: dropped, nothing else
    ASSERT_EQ(d.p.size(), 2u);
    EXPECT_EQ(d.p[1], fake(4));
    EXPECT_EQ(f.bytes(), 8000u);
    f.trim(0, d);
    EXPECT_EQ(f.bytes(), 0u);
    EXPECT_EQ(std::set<void*>(d.p.begin(), d.p.end()).size(), 4u) << "each buffer dropped exactly once";
    f.put({fake(5), 1, 0}, 0, d);  // a limit of 0 keeps nothing
    EXPECT_EQ(f.entries(), 0u);
    EXPECT_EQ(d.p.back(), fake(5));
}

TEST(FreedBuffers, NoMoreThanTheEntryCap) {
    FreedBuffers f;
    Dropped d;
    for (std::uintptr_t i = 1; i <= FreedBuffers::kMaxEntries + 3; ++i) f.put({fake(i), 512, 0}, 1 << 30, d);
    EXPECT_EQ(f.entries(), FreedBuffers::kMaxEntries);
    ASSERT_EQ(d.p.size(), 3u);
    EXPECT_EQ(d.p[0], fake(1));
    EXPECT_EQ(d.p[2], fake(3));
    EXPECT_EQ(f.bytes(), FreedBuffers::kMaxEntries * 512);
}

}  // namespace
}  // namespace cclabel::test
