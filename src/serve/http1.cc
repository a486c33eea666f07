#include "serve/http1.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
// g++ 12 with the sanitizers warns of Beast 1.74's boost::optional "maybe uninitialized", a false
// positive inside Boost (as in src/llm/native_http_transport.cc).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/beast/http/status.hpp>
#pragma GCC diagnostic pop

#include "core/text.h"

namespace parley::serve::http1 {
namespace {

namespace beast_http = boost::beast::http;

bool token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool framing_header(std::string_view name) {
  const std::string lowered = ascii_lower(name);
  return lowered == "content-length" || lowered == "transfer-encoding" || lowered == "connection";
}

std::string status_line(int status) {
  const auto known = beast_http::int_to_status(static_cast<unsigned>(status));
  const auto reason = known == beast_http::status::unknown ? boost::beast::string_view("Unknown")
                                                           : beast_http::obsolete_reason(known);
  std::string line = "HTTP/1.1 " + std::to_string(status) + " ";
  line.append(reason.data(), reason.size()).append("\r\n");
  return line;
}

}  // namespace

void check_response(int status, const Headers& headers) {
  if (status < 200 || status > 599) {
    throw std::invalid_argument("HTTP status " + std::to_string(status) + " is not 200..599");
  }
  for (const auto& [name, value] : headers) {
    if (name.empty() || !std::all_of(name.begin(), name.end(), token_char)) {
      throw std::invalid_argument("bad response header name \"" + name + "\"");
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      throw std::invalid_argument("response header " + name + " holds a line break");
    }
  }
}

std::string response_head(int status, const Headers& headers, std::string_view framing, bool close,
                          int version) {
  std::string head = status_line(status);
  for (const auto& [name, value] : headers) {
    if (!framing_header(name)) head.append(name).append(": ").append(value).append("\r\n");
  }
  head.append(framing);
  if (close) {
    head.append("Connection: close\r\n");
  } else if (version < 11) {
    head.append("Connection: keep-alive\r\n");
  }
  head.append("\r\n");
  return head;
}

bool bodiless(int status) { return status == 204 || status == 304; }

std::string chunk_line(std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[size & 15]);
    size >>= 4;
  } while (size != 0);
  return out + "\r\n";
}

}  // namespace parley::serve::http1
