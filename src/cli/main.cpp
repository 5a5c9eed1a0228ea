// The cclabel command-line tool: label pictures and PDFs, measure regions, check other labellings.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

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

// `cclabel label --scheduler ADDRESS FILES...` spreads the files over a Dask cluster: that driver is
// Python (cclabel.dask_files), so the whole command is handed to it, with this binary as the tool
// the workers run on each file. Returns only when Python cannot be started.
int hand_off_to_dask(int argc, char** argv) {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const std::string cli = n > 0 ? std::string(self, std::size_t(n)) : std::string(argv[0]);
    const char* python = std::getenv("CCLABEL_PYTHON") ? std::getenv("CCLABEL_PYTHON") : "python3";
    const char* bootstrap =
        "import sys\n"
        "try:\n"
        "    import cclabel.dask_files as m\n"
        "except ImportError as e:\n"
        "    sys.exit('cclabel: error: --scheduler needs the cclabel Python package with dask.distributed "
        "(pip install cclabel \"dask[array]\" distributed): ' + str(e))\n"
        "sys.exit(m.main(sys.argv[1:]))\n";
    std::vector<char*> args{const_cast<char*>(python), const_cast<char*>("-c"), const_cast<char*>(bootstrap),
                            const_cast<char*>("--cli"), const_cast<char*>(cli.c_str())};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    execvp(python, args.data());
    std::cerr << "cclabel: error: --scheduler needs Python 3 with the cclabel package and dask.distributed; cannot run "
              << python << ": " << std::strerror(errno) << " (set CCLABEL_PYTHON to the interpreter)\n";
    return 2;
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
        "  cclabel check other.npy sheet.png -b '#ffffff'\n"
        "  cclabel label --scheduler tcp://host:8786 sheets/*.png -o labels/   (a Dask cluster; needs Python)\n\n"
        "Run 'cclabel <command> --help' for every option.");
    app.set_version_flag("--version", std::string("cclabel ") + CCLABEL_VERSION_STRING);
    app.require_subcommand(1);
    if (argc > 2 && std::strcmp(argv[1], "label") == 0)
        for (int i = 2; i < argc; ++i)
            if (std::strcmp(argv[i], "--scheduler") == 0 || std::strncmp(argv[i], "--scheduler=", 12) == 0)
                return hand_off_to_dask(argc, argv);

    const Command commands[] = {add_label_command(app), add_stats_command(app), add_check_command(app)};
    CLI11_PARSE(app, argc, argv);
    for (const Command& c : commands)
        if (c.app->parsed()) return c.run();
    return 2;
}
