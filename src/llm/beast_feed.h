#pragma once
// Feeding received bytes to a Boost.Beast parser, as the native HTTP transport (replies,
// src/llm/native_http_transport.cc) and the gateway's HTTP server (requests,
// src/serve/http_server.cc) both do: put() until the message is complete, wrong, or waiting for
// bytes not here yet; eager only once the header is in. Header-only; internal to src/llm and
// src/serve (which include Beast only through their own .cc files and this).

#include <cstddef>
#include <string_view>
// g++ 12 with the sanitizers warns of Beast 1.74's boost::optional "maybe uninitialized", a false
// positive inside Boost.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/system/error_code.hpp>
#pragma GCC diagnostic pop

namespace parley::http {

// Feeds `input` to `parser` (a Beast request or response parser) until the message is done, the
// parser fails (its error is returned), or it needs more than `input` holds (then the error is
// clear: Beast takes a header only whole, so an incomplete one stays in `input`). What the parser
// took is removed from the front of `input`. The parser is not eager until its header is in, so
// put() stops right after the header: then, once per message, it turns eager and
// `on_header(left)` runs with the count of bytes still unfed; a non-empty error it returns ends
// the feed and is returned (and then the parser is not touched again: on_header may destroy it).
template <class Parser, class OnHeader>
boost::system::error_code feed(Parser& parser, std::string_view& input, OnHeader&& on_header) {
  boost::system::error_code error;
  while (!input.empty() && !parser.is_done()) {
    const bool had_header = parser.is_header_done();
    const std::size_t used = parser.put(boost::asio::const_buffer(input.data(), input.size()), error);
    input.remove_prefix(used);
    if (error == boost::beast::http::error::need_more) {
      error = {};
      if (used == 0) break;
    } else if (error) {
      break;
    }
    if (!had_header && parser.is_header_done()) {
      parser.eager(true);
      error = on_header(input.size());
      if (error) break;
    }
  }
  return error;
}

}  // namespace parley::http
