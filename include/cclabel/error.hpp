#pragma once
/// @file error.hpp
/// @brief The one exception type the library throws.
#include <stdexcept>
#include <string>

namespace cclabel {

/// Every failure the library reports (bad arguments, limits, I/O, CUDA) is a cclabel::Error whose
/// message names the problem in one line.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace cclabel
