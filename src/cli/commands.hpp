#pragma once
// The subcommands of the cclabel tool, each in its own file: label_command.cpp, stats_command.cpp,
// check_command.cpp. Each registers its options and returns what runs it after parsing.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>

namespace cclabel::cli {

struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

Command add_label_command(CLI::App& app);
Command add_stats_command(CLI::App& app);
Command add_check_command(CLI::App& app);

/// 1234567 → "1,234,567".
std::string with_commas(std::uint64_t v);

/// Prints "cclabel: error: <what>" on stderr, prefixed with @p name unless the message already
/// starts with it (the readers' messages do).
void print_error(const std::string& name, const std::exception& e);

}  // namespace cclabel::cli
