// RFC 4180 parsing as a single forward scan. Lenient where the RFC is silent (a quote inside
// an unquoted field is kept as text); strict where data would silently shift (text after a
// closing quote, a quote never closed), which is reported on the record.

#include "data/csv.h"

namespace parley::data {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

class CsvScanner {
 public:
  explicit CsvScanner(std::string_view text) : text_(text) {}

  std::vector<CsvRecord> records() {
    std::vector<CsvRecord> out;
    while (!at_end()) {
      if (at_line_break()) {  // an empty line
        consume_line_break();
        continue;
      }
      out.push_back(record());
    }
    return out;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  bool at_line_break() const { return !at_end() && (text_[pos_] == '\n' || text_[pos_] == '\r'); }

  // CRLF, LF or a lone CR each count as one line break.
  void consume_line_break() {
    if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
  }

  CsvRecord record() {
    CsvRecord rec;
    rec.line = line_;
    while (true) {
      rec.fields.push_back(field(rec));
      if (!at_end() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      break;
    }
    if (!at_end()) consume_line_break();
    return rec;
  }

  std::string field(CsvRecord& rec) {
    std::string out;
    if (!at_end() && text_[pos_] == '"') {
      ++pos_;
      if (!quoted_body(out)) {
        rec.error = "unterminated quoted field";
        return out;
      }
      if (!at_end() && text_[pos_] != ',' && !at_line_break() && rec.error.empty()) {
        rec.error = "unexpected text after a closing quote";
      }
    }
    while (!at_end() && text_[pos_] != ',' && !at_line_break()) out.push_back(text_[pos_++]);
    return out;
  }

  // Reads up to and including the closing quote; false when the text ends first.
  bool quoted_body(std::string& out) {
    while (!at_end()) {
      const char c = text_[pos_];
      if (c == '"') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          out.push_back('"');
          pos_ += 2;
          continue;
        }
        ++pos_;
        return true;
      }
      if (c == '\n' || c == '\r') {
        consume_line_break();
        out.push_back('\n');
        continue;
      }
      out.push_back(c);
      ++pos_;
    }
    return false;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

std::vector<CsvRecord> parse_csv(std::string_view text) {
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  return CsvScanner(text).records();
}

}  // namespace parley::data
