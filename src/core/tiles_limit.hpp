#pragma once
// The largest label value, and the largest tile, of the tiled path. It is kMaxPixels (2^32 − 1);
// tests lower it so that the 64-bit path (images and label counts over the uint32 limit) runs on
// images small enough for CI.
#include <cstdint>

namespace cclabel::detail {

/// The current limit (kMaxPixels unless a test lowered it).
std::uint64_t tiled_label_limit() noexcept;

/// Sets the limit; 0 restores kMaxPixels. For tests only: not thread-safe against running calls.
void set_tiled_label_limit_for_testing(std::uint64_t limit) noexcept;

}  // namespace cclabel::detail
