// NumPy .npy reader. The header is a Python dict literal; it is parsed strictly by hand because
// it is tiny and the only alternative would be embedding a Python parser.
#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "io/io_common.hpp"
#include "io/npy_format.hpp"
#include "io/sample_sink.hpp"

namespace cclabel::io::detail {
namespace {

class Parser {
public:
    Parser(const std::string& path, const std::string& s) : path_(path), s_(s) {}

    NpyHeader dict() {
        NpyHeader h;
        bool have_descr = false, have_order = false, have_shape = false;
        expect('{');
        for (;;) {
            space();
            if (peek() == '}') break;
            const std::string key = string();
            space();
            expect(':');
            space();
            if (key == "descr" && !have_descr) {
                if (peek() != '\'' && peek() != '"') bad("descr is not a simple dtype string (structured arrays are unsupported)");
                h.descr = string();
                have_descr = true;
            } else if (key == "fortran_order" && !have_order) {
                h.fortran_order = boolean();
                have_order = true;
            } else if (key == "shape" && !have_shape) {
                h.shape = tuple();
                have_shape = true;
            } else {
                bad("unexpected or repeated key '" + key + "'");
            }
            space();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            if (peek() != '}') bad("expected ',' or '}'");
        }
        ++i_;
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\0')) ++i_;
        if (i_ != s_.size()) bad("junk after the dictionary");
        if (!have_descr || !have_order || !have_shape) bad("missing descr, fortran_order or shape");
        return h;
    }

private:
    [[noreturn]] void bad(const std::string& why) { fail(path_, "bad .npy header: " + why); }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void space() {
        while (peek() == ' ') ++i_;
    }
    void expect(char c) {
        space();
        if (peek() != c) bad(std::string("expected '") + c + "'");
        ++i_;
    }
    std::string string() {
        const char q = peek();
        if (q != '\'' && q != '"') bad("expected a string");
        const std::size_t end = s_.find(q, i_ + 1);
        if (end == std::string::npos) bad("unterminated string");
        std::string out = s_.substr(i_ + 1, end - i_ - 1);
        i_ = end + 1;
        return out;
    }
    bool boolean() {
        if (s_.compare(i_, 4, "True") == 0) {
            i_ += 4;
            return true;
        }
        if (s_.compare(i_, 5, "False") == 0) {
            i_ += 5;
            return false;
        }
        bad("fortran_order is not True or False");
    }
    std::vector<std::uint64_t> tuple() {
        expect('(');
        std::vector<std::uint64_t> dims;
        for (;;) {
            space();
            if (peek() == ')') break;
            if (peek() < '0' || peek() > '9') bad("shape is not a tuple of non-negative integers");
            std::uint64_t v = 0;
            while (peek() >= '0' && peek() <= '9') {
                if (v > (std::uint64_t(1) << 40)) bad("shape dimension too large");
                v = v * 10 + std::uint64_t(peek() - '0');
                ++i_;
            }
            dims.push_back(v);
            space();
            if (peek() == ',') {
                ++i_;
            } else if (peek() != ')') {
                bad("expected ',' or ')' in shape");
            }
            if (dims.size() > 32) bad("too many dimensions");
        }
        ++i_;
        return dims;
    }

