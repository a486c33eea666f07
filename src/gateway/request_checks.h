#pragma once
// The gateway's checks of a request's headers, before any debate: who may call (the gateway's
// key), from where (the Host header on loopback: DNS rebinding), and in what format (JSON).
// Pure functions of the request; used by gateway.cc.

#include <string_view>

#include "serve/http_server.h"

namespace parley::gateway {

// A host the gateway binds to that only this machine reaches: "localhost", "::1", 127.x.x.x.
bool is_loopback_name(std::string_view host);

// Bound to loopback, a request must name this machine in its one Host header (`localhost`, a
// 127.x.x.x literal or `[::1]`, any case, with or without a port or the trailing dot), so that a
// web page served under another name cannot reach the gateway through a browser.
bool host_allowed(const serve::IncomingRequest& request);

// "application/json", in any case, with or without parameters ("; charset=utf-8").
bool is_json_media_type(std::string_view content_type);

// An Authorization header "Bearer <key>" (the scheme in any case) carrying `key`, compared
// without stopping at the first difference, so the time taken says nothing of the key (but its
// length). Never true for an empty key.
bool bearer_key_matches(std::string_view authorization, std::string_view key);

}  // namespace parley::gateway
