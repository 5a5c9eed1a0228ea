// Typed pictures as key pictures (see format_keys.hpp): a scan that decides the map, then a
// write of the keys when the map needs a copy. Both passes split the pictures into bands of rows
// of at least kBandPixels pixels and run them on the CPU thread pool.
#include "core/format_keys.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "cclabel/error.hpp"
#include "core/format_value.hpp"
#include "core/parallel_for.hpp"

namespace cclabel::detail {
namespace {

constexpr std::uint64_t kSign = std::uint64_t(1) << 63;
constexpr std::uint64_t kBandPixels = std::uint64_t(1) << 16;

template <typename U>
U load(const std::uint8_t* p) {
    U v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

/// 64-bit values as unsigned numbers whose order is the value's (I64) and whose equality is the
/// value's (F64 canonical): the window and the table work on these.
std::uint64_t order(PixelFormat f, std::uint64_t bits) {
    if (f == PixelFormat::I64) return bits ^ kSign;
    if (f == PixelFormat::F64) return canonical_f64(bits);
    return bits;
}
std::uint64_t unorder(PixelFormat f, std::uint64_t o) { return f == PixelFormat::I64 ? o ^ kSign : o; }

/// A band of rows of one picture.
struct Band {
    std::size_t image;
    std::int64_t y0, y1;
};

std::vector<Band> bands(std::span<const ImageView> images) {
    std::vector<Band> out;
    for (std::size_t i = 0; i < images.size(); ++i) {
        const ImageView& v = images[i];
        if (v.pixels() == 0) continue;
        const std::int64_t rows = std::max<std::int64_t>(1, std::int64_t(kBandPixels / std::uint64_t(v.width)));
        for (std::int64_t y = 0; y < v.height; y += rows) out.push_back({i, y, std::min(v.height, y + rows)});
    }
    return out;
}

/// Calls fn(p, x) for each pixel p (its bytes) of the band; rows in order.
template <typename Fn>
void each_pixel(const ImageView& v, std::int64_t y0, std::int64_t y1, int bpp, Fn&& fn) {
    for (std::int64_t y = y0; y < y1; ++y) {
        const std::uint8_t* row = static_cast<const std::uint8_t*>(v.data) + y * v.row_bytes();
        for (std::int64_t x = 0; x < v.width; ++x) fn(row + x * bpp);
    }
}

/// True when some pixel of the float pictures is -0 or a NaN (its bits are not canonical).
bool any_noncanonical(PixelFormat f, std::span<const ImageView> images, int threads) {
    const std::vector<Band> b = bands(images);
    std::vector<char> found(b.size(), 0);
    parallel_for(b.size(), threads, [&](std::uint64_t k) {
        const ImageView& v = images[b[k].image];
        bool any = false;
        if (f == PixelFormat::F16)
            each_pixel(v, b[k].y0, b[k].y1, 2, [&](const std::uint8_t* p) {
                const std::uint16_t x = load<std::uint16_t>(p);
                any |= canonical_f16(x) != x;
            });
        else
            each_pixel(v, b[k].y0, b[k].y1, 4, [&](const std::uint8_t* p) {
                const std::uint32_t x = load<std::uint32_t>(p);
                any |= canonical_f32(x) != x;
            });
        found[k] = any;
    });
    return std::find(found.begin(), found.end(), 1) != found.end();
}

/// Leaves in @p all its distinct values, ascending. @p start cuts it into the bands' parts: each
/// part is sorted and made unique on its own thread, then neighbouring parts are merged in rounds
/// (std::set_union keeps one of two equal values), the pairs of a round side by side. A merged part
/// is no longer than its two inputs, so it is written where the first of them began.
void sorted_distinct(std::vector<std::uint64_t>& all, const std::vector<std::uint64_t>& start, int threads) {
    struct Part {
        std::uint64_t at, n;
    };
    std::vector<Part> parts(start.size() - 1);
    parallel_for(parts.size(), threads, [&](std::uint64_t k) {
        std::uint64_t* first = all.data() + start[k];
        std::uint64_t* last = all.data() + start[k + 1];
        std::sort(first, last);
        parts[k] = {start[k], std::uint64_t(std::unique(first, last) - first)};
    });
    std::vector<std::uint64_t> other(parts.size() > 1 ? all.size() : 0);
    while (parts.size() > 1) {
        std::vector<Part> merged((parts.size() + 1) / 2);
        parallel_for(merged.size(), threads, [&](std::uint64_t k) {
            const Part a = parts[2 * k];
            std::uint64_t* out = other.data() + a.at;
            if (2 * k + 1 == parts.size()) {
                std::copy(all.data() + a.at, all.data() + a.at + a.n, out);
                merged[k] = a;
                return;
            }
            const Part b = parts[2 * k + 1];
            const std::uint64_t* pa = all.data() + a.at;
            const std::uint64_t* pb = all.data() + b.at;
            merged[k] = {a.at, std::uint64_t(std::set_union(pa, pa + a.n, pb, pb + b.n, out) - out)};
        });
        all.swap(other);
        parts.swap(merged);
    }
    all.resize(parts.empty() ? 0 : parts[0].n);  // parts[0] starts at 0
}

/// The 64-bit map: a window when max - min < 2^32, else the sorted distinct values.
void plan_wide(KeyMap& m, std::span<const ImageView> images, int threads) {
    const std::vector<Band> b = bands(images);
    std::vector<std::uint64_t> lo(b.size(), ~std::uint64_t(0)), hi(b.size(), 0);
    parallel_for(b.size(), threads, [&](std::uint64_t k) {
        std::uint64_t l = ~std::uint64_t(0), h = 0;
        each_pixel(images[b[k].image], b[k].y0, b[k].y1, 8, [&](const std::uint8_t* p) {
            const std::uint64_t o = order(m.from, load<std::uint64_t>(p));
            l = std::min(l, o);
            h = std::max(h, o);
        });
        lo[k] = l, hi[k] = h;
    });
    if (b.empty()) return void(m.kind = KeyMap::Kind::Offset);
    m.low = *std::min_element(lo.begin(), lo.end());
    if (*std::max_element(hi.begin(), hi.end()) - m.low <= 0xFFFFFFFFull) return void(m.kind = KeyMap::Kind::Offset);

    // Too wide for a window: rank the distinct values.
    m.kind = KeyMap::Kind::Table;
    std::vector<std::uint64_t> start(b.size() + 1, 0);
    for (std::size_t k = 0; k < b.size(); ++k)
        start[k + 1] = start[k] + std::uint64_t(b[k].y1 - b[k].y0) * std::uint64_t(images[b[k].image].width);
    std::vector<std::uint64_t> all(start.back());
    parallel_for(b.size(), threads, [&](std::uint64_t k) {
        std::uint64_t* o = all.data() + start[k];
        each_pixel(images[b[k].image], b[k].y0, b[k].y1, 8,
                   [&](const std::uint8_t* p) { *o++ = order(m.from, load<std::uint64_t>(p)); });
    });
    sorted_distinct(all, start, threads);
    if (all.size() > (std::uint64_t(1) << 32))
        throw Error("a " + std::string(format_name(m.from)) + " picture with " + std::to_string(all.size()) +
                    " distinct values has more than 2^32, more than 32-bit keys can tell apart");
    m.table = std::move(all);
}

}  // namespace

std::optional<std::uint32_t> KeyMap::key(std::uint64_t bits) const {
    switch (kind) {
        case Kind::Bits:
        case Kind::Canonical: return std::uint32_t(bits);
        case Kind::Offset: {
            const std::uint64_t o = order(from, bits);
            if (o < low || o - low > 0xFFFFFFFFull) return std::nullopt;
            return std::uint32_t(o - low);
        }
        case Kind::Table: {
            const std::uint64_t o = order(from, bits);
            const auto it = std::lower_bound(table.begin(), table.end(), o);
            if (it == table.end() || *it != o) return std::nullopt;
            return std::uint32_t(it - table.begin());
        }
    }
    return std::nullopt;
}

std::uint64_t KeyMap::value(std::uint32_t k) const {
    switch (kind) {
        case Kind::Bits:
        case Kind::Canonical: return k;
        case Kind::Offset: return unorder(from, low + k);
        case Kind::Table: return unorder(from, table[k]);
    }
    return k;
}

KeyMap plan_keys(PixelFormat f, std::span<const ImageView> images, int threads) {
    KeyMap m;
    m.from = f;
    switch (f) {
        case PixelFormat::I8: m.to = PixelFormat::Gray8; break;
        case PixelFormat::I16: m.to = PixelFormat::Gray16; break;
        case PixelFormat::I32: m.to = PixelFormat::U32; break;
        case PixelFormat::F16:
        case PixelFormat::F32:
            m.to = f == PixelFormat::F16 ? PixelFormat::Gray16 : PixelFormat::U32;
            if (any_noncanonical(f, images, threads)) m.kind = KeyMap::Kind::Canonical;
            break;
        case PixelFormat::I64:
        case PixelFormat::U64:
        case PixelFormat::F64:
            m.to = PixelFormat::U32;
            plan_wide(m, images, threads);
            break;
        default: throw Error("pixel format " + std::string(format_name(f)) + " has no key map (not a typed format)");
    }
    return m;
}

void write_keys(const KeyMap& m, const ImageView& image, std::uint8_t* out, int threads) {
    const std::vector<Band> b = bands(std::span<const ImageView>(&image, 1));
    const std::uint64_t row_out = std::uint64_t(image.width) * std::uint64_t(bytes_per_pixel(m.to));
    parallel_for(b.size(), threads, [&](std::uint64_t k) {
        std::uint8_t* o = out + std::uint64_t(b[k].y0) * row_out;
        switch (m.kind) {
            case KeyMap::Kind::Bits:  // not a copy; written only if asked
                for (std::int64_t y = b[k].y0; y < b[k].y1; ++y, o += row_out)
                    std::memcpy(o, static_cast<const std::uint8_t*>(image.data) + y * image.row_bytes(), row_out);
                break;
            case KeyMap::Kind::Canonical:
                if (m.from == PixelFormat::F16)
                    each_pixel(image, b[k].y0, b[k].y1, 2, [&](const std::uint8_t* p) {
                        const std::uint16_t c = canonical_f16(load<std::uint16_t>(p));
                        std::memcpy(o, &c, 2), o += 2;
                    });
                else
                    each_pixel(image, b[k].y0, b[k].y1, 4, [&](const std::uint8_t* p) {
                        const std::uint32_t c = canonical_f32(load<std::uint32_t>(p));
                        std::memcpy(o, &c, 4), o += 4;
                    });
                break;
            case KeyMap::Kind::Offset:
                each_pixel(image, b[k].y0, b[k].y1, 8, [&](const std::uint8_t* p) {
                    const std::uint32_t c = std::uint32_t(order(m.from, load<std::uint64_t>(p)) - m.low);
                    std::memcpy(o, &c, 4), o += 4;
                });
                break;
            case KeyMap::Kind::Table:
                each_pixel(image, b[k].y0, b[k].y1, 8, [&](const std::uint8_t* p) {
                    const std::uint64_t v = order(m.from, load<std::uint64_t>(p));
                    const std::uint32_t c = std::uint32_t(std::lower_bound(m.table.begin(), m.table.end(), v) - m.table.begin());
                    std::memcpy(o, &c, 4), o += 4;
                });
                break;
        }
    });
}

Options keyed_options(const KeyMap& m, const Request& r, const Options& options) {
    Options o = options;
    o.background_value.reset();
    o.background.reset();
    o.tolerance_value.reset();  // exact values (a tolerance of 0.0); the keys' picture takes no tolerance
    o.tolerance = 0;
    if (r.has_background)
        if (const std::optional<std::uint32_t> k = m.key(r.background_bits))
            o.background = std::vector<std::uint64_t>{*k};
    return o;
}

KeyedImage keyed_image(const ImageView& image, const Options& options, const Request& r) {
    KeyedImage k;
    ImageView v = image;
    v.stride = v.row_bytes();
    k.map = plan_keys(image.format, std::span<const ImageView>(&v, 1), r.threads);
    k.options = keyed_options(k.map, r, options);
    k.view = ImageView{image.data, image.width, image.height, image.stride, k.map.to};
    if (k.map.copies() && image.pixels() != 0) {
        const std::uint64_t bytes = image.pixels() * std::uint64_t(bytes_per_pixel(k.map.to));
        k.copy = std::make_unique_for_overwrite<std::uint8_t[]>(bytes);
        write_keys(k.map, v, k.copy.get(), r.threads);
        k.view = ImageView{k.copy.get(), image.width, image.height, 0, k.map.to};
    }
    return k;
}

KeyedBatch keyed_batch(const BatchRequest& r) {
    const PixelFormat f = r.images.empty() ? PixelFormat::I8 : r.images[0].format;
    // The batch's options on an empty image of its format: the background's bits, validated.
    const Request bg = make_request(ImageView{nullptr, 0, 0, 0, f}, nullptr, r.options);
    const int threads = std::max(1, r.options.threads);
    KeyedBatch k;
    k.map = plan_keys(f, r.images, threads);
    k.request = r;
    k.request.options = keyed_options(k.map, bg, r.options);
    const std::uint64_t kb = std::uint64_t(bytes_per_pixel(k.map.to));
    if (!k.map.copies()) {
        for (ImageView& v : k.request.images) v.format = k.map.to;
        return k;
    }
    k.copy = std::make_unique_for_overwrite<std::uint8_t[]>(std::max<std::uint64_t>(1, r.label_offsets.back() * kb));
    for (std::size_t i = 0; i < r.images.size(); ++i) {
        const ImageView& v = r.images[i];
        std::uint8_t* at = k.copy.get() + r.label_offsets[i] * kb;
        if (v.pixels() != 0) write_keys(k.map, v, at, threads);
        k.request.images[i] = ImageView{at, v.width, v.height, v.width * std::int64_t(kb), k.map.to};
    }
    if (r.uniform) k.request.batch_stride = std::int64_t(r.label_offsets.size() > 1 ? r.label_offsets[1] * kb : 0);
    return k;
}

void restore_values(const KeyMap& m, std::vector<RegionStats>& rows) {
    for (RegionStats& s : rows) {
        if (s.area == 0) continue;
        const std::uint64_t v = m.value(s.value[0]);
        s.value = {std::uint32_t(v), std::uint32_t(v >> 32), 0, 0};
    }
}

}  // namespace cclabel::detail