    const std::string& path_;
    const std::string& s_;
    std::size_t i_ = 0;
};

struct Dtype {
    bool swap = false;
    char kind = 0;
    int size = 0;
    std::string name;
};

Dtype parse_dtype(const std::string& path, const std::string& d) {
    Dtype t;
    if (d.size() < 3) fail(path, "unsupported dtype '" + d + "'");
    const char order = d[0];
    t.kind = d[1];
    const std::string size = d.substr(2);
    if (size == "1") t.size = 1;
    else if (size == "2") t.size = 2;
    else if (size == "4") t.size = 4;
    else if (size == "8") t.size = 8;
    else if (size == "16") t.size = 16;
    const char* kinds = t.kind == 'b' ? "bool" : t.kind == 'u' ? "uint" : t.kind == 'i' ? "int" : t.kind == 'f' ? "float" :
                        t.kind == 'c' ? "complex" : nullptr;
    t.name = kinds == nullptr ? d : t.kind == 'b' ? std::string("bool") : kinds + std::to_string(t.size * 8);
    const bool known = (order == '<' || order == '>' || order == '|' || order == '=') && t.size != 0;
    const bool ok = known && ((t.kind == 'b' && t.size == 1) || ((t.kind == 'u' || t.kind == 'i') && t.size <= 8) ||
                              (t.kind == 'f' && t.size >= 2 && t.size <= 8));
    if (!ok) {
        fail(path, "unsupported dtype " + t.name + " ('" + d +
                       "'); supported: bool, uint8/int8, uint16/int16, uint32/int32, uint64/int64, "
                       "float16/float32/float64");
    }
    const bool little = std::endian::native == std::endian::little;
    t.swap = t.size > 1 && ((order == '<' && !little) || (order == '>' && little));
    return t;
}

void byteswap(std::uint8_t* p, std::size_t n, int size) {
    for (std::size_t i = 0; i < n; i += std::size_t(size)) std::reverse(p + i, p + i + size);
}

/// The typed pixel format of a one-channel array of @p t, compared as values of its type (signed
/// integers, 64-bit unsigned, floats with -0 == +0 and every NaN one value); Gray8 when the
/// dtype keeps its unsigned (or bool) format.
PixelFormat typed_format(const Dtype& t) {
    if (t.kind == 'i') {
        switch (t.size) {
            case 1: return PixelFormat::I8;
            case 2: return PixelFormat::I16;
            case 4: return PixelFormat::I32;
            default: return PixelFormat::I64;
        }
    }
    if (t.kind == 'u' && t.size == 8) return PixelFormat::U64;
    if (t.kind == 'f') return t.size == 2 ? PixelFormat::F16 : t.size == 4 ? PixelFormat::F32 : PixelFormat::F64;
    return PixelFormat::Gray8;
}

/// Float samples of a multi-channel array in canonical form (-0 -> +0, every NaN -> one NaN), so
/// that the colour index, which compares bits, compares them as values.
void canonical_floats(std::uint8_t* p, std::size_t n, int size) {
    for (std::size_t i = 0; i < n; i += std::size_t(size)) {
        if (size == 2) {
            std::uint16_t v;
            std::memcpy(&v, p + i, 2);
            if (v == 0x8000u) v = 0;
            else if ((v & 0x7C00u) == 0x7C00u && (v & 0x03FFu) != 0) v = 0x7E00u;
            std::memcpy(p + i, &v, 2);
        } else {
            std::uint32_t v;
            std::memcpy(&v, p + i, 4);
            if (v == 0x80000000u) v = 0;
            else if ((v & 0x7F800000u) == 0x7F800000u && (v & 0x007FFFFFu) != 0) v = 0x7FC00000u;
            std::memcpy(p + i, &v, 4);
        }
    }
}

}  // namespace

NpyHeader parse_npy_header(const std::string& path, const std::string& text) { return Parser(path, text).dict(); }

namespace {

/// read_npy, or with @p depth a (Z, Y, X) array read as the picture of its Z · Y rows (@p depth set
/// to Z; a (Y, X) array is one slice).
Image read_npy_array(const std::string& path, std::uint64_t file_size, std::int64_t* depth) {
    File f(path, "rb");
    std::uint8_t pre[10];
    f.read_exact(pre, 8, ".npy preamble");
    if (std::memcmp(pre, kNpyMagic, 6) != 0) fail(path, "not a .npy file");
    const int major = pre[6];
    std::uint64_t header_len = 0;
    std::uint64_t data_start = 0;
    if (major == 1) {
        f.read_exact(pre + 8, 2, ".npy header length");
        header_len = std::uint64_t(pre[8]) | std::uint64_t(pre[9]) << 8;
        data_start = 10 + header_len;
    } else if (major == 2 || major == 3) {
        std::uint8_t l[4];
        f.read_exact(l, 4, ".npy header length");
        header_len = std::uint64_t(l[0]) | std::uint64_t(l[1]) << 8 | std::uint64_t(l[2]) << 16 | std::uint64_t(l[3]) << 24;
        data_start = 12 + header_len;
    } else {
        fail(path, "unsupported .npy format version " + std::to_string(major));
    }
    if (header_len > (1u << 20) || data_start > file_size) fail(path, "truncated or corrupt .npy header");
    std::string text(std::size_t(header_len), '\0');
    f.read_exact(text.data(), text.size(), ".npy header");
    if (text.empty() || text.back() != '\n') fail(path, "bad .npy header: it does not end with a newline");
    const NpyHeader h = parse_npy_header(path, text);
    const Dtype t = parse_dtype(path, h.descr);

    if (h.shape.size() != 2 && h.shape.size() != 3) {
        fail(path, "unsupported .npy shape with " + std::to_string(h.shape.size()) + " dimensions (need " +
                       (depth ? "(depth, height, width) or (height, width)" : "(height, width) or (height, width, channels)") +
                       ")");
    }
    const bool volume = depth != nullptr && h.shape.size() == 3;
    if (volume && h.shape[0] != 0 && h.shape[1] > kMaxReadPixels / h.shape[0])
        fail(path, "volume too large: " + std::to_string(h.shape[0]) + " x " + std::to_string(h.shape[1]) + " rows");
    const std::uint64_t height = volume ? h.shape[0] * h.shape[1] : h.shape[0];
    const std::uint64_t width = volume ? h.shape[2] : h.shape[1];
    const std::uint64_t channels = h.shape.size() == 3 && !volume ? h.shape[2] : 1;
    if (depth) *depth = volume ? std::int64_t(h.shape[0]) : 1;
    if (channels < 1 || channels > 4) fail(path, "unsupported .npy shape: " + std::to_string(channels) + " channels (1 to 4 are read)");
    if (t.kind == 'b' && channels != 1) fail(path, "unsupported .npy shape: bool with several channels");
    // One channel of a signed, float or 64-bit dtype is read as the typed format, its values as they
    // are; several channels are numbered as colours (floats made canonical first), up to 64 bits a
    // pixel.
    const PixelFormat typed = channels == 1 ? typed_format(t) : PixelFormat::Gray8;
    const bool canonical = channels > 1 && t.kind == 'f';
    if (channels > 1 && std::uint64_t(t.size) * channels > 8) {
        fail(path, "unsupported .npy shape: " + std::to_string(channels) + " channels of " + t.name +
                       " (pixels of more than 64 bits; one channel of any dtype is read, several up to 64 bits a pixel)");
    }
    check_pixels(path, width, height);
    const std::uint64_t row_bytes = width * channels * std::uint64_t(t.size);
    const std::uint64_t data = row_bytes * height;
    if (file_size - data_start < data) {
        fail(path, "truncated .npy file: shape needs " + std::to_string(data) + " bytes of data, " +
                       std::to_string(file_size - data_start) + " are there");
    }
    if (file_size - data_start > data) fail(path, "corrupt .npy file: " + std::to_string(file_size - data_start - data) + " bytes after the data");

    SampleSink sink = is_typed_format(typed)
                          ? SampleSink(path, std::int64_t(width), std::int64_t(height), typed, file_size)
                          : SampleSink(path, std::int64_t(width), std::int64_t(height), int(channels), t.size, file_size,
                                       t.kind == 'b');
    std::string desc = "npy " + t.name;
    if (h.shape.size() == 3 && !volume) desc += " x" + std::to_string(channels);
    if (!h.fortran_order) {
        std::vector<std::uint8_t> row(row_bytes);
        for (std::uint64_t y = 0; y < height; ++y) {
            f.read_exact(row.data(), row.size(), "array data");
            if (t.swap) byteswap(row.data(), row.size(), t.size);
            if (canonical) canonical_floats(row.data(), row.size(), t.size);
            sink.add_rows(row.data(), 1);
        }
    } else if (volume) {
        // Column-major volume: element (z, y, x) sits at z + Z * (y + Y * x); tall row z · Y + y.
        std::vector<std::uint8_t> all(data), row(row_bytes);
        f.read_exact(all.data(), all.size(), "array data");
        if (t.swap) byteswap(all.data(), all.size(), t.size);
        const std::size_t sz = std::size_t(t.size);
        const std::uint64_t zs = h.shape[0], ys = h.shape[1];
        for (std::uint64_t z = 0; z < zs; ++z)
            for (std::uint64_t y = 0; y < ys; ++y) {
                for (std::uint64_t x = 0; x < width; ++x) std::memcpy(&row[x * sz], &all[(z + zs * (y + ys * x)) * sz], sz);
                sink.add_rows(row.data(), 1);
            }
        desc += " fortran-order";
    } else {
        // Column-major: element (y, x, c) sits at y + H * (x + W * c). The file size matched the
        // shape above, so the whole array really is there before it is allocated.
        std::vector<std::uint8_t> all(data), row(row_bytes);
        f.read_exact(all.data(), all.size(), "array data");
        if (t.swap) byteswap(all.data(), all.size(), t.size);
        if (canonical) canonical_floats(all.data(), all.size(), t.size);
        const std::size_t sz = std::size_t(t.size);
        for (std::uint64_t y = 0; y < height; ++y) {
            for (std::uint64_t x = 0; x < width; ++x) {
                for (std::uint64_t c = 0; c < channels; ++c) {
                    std::memcpy(&row[((x * channels) + c) * sz], &all[(y + height * (x + width * c)) * sz], sz);
                }
            }
            sink.add_rows(row.data(), 1);
        }
        desc += " fortran-order";
    }
    if (t.swap) desc += " byte-swapped";
    return sink.finish(desc);
}

}  // namespace

Image read_npy(const std::string& path, std::uint64_t file_size) { return read_npy_array(path, file_size, nullptr); }

Image read_npy_volume(const std::string& path, std::uint64_t file_size, std::int64_t& depth) {
    return read_npy_array(path, file_size, &depth);
}

}  // namespace cclabel::io::detail
