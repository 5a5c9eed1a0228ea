#pragma once
// `label --volume --preview FILE`: one PNG of a label volume, its slices side by side
// (src/cli/volume_preview.cpp).
#include <cstdint>
#include <string>
#include <vector>

namespace cclabel::cli {

/// Where slice z goes in a preview sheet: column z % columns, row z / columns.
struct PreviewSheet {
    std::int64_t columns = 1, rows = 1;  ///< slices across and down
    std::int64_t width = 0, height = 0;  ///< the sheet in pixels, a 1-pixel gap between slices
};

/// The sheet of a width × height × depth volume: ceil(sqrt(depth)) columns, as few rows as hold
/// every slice (a volume of one slice: the slice itself).
PreviewSheet preview_sheet(std::int64_t width, std::int64_t height, std::int64_t depth);

/// The labels of the sheet: slice z's labels at its place, 0 (black in the preview) in the gaps
/// and the places past the last slice.
std::vector<std::uint32_t> preview_sheet_labels(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                                std::int64_t depth, const PreviewSheet& sheet);

/// Writes the sheet as the pictures' preview PNG (io::write_preview_png): every label its stable
/// colour, the one it has in every slice, background black.
void write_volume_preview(const std::string& path, const std::uint32_t* labels, std::int64_t width,
                          std::int64_t height, std::int64_t depth);

}  // namespace cclabel::cli
