// PDF pages through Poppler's C++ library (libpoppler-cpp), rendered to RGB8 on white paper with
// anti-aliasing, as pdftoppm renders them. The library rather than a pdftoppm pipe: no process per
// page, no PPM encode/decode of what can be 3 GB a page at 800 dpi, errors as messages instead of
// exit codes, and the rendered buffer is labelled where Poppler put it (rgb24 rows are R, G, B
// bytes padded to 4: an RGB8 view with that stride, no repacking).
// Built only where CMake found poppler-cpp (CCLABEL_HAVE_POPPLER); otherwise opening a PDF says so.
#include <memory>
#include <string>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "io/io_common.hpp"
#include "io/page_source.hpp"

#if CCLABEL_HAVE_POPPLER
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>

#include <cmath>
#include <filesystem>
#include <mutex>
#endif

namespace cclabel::io::detail {

#if CCLABEL_HAVE_POPPLER
namespace {

// Poppler reports problems through one process-wide function (by default onto stderr); keep the
// latest message so that the error thrown can carry it.
std::mutex g_poppler_mutex;
std::string g_poppler_message;

void on_poppler_message(const std::string& msg, void*) {
    const std::lock_guard<std::mutex> lock(g_poppler_mutex);
    g_poppler_message = msg;
}

std::string take_poppler_message() {
    const std::lock_guard<std::mutex> lock(g_poppler_mutex);
    std::string m;
    m.swap(g_poppler_message);
    return m.empty() ? m : " (" + m + ")";
}

class PdfPages : public PageReader::Source {
public:
    PdfPages(const std::string& path, double dpi) : path_(path), dpi_(dpi) {
        static std::once_flag once;
        std::call_once(once, [] { poppler::set_debug_error_function(&on_poppler_message, nullptr); });
        take_poppler_message();
        std::error_code ec;
        file_size_ = std::filesystem::file_size(path, ec);
        if (ec) fail(path, "cannot read the file size: " + ec.message());
        doc_.reset(poppler::document::load_from_file(path));
        if (!doc_) fail(path, "cannot open the PDF" + take_poppler_message());
        if (doc_->is_locked()) fail(path, "the PDF is password-protected");
        count_ = doc_->pages();
        if (count_ < 1) fail(path, "PDF without pages");
        if (!poppler::page_renderer::can_render()) fail(path, "this Poppler build cannot render pages");
        renderer_.set_render_hint(poppler::page_renderer::antialiasing, true);
        renderer_.set_render_hint(poppler::page_renderer::text_antialiasing, true);
        renderer_.set_image_format(poppler::image::format_rgb24);
    }

    int pages() const override { return count_; }

    Page read(int index) override {
        const std::unique_ptr<poppler::page> page(doc_->create_page(index));
        if (!page) fail(path_, "cannot read the page" + take_poppler_message());
        // The page box in points (1/72 inch) at the resolution, rounded up as pdftoppm does; refuse
        // before rendering what could not be labelled (or allocated).
        const poppler::rectf box = page->page_rect(poppler::crop_box);
        const bool turned = page->orientation() == poppler::page::landscape || page->orientation() == poppler::page::seascape;
        const double w = std::ceil((turned ? box.height() : box.width()) * dpi_ / 72.0);
        const double h = std::ceil((turned ? box.width() : box.height()) * dpi_ / 72.0);
        if (!(w * h <= double(kMaxPixels)) || w >= 1 << 29 || h >= 1 << 29) {
            fail(path_, "the page is " + std::to_string(std::llround(w)) + " x " + std::to_string(std::llround(h)) +
                            " pixels at " + std::to_string(std::lround(dpi_)) + " dpi, over the limit of 2^32 - 1 pixels");
        }
        // How big a page may be is judged at the default resolution, where it costs the same for
        // every caller: a page box that a small file cannot plausibly fill (a 500-byte PDF of a
        // 3.5 m square page took seconds to render) is refused as check_decode_work refuses a
        // bomb; at a finer resolution the work grows as the caller asked.
        const double w0 = std::ceil((turned ? box.height() : box.width()) * PageOptions{}.dpi / 72.0);
        const double h0 = std::ceil((turned ? box.width() : box.height()) * PageOptions{}.dpi / 72.0);
        if (w0 > 0 && h0 > 0) {
            check_decode_work(path_, std::uint64_t(w0) * 3, std::uint64_t(h0), file_size_,
                              "the page is " + std::to_string(std::llround(w0)) + " x " + std::to_string(std::llround(h0)) +
                                  " pixels at " + std::to_string(std::lround(PageOptions{}.dpi)) + " dpi");
        }
        // Poppler renders into its own 4-byte-a-pixel bitmap and copies that into the rgb24 image.
        check_memory(path_, std::uint64_t(w) * std::uint64_t(h) * 7,
                     "the page, " + std::to_string(std::llround(w)) + " x " + std::to_string(std::llround(h)) + " pixels at " +
                         std::to_string(std::lround(dpi_)) + " dpi,");
        // The whole page as a slice of exactly that size: left to itself Poppler rounds the size
        // to nearest, pdftoppm rounds up; this way both give the same raster.
        auto img = std::make_shared<poppler::image>(renderer_.render_page(page.get(), dpi_, dpi_, 0, 0, int(w), int(h)));
        if (!img->is_valid() || img->format() != poppler::image::format_rgb24 || img->width() < 0 || img->height() < 0 ||
            img->bytes_per_row() < img->width() * 3) {
            fail(path_, "the page could not be rendered" + take_poppler_message());
        }
        Page p;
        p.index = index;
        p.count = count_;
        p.image.width = img->width();
        p.image.height = img->height();
        p.image.format = PixelFormat::RGB8;
        p.image.description = "pdf page rendered at " + std::to_string(std::lround(dpi_)) + " dpi";
        p.rendered_view = make_view(img->const_data(), img->width(), img->height(), PixelFormat::RGB8, img->bytes_per_row());
        p.rendered = std::move(img);
        return p;
    }

private:
    std::string path_;
    double dpi_;
    std::uint64_t file_size_ = 0;
    std::unique_ptr<poppler::document> doc_;
    poppler::page_renderer renderer_;
    int count_ = 0;
};

}  // namespace

bool pdf_supported() { return true; }

std::unique_ptr<PageReader::Source> open_pdf_pages(const std::string& path, double dpi) {
    return std::make_unique<PdfPages>(path, dpi);
}

#else

bool pdf_supported() { return false; }

std::unique_ptr<PageReader::Source> open_pdf_pages(const std::string& path, double) {
    fail(path, "PDF input needs Poppler: this cclabel was built without libpoppler-cpp (install libpoppler-cpp-dev "
               "and rebuild)");
}

#endif

}  // namespace cclabel::io::detail
