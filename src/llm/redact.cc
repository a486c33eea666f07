#include "llm/redact.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace parley {
namespace {

constexpr std::string_view kMark = "[redacted]";

// The user information of an http(s) URL ("user:password" in "http://user:password@host/"), or "".
std::string_view user_information(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  const std::string_view rest = url.substr(scheme_end + 3);
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  const std::size_t at = authority.rfind('@');
  return at == std::string_view::npos ? std::string_view() : authority.substr(0, at);
}

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_' || c == '~' ||
         c == '+' || c == '/' || c == '=';
}

// Replaces the token after each "<scheme> " (the scheme in any case, at a word start).
void redact_scheme_tokens(std::string& text, std::string_view scheme) {
  std::string lowered = text;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::size_t at = lowered.find(scheme); at != std::string::npos; at = lowered.find(scheme, at + 1)) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(lowered[at - 1])) != 0) continue;
    std::size_t start = at + scheme.size();
    if (start >= text.size() || text[start] != ' ') continue;
    while (start < text.size() && text[start] == ' ') ++start;
    std::size_t end = start;
    while (end < text.size() && is_token_char(text[end])) ++end;
    if (end == start) continue;
    text.replace(start, end - start, kMark);
    lowered.replace(start, end - start, kMark);  // kept aligned with text
  }
}

}  // namespace

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t at = 0; at < bytes.size(); at += 3) {
    const std::size_t count = std::min<std::size_t>(3, bytes.size() - at);
    unsigned group = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      group = group << 8 | (k < count ? static_cast<unsigned char>(bytes[at + k]) : 0U);
    }
    for (std::size_t k = 0; k < 4; ++k) {
      out.push_back(k <= count ? kAlphabet[(group >> (18 - 6 * k)) & 0x3F] : '=');
    }
  }
  return out;
}

Redactor::Redactor(std::string_view api_key, std::string_view base_url) {
  secrets_.emplace_back(api_key);
  const std::string_view written = user_information(base_url);
  if (!written.empty()) {
    const std::size_t colon = written.find(':');
    const std::string user = percent_decoded(written.substr(0, colon));
    const std::string password =
        colon == std::string_view::npos ? std::string() : percent_decoded(written.substr(colon + 1));
    secrets_.emplace_back(written);  // with no password, the user part is the credential
    secrets_.push_back(user + ":" + password);
    secrets_.push_back(base64(user + ":" + password));
    secrets_.push_back(password);
    if (colon != std::string_view::npos) secrets_.emplace_back(written.substr(colon + 1));
  }
  std::erase_if(secrets_, [](const std::string& secret) { return secret.empty() || secret == ":"; });
  std::sort(secrets_.begin(), secrets_.end(),
            [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() > b.size() : a < b; });
  secrets_.erase(std::unique(secrets_.begin(), secrets_.end()), secrets_.end());
}

std::string Redactor::redact(std::string text) const {
  for (const std::string& secret : secrets_) {
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + kMark.size())) {
      text.replace(at, secret.size(), kMark);
    }
  }
  redact_scheme_tokens(text, "bearer");
  redact_scheme_tokens(text, "basic");
  return text;
}

}  // namespace parley
