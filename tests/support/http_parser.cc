#include "support/http_parser.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace parley::testing {
namespace {

constexpr std::string_view kHeadEnd = "\r\n\r\n";

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool is_token(std::string_view text) {
  if (text.empty()) return false;
  return std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return c > 32 && c < 127 && c != ':' && c != '"' && c != '(' && c != ')' && c != ',';
  });
}

// Whether a comma-separated header value lists `token` (case-insensitively).
bool lists_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    std::size_t comma = value.find(',');
    if (lower(trim(value.substr(0, comma))) == token) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

ParseResult HttpRequestParser::next(HttpRequest& request) {
  if (error_status_ != 0) return ParseResult::kError;
  if (!have_head_) {
    // RFC 9112 §2.2: ignore empty lines before a request line (some clients send one).
    while (consumed_ < buffer_.size() && (buffer_[consumed_] == '\r' || buffer_[consumed_] == '\n')) {
      ++consumed_;
    }
    scan_from_ = std::max(scan_from_, consumed_);
    std::size_t end = buffer_.find(kHeadEnd, scan_from_);
    if (end == std::string::npos) {
      if (unread() > max_head_bytes_) {
        fail(431, "request head too large");
        return ParseResult::kError;
      }
      // The terminator may straddle this piece and the next one.
      scan_from_ = std::max(consumed_, buffer_.size() >= 3 ? buffer_.size() - 3 : 0);
      compact();
      return ParseResult::kNeedMore;
    }
    if (end - consumed_ > max_head_bytes_) {
      fail(431, "request head too large");
      return ParseResult::kError;
    }
    if (!parse_head(std::string_view(buffer_).substr(consumed_, end - consumed_))) {
      return ParseResult::kError;
    }
    consumed_ = end + kHeadEnd.size();
    scan_from_ = consumed_;
    have_head_ = true;
  }
  if (unread() < body_length_) {
    compact();
    return ParseResult::kNeedMore;
  }
  pending_.body.assign(buffer_, consumed_, body_length_);
  consumed_ += body_length_;
  scan_from_ = consumed_;
  request = std::move(pending_);
  pending_ = HttpRequest{};
  have_head_ = false;
  body_length_ = 0;
  expects_continue_ = false;
  compact();
  return ParseResult::kRequest;
}

bool HttpRequestParser::take_continue() {
  bool owed = have_head_ && expects_continue_ && unread() < body_length_;
  expects_continue_ = false;
  return owed;
}

bool HttpRequestParser::parse_head(std::string_view head) {
  std::size_t line_end = head.find("\r\n");
  std::string_view request_line = head.substr(0, line_end);
  std::string_view rest = line_end == std::string_view::npos ? std::string_view{} : head.substr(line_end + 2);

  std::size_t first_space = request_line.find(' ');
  std::size_t last_space = request_line.rfind(' ');
  if (first_space == std::string_view::npos || first_space == last_space) {
    return fail(400, "malformed request line");
  }
  std::string_view method = request_line.substr(0, first_space);
  std::string_view target = request_line.substr(first_space + 1, last_space - first_space - 1);
  std::string_view version = request_line.substr(last_space + 1);
  if (!is_token(method) || target.empty() || target.find(' ') != std::string_view::npos) {
    return fail(400, "malformed request line");
  }
  if (version == "HTTP/1.1") {
    pending_.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    pending_.minor_version = 0;
  } else if (version.substr(0, 5) == "HTTP/") {
    return fail(505, "only HTTP/1.0 and HTTP/1.1 are supported");
  } else {
    return fail(400, "malformed request line");
  }
  pending_.method = std::string(method);
  pending_.target = std::string(target);

  bool have_length = false;
  while (!rest.empty()) {
    std::size_t end = rest.find("\r\n");
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 2);
    std::size_t colon = line.find(':');
    // Obsolete line folding and whitespace before the colon are errors (RFC 9112 §5).
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
      return fail(400, "malformed header line");
    }
    std::string name = lower(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (name == "content-length") {
      if (value.empty() || value.size() > 18 ||
          !std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
        return fail(400, "invalid Content-Length");
      }
      std::size_t length = std::stoull(std::string(value));
      if (have_length && length != body_length_) return fail(400, "conflicting Content-Length");
      if (length > max_body_bytes_) return fail(413, "request body too large");
      body_length_ = length;
      have_length = true;
    }
    auto [it, inserted] = pending_.headers.emplace(name, value);
    if (!inserted) it->second.append(", ").append(value);
  }

  // Chunked bodies are out of scope; say so instead of waiting for a length that never comes.
  if (pending_.headers.count("transfer-encoding") != 0) {
    return fail(411, "Transfer-Encoding request bodies are not supported; send Content-Length");
  }
  auto connection = pending_.headers.find("connection");
  if (pending_.minor_version == 0) {
    pending_.keep_alive =
        connection != pending_.headers.end() && lists_token(connection->second, "keep-alive");
  } else {
    pending_.keep_alive = connection == pending_.headers.end() || !lists_token(connection->second, "close");
  }
  auto expect = pending_.headers.find("expect");
  // HTTP/1.0 clients know no 1xx responses (RFC 9110 §15.2).
  expects_continue_ = pending_.minor_version == 1 && expect != pending_.headers.end() &&
                      lower(expect->second) == "100-continue";
  return true;
}

bool HttpRequestParser::fail(int status, std::string message) {
  error_status_ = status;
  error_message_ = std::move(message);
  return false;
}

void HttpRequestParser::compact() {
  // Drop handed-out bytes once they are most of the buffer, keeping appends amortised O(1).
  if (consumed_ == 0) return;
  if (consumed_ == buffer_.size()) {
    buffer_.clear();
  } else if (consumed_ >= 4096 && consumed_ * 2 >= buffer_.size()) {
    buffer_.erase(0, consumed_);
  } else {
    return;
  }
  scan_from_ -= std::min(scan_from_, consumed_);
  consumed_ = 0;
}

}  // namespace parley::testing
