#pragma once
// A small RFC 4180 CSV parser used by the MMLU reader (mmlu_csv.cc). Handles quoted fields
// with commas, doubled quotes and embedded line breaks, CRLF / LF / CR line endings and a
// leading UTF-8 BOM. A malformed record is returned with an error, never thrown. Pure function.

#include <string>
#include <string_view>
#include <vector>

namespace parley::data {

struct CsvRecord {
  int line = 0;                     // 1-based line on which the record starts
  std::vector<std::string> fields;  // line breaks inside quoted fields come out as '\n'
  std::string error;                // empty unless the record is malformed
};

// Splits `text` into records. Empty lines produce no record.
std::vector<CsvRecord> parse_csv(std::string_view text);

}  // namespace parley::data
