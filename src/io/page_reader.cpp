// PageReader: picks the page source by the file's first bytes, as read_image picks its reader, and
// puts the page number into every error message.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <new>
#include <optional>
#include <string_view>

#include "cclabel/error.hpp"
#include "io/io_common.hpp"
#include "io/page_source.hpp"

namespace cclabel::io {
namespace {

/// Any format without pages: the one picture, decoded when the reader opens (so that pages() is
/// known and a bad file fails at once).
class OnePage : public PageReader::Source {
public:
    explicit OnePage(const std::string& path) : path_(path), image_(read_image(path)) {}
    int pages() const override { return 1; }
    Page read(int) override {
        Page p;
        p.image = image_ ? std::move(*image_) : read_image(path_);
        image_.reset();
        return p;
    }

private:
    std::string path_;
    std::optional<Image> image_;
};

bool starts_with(const unsigned char* magic, std::size_t got, std::string_view s) {
    return got >= s.size() && std::memcmp(magic, s.data(), s.size()) == 0;
}

}  // namespace

PageReader::PageReader(const std::string& path, const PageOptions& options) : path_(path) {
    using namespace std::string_view_literals;
    if (!(options.dpi > 0 && options.dpi <= 10000)) detail::fail(path, "the resolution must be between 0 and 10000 dpi");
    unsigned char magic[8] = {};
    std::size_t got = 0;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            got = std::fread(magic, 1, sizeof magic, f);
            std::fclose(f);
        }
    }
    try {
        if (starts_with(magic, got, "%PDF-"sv)) {
            source_ = detail::open_pdf_pages(path, options.dpi);
        } else if (starts_with(magic, got, "II*\0"sv) || starts_with(magic, got, "II+\0"sv) ||
                   starts_with(magic, got, "MM\0*"sv) || starts_with(magic, got, "MM\0+"sv)) {
            source_ = detail::open_tiff_pages(path);
        } else {
            source_ = std::make_unique<OnePage>(path);  // read_image names every other problem
        }
    } catch (const std::bad_alloc&) {
        detail::fail(path, "out of memory");
    }
}

PageReader::~PageReader() = default;
PageReader::PageReader(PageReader&&) noexcept = default;
PageReader& PageReader::operator=(PageReader&&) noexcept = default;

int PageReader::pages() const { return source_->pages(); }

Page PageReader::read(int index) {
    const int n = source_->pages();
    const std::string page = "page " + std::to_string(index + 1);
    if (index < 0 || index >= n) detail::fail(path_, page + " does not exist (" + std::to_string(n) + " pages)");
    try {
        return source_->read(index);
    } catch (const Error& e) {
        if (n == 1) throw;
        // "<path>: reason" becomes "<path> page 3: reason".
        std::string msg = e.what();
        if (msg.rfind(path_ + ": ", 0) == 0) msg = msg.substr(path_.size() + 2);
        throw Error(path_ + " " + page + ": " + msg);
    } catch (const std::bad_alloc&) {
        detail::fail(path_, page + ": out of memory");
    } catch (const std::length_error&) {
        detail::fail(path_, page + ": image too large for this machine");
    }
}

bool PageReader::reads_pdf() { return detail::pdf_supported(); }

}  // namespace cclabel::io
