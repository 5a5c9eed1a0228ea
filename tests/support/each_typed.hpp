#pragma once
// Runs a test body once for each typed format's C++ type of typed_pictures.hpp (I8 to F64).
#include <cstdint>

#include "support/typed_pictures.hpp"

namespace cclabel::test {

/// Calls @p f.template operator()<T>() for T = int8, int16, int32, int64, uint64, Half, float,
/// double: `each_typed([]<typename T>() { check<T>(); });`.
template <typename F>
void each_typed(F&& f) {
    f.template operator()<std::int8_t>();
    f.template operator()<std::int16_t>();
    f.template operator()<std::int32_t>();
    f.template operator()<std::int64_t>();
    f.template operator()<std::uint64_t>();
    f.template operator()<Half>();
    f.template operator()<float>();
    f.template operator()<double>();
}

}  // namespace cclabel::test
