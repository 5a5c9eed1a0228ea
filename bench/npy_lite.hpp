#pragma once
// Just enough NumPy .npy (format 1.0/2.0, little-endian, C order) for the benchmark tools, so they
// do not depend on the library's I/O: write uint8 (H,W)/(H,W,C), bool (H,W) and uint32 (H,W); read
// uint8/bool/uint16/uint32/int32 2-D and uint8 (H,W,3|4).
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace cclabel::bench::npy {

struct Array {
    std::string descr;          ///< e.g. "|u1", "<u4", "|b1"
    std::vector<std::int64_t> shape;
    std::vector<std::uint8_t> bytes;
};

inline void write(const std::string& path, const std::string& descr, const std::vector<std::int64_t>& shape,
                  const void* data, std::size_t nbytes) {
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); ++i) dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
    dict += "), }";
    // The header (magic + version + length + dict + '\n') is padded to a multiple of 64 bytes.
    std::size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error(path + ": cannot open for writing");
    const std::uint16_t hlen = std::uint16_t(dict.size());
    const unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, std::uint8_t(hlen & 0xFF), std::uint8_t(hlen >> 8)};
    bool ok = std::fwrite(head, 1, 10, f) == 10 && std::fwrite(dict.data(), 1, dict.size(), f) == dict.size() &&
              std::fwrite(data, 1, nbytes, f) == nbytes;
    ok = std::fclose(f) == 0 && ok;
    if (!ok) throw std::runtime_error(path + ": write failed");
}

inline Array read(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw std::runtime_error(path + ": cannot open");
    auto fail = [&](const std::string& why) {
        std::fclose(f);
        throw std::runtime_error(path + ": " + why);
    };
    unsigned char head[12];
    if (std::fread(head, 1, 8, f) != 8 || head[0] != 0x93 || std::string(reinterpret_cast<char*>(head + 1), 5) != "NUMPY")
        fail("not a .npy file");
    std::size_t hlen = 0;
    if (head[6] == 1) {
        if (std::fread(head + 8, 1, 2, f) != 2) fail("truncated header");
        hlen = head[8] | std::size_t(head[9]) << 8;
    } else {
        if (std::fread(head + 8, 1, 4, f) != 4) fail("truncated header");
        hlen = head[8] | std::size_t(head[9]) << 8 | std::size_t(head[10]) << 16 | std::size_t(head[11]) << 24;
    }
    std::string dict(hlen, '\0');
    if (std::fread(dict.data(), 1, hlen, f) != hlen) fail("truncated header");
    Array a;
    const auto d = dict.find("'descr'");
    const auto q1 = dict.find('\'', dict.find(':', d) + 1), q2 = dict.find('\'', q1 + 1);
    if (d == std::string::npos || q1 == std::string::npos || q2 == std::string::npos) fail("no descr");
    a.descr = dict.substr(q1 + 1, q2 - q1 - 1);
    if (dict.find("'fortran_order': True") != std::string::npos) fail("Fortran order is not supported");
    const auto s = dict.find('(', dict.find("'shape'")), e = dict.find(')', s);
    std::size_t count = 1;
    for (std::size_t i = s + 1; i < e;) {
        while (i < e && (dict[i] == ' ' || dict[i] == ',')) ++i;
        if (i >= e) break;
        std::size_t used = 0;
        const long long v = std::stoll(dict.substr(i), &used);
        a.shape.push_back(v);
        count *= std::size_t(v);
        i += used;
    }
    std::size_t item = 0;
    if (a.descr == "|u1" || a.descr == "|b1" || a.descr == "<u1") item = 1;
    else if (a.descr == "<u2") item = 2;
    else if (a.descr == "<u4" || a.descr == "<i4") item = 4;
    else fail("unsupported dtype " + a.descr);
    a.bytes.resize(count * item);
    if (std::fread(a.bytes.data(), 1, a.bytes.size(), f) != a.bytes.size()) fail("truncated data");
    std::fclose(f);
    return a;
}

}  // namespace cclabel::bench::npy
