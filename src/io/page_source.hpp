#pragma once
// What PageReader reads from: one implementation per multi-page format (TIFF in tiff_reader.cpp,
// PDF in pdf_reader.cpp); every other format is one page read by read_image.
#include <memory>
#include <string>

#include "cclabel/io.hpp"

namespace cclabel::io {

class PageReader::Source {
public:
    virtual ~Source() = default;
    virtual int pages() const = 0;
    /// Page @p index (already checked to be in range); throws Error naming the file.
    virtual Page read(int index) = 0;
};

namespace detail {

std::unique_ptr<PageReader::Source> open_tiff_pages(const std::string& path);
/// Throws Error naming the file when the build has no PDF support.
std::unique_ptr<PageReader::Source> open_pdf_pages(const std::string& path, double dpi);
/// Whether open_pdf_pages can work in this build.
bool pdf_supported();
/// For tests of the PDF reader's limits (tests/io/test_pdf_child.cpp): when set, the child that
/// opens a PDF (load) or renders a page (render) calls it once its limits are in force, before
/// Poppler reads the file, as part of its work (an exception it throws is reported as Poppler's
/// would be). Nothing else sets them.
extern void (*pdf_load_child_hook)();
extern void (*pdf_render_child_hook)();

}  // namespace detail
}  // namespace cclabel::io
