// The tiled path's label limit and its test hook (see tiles_limit.hpp).
#include "core/tiles_limit.hpp"

#include <atomic>

#include "cclabel/label.hpp"

namespace cclabel::detail {
namespace {
std::atomic<std::uint64_t> g_limit{kMaxPixels};
}

std::uint64_t tiled_label_limit() noexcept { return g_limit.load(std::memory_order_relaxed); }

void set_tiled_label_limit_for_testing(std::uint64_t limit) noexcept {
    g_limit.store(limit == 0 || limit > kMaxPixels ? kMaxPixels : limit, std::memory_order_relaxed);
}

}  // namespace cclabel::detail
