#pragma once
// The region adjacency graph as CSV, for pictures and volumes alike (src/cli/adjacency_csv.cpp).
#include <string>
#include <vector>

#include "cclabel/adjacency.hpp"

namespace cclabel::cli {

/// Writes "a,b,contacts", one row per touching pair, a < b, sorted; throws Error when @p path
/// cannot be written.
void write_adjacency_csv(const std::string& path, const std::vector<AdjacencyEdge>& edges);

}  // namespace cclabel::cli
