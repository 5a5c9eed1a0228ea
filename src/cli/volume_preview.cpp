// The preview of a label volume: a contact sheet of its slices (z left to right, then top to
// bottom, one black pixel between slices) in the colours of the pictures' previews. One PNG that
// any viewer opens, rather than a page a slice (which few PNG viewers show) or the middle slice
// only (which hides most regions); a region keeps its colour through the slices, since the colour
// is a function of the label.
#include "cli/volume_preview.hpp"

#include <algorithm>
#include <cmath>

#include "cclabel/error.hpp"
#include "cclabel/io.hpp"
#include "cclabel/label.hpp"

namespace cclabel::cli {

PreviewSheet preview_sheet(std::int64_t width, std::int64_t height, std::int64_t depth) {
    PreviewSheet s;
    if (width <= 0 || height <= 0 || depth <= 0) {
        s.width = std::max<std::int64_t>(width, 0);
        s.height = std::max<std::int64_t>(height, 0);
        return s;
    }
    s.columns = std::int64_t(std::ceil(std::sqrt(double(depth))));
    while (s.columns * s.columns < depth) ++s.columns;  // sqrt's rounding
    while ((s.columns - 1) * (s.columns - 1) >= depth) --s.columns;
    s.rows = (depth + s.columns - 1) / s.columns;
    s.width = s.columns * width + (s.columns - 1);
    s.height = s.rows * height + (s.rows - 1);
    return s;
}

std::vector<std::uint32_t> preview_sheet_labels(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                                std::int64_t depth, const PreviewSheet& sheet) {
    std::vector<std::uint32_t> out(std::size_t(sheet.width) * std::size_t(sheet.height), 0);
    for (std::int64_t z = 0; z < depth; ++z) {
        const std::int64_t x0 = (z % sheet.columns) * (width + 1), y0 = (z / sheet.columns) * (height + 1);
        for (std::int64_t y = 0; y < height; ++y)
            std::copy_n(labels + (z * height + y) * width, width, out.begin() + (y0 + y) * sheet.width + x0);
    }
    return out;
}

void write_volume_preview(const std::string& path, const std::uint32_t* labels, std::int64_t width,
                          std::int64_t height, std::int64_t depth) {
    const PreviewSheet sheet = preview_sheet(width, height, depth);
    if (std::uint64_t(sheet.width) * std::uint64_t(sheet.height) > kMaxPixels)
        throw Error("--preview: the sheet of " + std::to_string(depth) + " slices would have more than 4294967295 pixels");
    const std::vector<std::uint32_t> sheet_labels = preview_sheet_labels(labels, width, height, depth, sheet);
    io::write_preview_png(path, sheet_labels.data(), sheet.width, sheet.height);
}

}  // namespace cclabel::cli
