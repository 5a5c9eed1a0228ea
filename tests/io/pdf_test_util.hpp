#pragma once
// Small PDFs written byte by byte for the PDF tests (not through Poppler): a correct
// cross-reference table over numbered objects, a two-page drawing, and a page that is cheap to
// store and very expensive to draw.
#include <cstdio>
#include <string>
#include <vector>

namespace cclabel::iotest {

/// A PDF of @p objects, numbered from 1 (object 1 is the catalog), with a correct xref table.
inline std::string pdf_file(const std::vector<std::string>& objects) {
    std::string out = "%PDF-1.4\n";
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        at.push_back(out.size());
        out += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = out.size();
    out += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t a : at) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", a);
        out += line;
    }
    out += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    return out;
}

/// A stream object holding @p data.
inline std::string pdf_stream(const std::string& dict_entries, const std::string& data) {
    return "<< " + dict_entries + "/Length " + std::to_string(data.size()) + " >>\nstream\n" + data + "\nendstream";
}

/// A valid PDF of two pages (72 x 36 pt and 36 x 72 pt), each with one filled rectangle.
inline std::string two_page_pdf() {
    return pdf_file({"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>",
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 36] /Contents 4 0 R >>",
                     pdf_stream("", "1 0 0 rg 9 9 18 9 re f"),
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 36 72] /Contents 6 0 R >>",
                     pdf_stream("", "0 0 1 rg 0 0 18 36 re f")});
}

/// One page that uses most of what a drawing does, uncompressed so that a fuzzer's byte mutations
/// reach each part: text in a standard font, a 2 x 2 RGB image, a form drawn twice under a clip, a
/// dashed Bézier curve, a filled even-odd path and a gray fill.
inline std::string features_pdf() {
    const std::string image = std::string("\xff\x00\x00\x00\xff\x00\x00\x00\xff\xff\xff\x00", 12);
    return pdf_file({"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 144 108] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> "
                     "/XObject << /Im 6 0 R /Fm 7 0 R >> >> >>",
                     pdf_stream("", "q 0.5 g 0 0 144 108 re f Q\n"
                                    "BT /F1 12 Tf 1 0 0 rg 10 90 Td (cclabel 24) Tj ET\n"
                                    "q 40 0 0 30 10 50 cm /Im Do Q\n"
                                    "q 60 10 70 70 re W n /Fm Do 1 0 0 1 60 20 cm /Fm Do Q\n"
                                    "[3 2] 0 d 0 0 1 RG 2 w 10 10 m 40 60 80 -20 130 40 c S\n"
                                    "0 1 0 rg 70 5 m 110 45 l 70 45 l 110 5 l h f*\n"),
                     "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                     pdf_stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceRGB /BitsPerComponent 8 ", image),
                     pdf_stream("/Type /XObject /Subtype /Form /BBox [0 0 50 50] ", "0 0 1 rg 5 5 30 30 re f 1 0 1 RG 0 0 m 50 50 l S")});
}

/// One A4 page whose drawing is a form that draws the next form @p fanout times, @p levels deep,
/// the last one stroking @p strokes page-wide diagonals: fanout^levels x strokes operators from a
/// file of a few kilobytes, fine by every size check, that Poppler would draw for days.
/// With @p pages > 1, that many pages draw the same form; @p padding bytes of white space in the
/// first page's content make the file as large as a real drawing's (its share of the render
/// budget grows with the file).
inline std::string nested_forms_pdf(int levels = 8, int fanout = 10, int strokes = 100, int pages = 1,
                                    std::size_t padding = 0) {
    std::string kids;
    for (int i = 0; i < pages; ++i) kids += std::to_string(3 + 2 * i) + " 0 R ";
    const int form_at = 3 + 2 * pages;
    std::vector<std::string> objs = {"<< /Type /Catalog /Pages 2 0 R >>",
                                     "<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages) + " >>"};
    for (int i = 0; i < pages; ++i) {
        objs.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /F " +
                       std::to_string(form_at) + " 0 R >> >> /Contents " + std::to_string(4 + 2 * i) + " 0 R >>");
        objs.push_back(pdf_stream("", "/F Do" + std::string(i == 0 ? padding : 0, ' ')));
    }
    const std::string form = "/Type /XObject /Subtype /Form /BBox [0 0 595 842] ";
    for (int level = 0; level < levels; ++level) {
        std::string draw;
        for (int i = 0; i < fanout; ++i) draw += "/F Do\n";
        objs.push_back(pdf_stream(form + "/Resources << /XObject << /F " + std::to_string(objs.size() + 2) + " 0 R >> >> ", draw));
    }
    std::string draw;
    for (int i = 0; i < strokes; ++i) draw += std::to_string(i % 7) + " 0 m 595 842 l S\n";
    objs.push_back(pdf_stream(form, draw));
    return pdf_file(objs);
}

}  // namespace cclabel::iotest
