#include "gateway/request_checks.h"

#include <string>

#include <gtest/gtest.h>

#include "core/text.h"

namespace parley::gateway {
namespace {

serve::IncomingRequest with_hosts(std::initializer_list<std::string> hosts) {
  serve::IncomingRequest request;
  for (const std::string& host : hosts) request.headers.emplace_back("host", host);
  return request;
}

bool allowed(const std::string& host) { return host_allowed(with_hosts({host})); }

TEST(RequestChecks, LoopbackBindings) {
  for (const char* host : {"localhost", "::1", "[::1]", "127.0.0.1", "127.0.0.2"}) EXPECT_TRUE(is_loopback_name(host)) << host;
  for (const char* host : {"0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "example.com"}) EXPECT_FALSE(is_loopback_name(host)) << host;
}

TEST(RequestChecks, TheHostMustNameThisMachine) {
  for (const char* host : {"localhost", "LOCALHOST:8080", "localhost.", "localhost.:", "127.0.0.1:1", "127.0.0.2",
                           "127.1", "[::1]", "[::1]:8080"}) {
    EXPECT_TRUE(allowed(host)) << host;
  }
  // Names a DNS answer could point here (rebinding), other machines, bad ports, and no or two Hosts.
  for (const char* host : {"evil.example", "127.evil.example", "localhost.evil", "0.0.0.0", "[::2]", "localhost:80x",
                           "localhost:-1", "", "::1"}) {
    EXPECT_FALSE(allowed(host)) << host;
  }
  EXPECT_FALSE(host_allowed(with_hosts({})));
  EXPECT_FALSE(host_allowed(with_hosts({"localhost", "localhost"})));
}

TEST(RequestChecks, JsonMediaType) {
  for (const char* type : {"application/json", "Application/JSON", "application/json; charset=utf-8",
                           " application/json ;charset=utf-8", "application/json\t"}) {
    EXPECT_TRUE(is_json_media_type(type)) << type;
  }
  for (const char* type : {"application/jsonpatch", "text/plain", "application/json-seq", "", "json", "application/"}) {
    EXPECT_FALSE(is_json_media_type(type)) << type;
  }
}

TEST(RequestChecks, BearerKey) {
  EXPECT_TRUE(bearer_key_matches("Bearer s3cret", "s3cret"));
  EXPECT_TRUE(bearer_key_matches("bearer s3cret", "s3cret"));
  EXPECT_TRUE(bearer_key_matches("BEARER s3cret", "s3cret"));
  EXPECT_FALSE(bearer_key_matches("Bearer s3cre", "s3cret"));    // shorter
  EXPECT_FALSE(bearer_key_matches("Bearer s3crets", "s3cret"));  // longer
  EXPECT_FALSE(bearer_key_matches("Bearer s3cres", "s3cret"));   // the last byte differs
  EXPECT_FALSE(bearer_key_matches("Bearer S3cret", "s3cret"));   // the key's case counts
  EXPECT_FALSE(bearer_key_matches("Basic s3cret", "s3cret"));
  EXPECT_FALSE(bearer_key_matches("s3cret", "s3cret"));
  EXPECT_FALSE(bearer_key_matches("Bearer ", ""));  // no key is never a match
  EXPECT_FALSE(bearer_key_matches("Bearer s3crets3cret", "s3cret"));  // the key twice is not the key
}

TEST(PercentDecoded, DecodesEscapesAndKeepsMalformedOnes) {
  EXPECT_EQ(percent_decoded("org%2Fdeb%20ate"), "org/deb ate");
  EXPECT_EQ(percent_decoded("%c3%A9"), "\xC3\xA9");
  EXPECT_EQ(percent_decoded("deb%zz"), "deb%zz");
  EXPECT_EQ(percent_decoded("deb%6"), "deb%6");
  EXPECT_EQ(percent_decoded("100%"), "100%");
  EXPECT_EQ(percent_decoded("%41"), "A");
}

}  // namespace
}  // namespace parley::gateway
