// Step 4 of the tile API: a tile's local labels through its map into the global label image.
#include "core/tiles_relabel.hpp"

#include "cclabel/tiles.hpp"

namespace cclabel {

void relabel_tile(const std::uint32_t* local, std::int64_t width, std::int64_t height,
                  const std::vector<std::uint64_t>& map, std::uint32_t* out, std::int64_t out_stride) {
    detail::relabel_strided(local, width, width, height, map, out, out_stride);
}

void relabel_tile(const std::uint32_t* local, std::int64_t width, std::int64_t height,
                  const std::vector<std::uint64_t>& map, std::uint64_t* out, std::int64_t out_stride) {
    detail::relabel_strided(local, width, width, height, map, out, out_stride);
}

}  // namespace cclabel
