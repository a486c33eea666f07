#include "plain_http_target.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace parley::http {
namespace {

// "family address port" of one target address, e.g. "4 127.0.0.1 8000".
std::string describe(const sockaddr_in6& address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.sin6_family == AF_INET) {
    sockaddr_in ipv4{};
    std::memcpy(&ipv4, &address, sizeof ipv4);
    inet_ntop(AF_INET, &ipv4.sin_addr, text, sizeof text);
    return "4 " + std::string(text) + " " + std::to_string(ntohs(ipv4.sin_port));
  }
  inet_ntop(AF_INET6, &address.sin6_addr, text, sizeof text);
  return "6 " + std::string(text) + " " + std::to_string(ntohs(address.sin6_port));
}

TEST(PlainHttpTarget, AnIpv4LiteralWithPortAndPath) {
  const auto target = plain_http_target("http://127.0.0.1:8000/v1/chat/completions");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->origin, "127.0.0.1:8000");
  EXPECT_EQ(target->path, "/v1/chat/completions");
  ASSERT_EQ(target->addresses.size(), 1u);
  EXPECT_EQ(describe(target->addresses[0]), "4 127.0.0.1 8000");
}

TEST(PlainHttpTarget, AnIpv6LiteralDefaultPortAndEmptyPath) {
  const auto target = plain_http_target("HTTP://[::1]");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->origin, "[::1]");
  EXPECT_EQ(target->path, "/");
  ASSERT_EQ(target->addresses.size(), 1u);
  EXPECT_EQ(describe(target->addresses[0]), "6 ::1 80");
}

TEST(PlainHttpTarget, LocalhostTriesBothLoopbacks) {
  const auto target = plain_http_target("http://LocalHost:9/x?q=1#frag");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->origin, "LocalHost:9");
  EXPECT_EQ(target->path, "/x?q=1");
  ASSERT_EQ(target->addresses.size(), 2u);
  EXPECT_EQ(describe(target->addresses[0]), "4 127.0.0.1 9");
  EXPECT_EQ(describe(target->addresses[1]), "6 ::1 9");
}

TEST(PlainHttpTarget, AQueryWithoutAPathGetsTheRootPath) {
  const auto target = plain_http_target("http://10.0.0.2?a=b");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->path, "/?a=b");
}

TEST(PlainHttpTarget, EverythingElseIsLeftToLibcurl) {
  for (const char* url : {"https://127.0.0.1/v1", "http://api.example.com/v1", "http://user:pw@127.0.0.1/v1",
                          "http://127.0.0.1:0/v1", "http://127.0.0.1:65536/v1", "http://127.0.0.1:/v1",
                          "http://127.0.0.1:80x/v1", "http://[::1/v1", "http://[::1]x/v1", "http://[127.0.0.1]/v1",
                          "http://::1/v1", "http://127.1/v1", "http://127.0.0.1/a b", "ftp://127.0.0.1/", "http:/",
                          ""}) {
    EXPECT_FALSE(plain_http_target(url).has_value()) << url;
  }
}

}  // namespace
}  // namespace parley::http
