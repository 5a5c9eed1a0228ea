#pragma once
// Device memory for the GPU tests: a buffer freed at scope exit, its allocation checked.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

namespace cclabel::test {

struct DevMem {
    void* p = nullptr;
    explicit DevMem(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), cudaSuccess); }
    ~DevMem() { cudaFree(p); }
    DevMem(const DevMem&) = delete;
    DevMem& operator=(const DevMem&) = delete;
    template <typename U>
    U* as() const { return static_cast<U*>(p); }
};

}  // namespace cclabel::test
