#pragma once
// The region statistics table of `cclabel stats` and `cclabel label --stats`: one CSV row per label,
// the background (label 0) first.
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/stats.hpp"
#include "cclabel/volume_stats.hpp"

namespace cclabel::cli {

inline constexpr char kStatsHeader[] = "label,area,left,top,width,height,centroid_x,centroid_y,perimeter,value";
/// The table of a volume (--volume): voxels, the box (front: its first slice z; depth: its slices)
/// and the centroid in three dimensions, the surface voxels instead of the perimeter.
inline constexpr char kVolumeStatsHeader[] =
    "label,voxels,left,top,front,width,height,depth,centroid_x,centroid_y,centroid_z,surface,value";

/// A region's value as the table writes it: "#rrggbb" for RGB8, "#rrggbbaa" for RGBA8, the value in
/// the image's own type for the typed formats ("-5", "3.25", "nan"; format_typed_value), the
/// integer otherwise.
std::string format_value(const std::array<std::uint32_t, 4>& value, PixelFormat format);

/// Writes the header and one row per entry of @p stats (of an image in @p format) to @p out;
/// throws cclabel::Error naming @p name when the write fails.
void write_stats_csv(std::FILE* out, const std::string& name, const std::vector<RegionStats>& stats,
                     PixelFormat format);

/// The same into the file @p path.
void write_stats_csv(const std::string& path, const std::vector<RegionStats>& stats, PixelFormat format);

/// The table of a volume's regions (kVolumeStatsHeader), to @p out (named @p name in errors).
void write_stats_csv(std::FILE* out, const std::string& name, const std::vector<VolumeRegionStats>& stats,
                     PixelFormat format);

/// The same into the file @p path.
void write_stats_csv(const std::string& path, const std::vector<VolumeRegionStats>& stats, PixelFormat format);

}  // namespace cclabel::cli
