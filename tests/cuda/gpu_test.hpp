#pragma once
// What every GPU test file needs: skip, saying why, where there is no device (CI, this machine).
#include <gtest/gtest.h>

#include "cclabel/cclabel.hpp"

#define REQUIRE_GPU() \
    if (!::cclabel::cuda_available()) GTEST_SKIP() << "skipped: no CUDA device"
