#pragma once
// What every GPU benchmark program here needs besides its own work: a CUDA check that ends the
// program with the failing call's name, the median of repeated timings, a list argument, and a seeded xorshift
// generator for synthetic pictures (a fixed seed keeps the pictures, so figures stay comparable).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cclabel::bench {

inline void ck(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

/// "50,100,200" as integers (a command line's list).
inline std::vector<int> parse_list(const char* s) {
    std::vector<int> v;
    for (const char* p = s; *p;) {
        v.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
    }
    return v;
}

/// Marsaglia's xorshift64, upper 32 bits.
struct XorShift {
    std::uint64_t state;
    std::uint32_t operator()() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return std::uint32_t(state >> 32);
    }
};

}  // namespace cclabel::bench
