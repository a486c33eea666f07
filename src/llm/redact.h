#pragma once
// Redactor: removes an endpoint's credentials from text a server sent back (error bodies,
// error messages), the one place such text passes before parley keeps it. The OpenAI client
// owns one per endpoint; it is immutable, so any thread may use it.

#include <string>
#include <string_view>
#include <vector>

namespace parley {

class Redactor {
 public:
  // The credentials are the API key (may be empty) and base_url's user information
  // ("http://user:password@host"), which curl sends as Basic authentication.
  Redactor(std::string_view api_key, std::string_view base_url);

  // `text` with each credential replaced by "[redacted]": the key; the URL's user:password as
  // written and percent-decoded, its password, and their Basic form (base64); and any token
  // after "Bearer " or "Basic " (any case), whoever's it is.
  std::string redact(std::string text) const;

 private:
  std::vector<std::string> secrets_;  // longest first, so no secret is cut by a shorter one
};

// The base64 encoding (RFC 4648, with padding) of `bytes`: how Basic authentication sends
// "user:password".
std::string base64(std::string_view bytes);

}  // namespace parley
