#pragma once
// A tile's labels through a map, from any stride to any stride (in place when local == out): what
// relabel_tile() and label_tiled() share.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "core/tiles_limit.hpp"

namespace cclabel::detail {

template <typename Local, typename Out>
void relabel_strided(const Local* local, std::int64_t local_stride, std::int64_t width, std::int64_t height,
                     const std::vector<std::uint64_t>& map, Out* out, std::int64_t out_stride) {
    if (width < 0 || height < 0)
        throw Error("relabel: tile size must not be negative (got " + std::to_string(width) + " x " +
                    std::to_string(height) + ")");
    if (width == 0 || height == 0) return;
    if (!local || !out) throw Error(std::string("relabel: the ") + (local ? "output" : "local label") + " buffer is null");
    if (out_stride < width)
        throw Error("relabel: output stride " + std::to_string(out_stride) + " is smaller than the tile width " +
                    std::to_string(width));
    if (map.empty() || map[0] != 0) throw Error("relabel: map[0] must be 0 (background)");
    if constexpr (sizeof(Out) == 4) {
        const std::uint64_t top = *std::max_element(map.begin(), map.end());
        if (top > detail::tiled_label_limit())
            throw Error("relabel: global label " + std::to_string(top) +
                        " does not fit a uint32 label image (use 64-bit labels)");
    }
    const std::uint64_t n = map.size();
    for (std::int64_t y = 0; y < height; ++y) {
        const Local* src = local + y * local_stride;
        Out* dst = out + y * out_stride;  // may be src (in place)
        for (std::int64_t x = 0; x < width; ++x) {
            if (src[x] >= n)
                throw Error("relabel: local label " + std::to_string(src[x]) + " at (" + std::to_string(x) + ", " +
                            std::to_string(y) + ") has no entry in a map of " + std::to_string(n - 1) + " labels");
            dst[x] = Out(map[src[x]]);
        }
    }
}

}  // namespace cclabel::detail
