#pragma once
// The subcommands of the cclabel tool, each in its own file: label_command.cpp, stats_command.cpp,
// check_command.cpp. Each registers its options and returns what runs it after parsing.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace cclabel::cli {

struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

class Labeller;
struct LabelOptions;

/// What `label --volume` writes (src/cli/volume_commands.cpp): the options of `label` by name.
struct VolumeOutputs {
    std::string output, format, stats, preview, adjacency;
    bool adjacency_background = false;  ///< --adjacency-background: the pairs with label 0 too
    std::uint64_t budget = ~std::uint64_t(0);  ///< --memory-budget: a TIFF past it is read in slabs
};

/// `label --volume`: labels each input as one volume; returns the exit code (0, 1 when an input
/// failed, 2 for an option a volume cannot take).
int run_label_volumes(const std::vector<std::string>& inputs, const Labeller& labeller, const LabelOptions& options,
                      const VolumeOutputs& out);

/// `stats --volume`: the region table of one volume, to standard output or @p csv; the exit code.
int run_stats_volume(const std::string& input, const std::string& csv, const Labeller& labeller);

Command add_label_command(CLI::App& app);
Command add_stats_command(CLI::App& app);
Command add_check_command(CLI::App& app);

/// 1234567 → "1,234,567".
std::string with_commas(std::uint64_t v);

/// Prints "cclabel: error: <what>" on stderr, prefixed with @p name unless the message already
/// starts with it (the readers' messages do).
void print_error(const std::string& name, const std::exception& e);

}  // namespace cclabel::cli
