#pragma once
// The text of HTTP/1.1 that the server writes (http_server.cc): a response's head — status line,
// the handler's headers once checked, the framing headers that are the server's own — and chunk
// framing. Pure functions; internal to src/serve.

#include <cstddef>
#include <string>
#include <string_view>

#include "serve/http_server.h"

namespace parley::serve::http1 {

// Throws std::invalid_argument unless status is 200..599, every name a token and every value
// one line (no CR, LF or NUL): a handler's headers never split the response.
void check_response(int status, const Headers& headers);

// "HTTP/1.1 <status> <reason>", the headers but Content-Length, Transfer-Encoding and Connection
// (any case), then `framing` (whole header lines or ""), then "Connection: close" when `close`,
// else "Connection: keep-alive" to HTTP/1.0 (`version` 10), then the blank line.
std::string response_head(int status, const Headers& headers, std::string_view framing, bool close,
                          int version);

// Statuses whose responses have no body (and no Content-Length): 204 and 304.
bool bodiless(int status);

// The line that opens a chunk of `size` bytes: its size in hex, CRLF.
std::string chunk_line(std::size_t size);

}  // namespace parley::serve::http1
