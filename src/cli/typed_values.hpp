#pragma once
// The values of the typed pixel formats (I8 to F64: the .npy reader's signed, float and 64-bit
// one-channel arrays) as the CLI reads and writes them: --background text parsed as a value of the
// image's type, values printed in the statistics table, and the canonical bits (floats: -0 -> +0,
// every NaN one value) by which the report line and --background auto count them, the library's
// equality (src/core/format_keys.hpp).
#include <cstdint>
#include <string>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel::cli {

/// "int8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64": the NumPy name of
/// a typed format, as users know their arrays.
std::string dtype_name(PixelFormat f);

/// @p text as a value of the typed format @p f: an integer (decimal, optional sign; 0x hex) in the
/// type's range for I8..I64 and U64; for F16..F64 a decimal or exponent number, `nan`, `inf`,
/// `-inf`, `-0` (-0 is +0), whose value (the nearest double) the type holds exactly, as
/// Options::background_value requires. Anything else throws Error naming @p option, with the
/// range or the nearest value of the type.
Scalar parse_typed_value(const std::string& text, PixelFormat f, const std::string& option);

/// The value whose bits (the low bytes_per_pixel(f) bytes of @p bits, as RegionStats::value
/// holds them) are @p bits, as text: "-5", "18446744073709551615", "3.25", "nan", "-inf". Floats
/// are printed as the shortest decimal that reads back (as a double) to exactly the value, so that
/// the text given back to --background names the same value.
std::string format_typed_value(std::uint64_t bits, PixelFormat f);

/// The canonical bits of the pixel at @p p of the typed format @p f (zero-extended; floats with
/// -0 as +0 and every NaN as one quiet NaN): equal exactly when the values are equal.
std::uint64_t canonical_bits(PixelFormat f, const std::uint8_t* p);

/// Whether the value of canonical bits @p a comes before that of @p b in the type's order (NaN
/// last).
bool value_less(PixelFormat f, std::uint64_t a, std::uint64_t b);

/// The value of canonical bits @p bits as a Scalar of the type (for Options::background_value).
Scalar scalar_of(PixelFormat f, std::uint64_t bits);

}  // namespace cclabel::cli
