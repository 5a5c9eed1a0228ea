#include "cli/adjacency_csv.hpp"

#include <cstdio>
#include <memory>

#include "cclabel/error.hpp"

namespace cclabel::cli {

void write_adjacency_csv(const std::string& path, const std::vector<AdjacencyEdge>& edges) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
    if (!f) throw Error(path + ": cannot write the adjacency file");
    std::fputs("a,b,contacts\n", f.get());
    for (const AdjacencyEdge& e : edges)
        std::fprintf(f.get(), "%lu,%lu,%llu\n", static_cast<unsigned long>(e.a), static_cast<unsigned long>(e.b),
                     static_cast<unsigned long long>(e.contacts));
    if (std::fflush(f.get()) != 0 || std::ferror(f.get())) throw Error(path + ": error while writing the adjacency file");
}

}  // namespace cclabel::cli
