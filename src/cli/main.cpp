// The cclabel command-line tool: label pictures and PDFs, measure regions, check other labellings.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "cclabel/version.hpp"
#include "cli/commands.hpp"

namespace cclabel::cli {

std::string with_commas(std::uint64_t v) {
    const std::string digits = std::to_string(v);
    std::string s;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0) s += ',';
        s += digits[i];
    }
    return s;
}

void print_error(const std::string& name, const std::exception& e) {
    std::string msg = e.what();
    if (msg.rfind(name, 0) != 0) msg = name + ": " + msg;
    std::cerr << "cclabel: error: " << msg << std::endl;
}

}  // namespace cclabel::cli

int main(int argc, char** argv) {
    using namespace cclabel::cli;
    CLI::App app{"cclabel: connected-component labelling of exact colours (CPU and CUDA)"};
    app.footer(
        "Commands:\n"
        "  cclabel label sheet.png -o sheet.npy --background '#ffffff' --preview sheet-regions.png\n"
        "  cclabel label drawings.pdf --dpi 400 -o drawings.npy       (drawings-p001.npy, ...)\n"
        "  cclabel stats sheet.png -b '#ffffff' --csv regions.csv\n"
        "  cclabel check other.npy sheet.png -b '#ffffff'\n\n"
        "Run 'cclabel <command> --help' for every option.");
    app.set_version_flag("--version", std::string("cclabel ") + CCLABEL_VERSION_STRING);
    app.require_subcommand(1);

    const Command commands[] = {add_label_command(app), add_stats_command(app), add_check_command(app)};
    CLI11_PARSE(app, argc, argv);
    for (const Command& c : commands)
        if (c.app->parsed()) return c.run();
    return 2;
}
