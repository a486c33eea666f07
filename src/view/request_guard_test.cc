// Which methods and Host headers the viewer answers.
#include "view/request_guard.h"

#include <gtest/gtest.h>

#include "parley/viewer.h"

namespace parley::view {
namespace {

TEST(RequestGuard, OnlyGetAndHead) {
  EXPECT_TRUE(allowed_method("GET"));
  EXPECT_TRUE(allowed_method("HEAD"));
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "get", ""})
    EXPECT_FALSE(allowed_method(method)) << method;
}

TEST(RequestGuard, LoopbackAddresses) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "localhost", "LocalHost"})
    EXPECT_TRUE(is_loopback_host(host)) << host;
  for (const char* host : {"0.0.0.0", "::", "192.168.1.4", "128.0.0.1", "example.com", "localhost.example.com", ""})
    EXPECT_FALSE(is_loopback_host(host)) << host;
}

TEST(RequestGuard, OnLoopbackHostMustNameTheViewer) {
  for (const char* host : {"127.0.0.1:8740", "localhost:8740", "LOCALHOST:8740", "[::1]:8740"})
    EXPECT_TRUE(allowed_host(std::string(host), "127.0.0.1", 8740)) << host;
  // DNS rebinding: another name that resolves here; another port; no port; no Host at all.
  for (const char* host : {"evil.example:8740", "127.0.0.1:8741", "127.0.0.1", "localhost", "127.0.0.1:8740x",
                           "127.0.0.1:", "", "127.0.0.2:8740", "[::1]", "::1:8740", "127.0.0.1.evil.example:8740"})
    EXPECT_FALSE(allowed_host(std::string(host), "127.0.0.1", 8740)) << host;
  EXPECT_FALSE(allowed_host(std::nullopt, "127.0.0.1", 8740));
  // Port 80: a browser leaves it out.
  EXPECT_TRUE(allowed_host(std::string("localhost"), "127.0.0.1", 80));
  EXPECT_FALSE(allowed_host(std::string("evil.example"), "127.0.0.1", 80));
  // The bound address itself, when another loopback one.
  EXPECT_TRUE(allowed_host(std::string("127.0.0.5:9000"), "127.0.0.5", 9000));
  EXPECT_TRUE(allowed_host(std::string("[::1]:9000"), "::1", 9000));
  EXPECT_TRUE(allowed_host(std::string("127.0.0.1:9000"), "localhost", 9000));
}

TEST(RequestGuard, BoundToTheNetworkAnyHostIsAnswered) {
  EXPECT_TRUE(allowed_host(std::string("viewer.lab.example:8740"), "0.0.0.0", 8740));
  EXPECT_TRUE(allowed_host(std::nullopt, "192.168.1.4", 8740));
}

}  // namespace
}  // namespace parley::view
