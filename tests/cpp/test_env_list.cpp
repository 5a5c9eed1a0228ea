// env_list_has (core/env_list.hpp): the comma lists of the benchmark's switches.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/env_list.hpp"

namespace cclabel::test {
namespace {

using detail::env_list_has;

TEST(EnvList, NamesWholeItemsOnly) {
    ::setenv("CCLABEL_TEST_LIST", "quads,early_result,x", 1);
    EXPECT_TRUE(env_list_has("CCLABEL_TEST_LIST", "quads"));
    EXPECT_TRUE(env_list_has("CCLABEL_TEST_LIST", "early_result"));
    EXPECT_TRUE(env_list_has("CCLABEL_TEST_LIST", "x"));
    EXPECT_FALSE(env_list_has("CCLABEL_TEST_LIST", "quad"));
    EXPECT_FALSE(env_list_has("CCLABEL_TEST_LIST", "early"));
    EXPECT_FALSE(env_list_has("CCLABEL_TEST_LIST", ""));
    ::setenv("CCLABEL_TEST_LIST", "", 1);
    EXPECT_FALSE(env_list_has("CCLABEL_TEST_LIST", "quads"));
    ::unsetenv("CCLABEL_TEST_LIST");
    EXPECT_FALSE(env_list_has("CCLABEL_TEST_LIST", "quads"));
}

}  // namespace
}  // namespace cclabel::test
