#pragma once
// HttpRequestParser: incremental parsing of HTTP/1.0 and 1.1 requests with Content-Length
// bodies, just enough of RFC 9112 for a loopback test server. Bytes arrive in arbitrary
// pieces; whole requests come out, in order, so pipelining needs nothing extra.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace parley::testing {

struct HttpRequest {
  std::string method;
  std::string target;
  int minor_version = 1;
  std::map<std::string, std::string> headers;  // names lower-cased; repeats joined by ", "
  std::string body;
  bool keep_alive = true;
};

enum class ParseResult { kNeedMore, kRequest, kError };

class HttpRequestParser {
 public:
  static constexpr std::size_t kDefaultMaxHeadBytes = 64 * 1024;
  static constexpr std::size_t kDefaultMaxBodyBytes = 64 * 1024 * 1024;

  explicit HttpRequestParser(std::size_t max_head_bytes = kDefaultMaxHeadBytes,
                             std::size_t max_body_bytes = kDefaultMaxBodyBytes)
      : max_head_bytes_(max_head_bytes), max_body_bytes_(max_body_bytes) {}

  void feed(std::string_view bytes) { buffer_.append(bytes); }

  // The next whole request, if buffered. After kError the parser stays failed: the connection
  // has lost its framing, so the caller answers error_status() and closes.
  ParseResult next(HttpRequest& request);

  // True once per request whose client sent "Expect: 100-continue" and is still owed its body.
  bool take_continue();

  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

 private:
  std::size_t unread() const { return buffer_.size() - consumed_; }
  bool parse_head(std::string_view head);
  bool fail(int status, std::string message);
  void compact();

  std::size_t max_head_bytes_;
  std::size_t max_body_bytes_;
  std::string buffer_;
  std::size_t consumed_ = 0;   // bytes of buffer_ already handed out
  std::size_t scan_from_ = 0;  // where the search for the end of the head resumes
  bool have_head_ = false;
  HttpRequest pending_;
  std::size_t body_length_ = 0;
  bool expects_continue_ = false;
  int error_status_ = 0;
  std::string error_message_;
};

}  // namespace parley::testing
