#pragma once
// The CLI's region statistics file: one CSV row per label, the background first.
#include <string>
#include <vector>

#include "cclabel/stats.hpp"

namespace cclabel::cli {

/// Writes @p stats to @p path; throws cclabel::Error naming the file when it cannot be written.
void write_stats_csv(const std::string& path, const std::vector<RegionStats>& stats);

}  // namespace cclabel::cli
