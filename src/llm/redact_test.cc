#include "llm/redact.h"

#include <gtest/gtest.h>

namespace parley {
namespace {

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64("\xFF\xFE"), "//4=");
  EXPECT_EQ(base64("alice:hunter2"), "YWxpY2U6aHVudGVyMg==");
}

TEST(Redactor, TheApiKeyWherever) {
  const Redactor redactor("sk-live-0123456789", "http://127.0.0.1:8000/v1");
  EXPECT_EQ(redactor.redact("Incorrect API key provided: sk-live-0123456789. sk-live-0123456789"),
            "Incorrect API key provided: [redacted]. [redacted]");
  EXPECT_EQ(redactor.redact("nothing secret here"), "nothing secret here");
}

TEST(Redactor, UrlCredentialsInEveryForm) {
  // curl sends the percent-decoded "alice:s3cr:t" as Basic YWxpY2U6czNjcjp0.
  const Redactor redactor("", "http://alice:s3cr%3At@127.0.0.1:8000/v1");
  EXPECT_EQ(redactor.redact("got YWxpY2U6czNjcjp0!"), "got [redacted]!");
  EXPECT_EQ(redactor.redact("user alice:s3cr:t and alice:s3cr%3At"), "user [redacted] and [redacted]");
  EXPECT_EQ(redactor.redact("password s3cr:t or s3cr%3At"), "password [redacted] or [redacted]");
  EXPECT_EQ(redactor.redact("alice is a user name"), "alice is a user name");
  // A user without a password is the credential itself ("http://token@host").
  const Redactor token("", "https://ghp_abcdef@example.com/v1");
  EXPECT_EQ(token.redact("who is ghp_abcdef? Z2hwX2FiY2RlZjo="), "who is [redacted]? [redacted]");
  // An '@' in the path is no user information.
  const Redactor path("", "http://host:1/v1/a@b");
  EXPECT_EQ(path.redact("http://host:1/v1/a@b"), "http://host:1/v1/a@b");
}

TEST(Redactor, ALongerSecretIsNotCutByAShorterOne) {
  // The key is a prefix of the password: replacing it first would leave "def" behind.
  const Redactor redactor("abc", "http://u:abcdef@127.0.0.1:1/v1");
  EXPECT_EQ(redactor.redact("pw abcdef, key abc"), "pw [redacted], key [redacted]");
}

TEST(Redactor, AnEscapeAtTheStartOfTheUserIsDecoded) {
  const Redactor redactor("", "http://%61lice:pw@127.0.0.1:1/v1");
  EXPECT_EQ(redactor.redact("alice:pw " + base64("alice:pw")), "[redacted] [redacted]");
}

TEST(Redactor, ASecretInsideTheMarkDoesNotLoop) {
  const Redactor redactor("dact", "http://127.0.0.1:1/v1");
  EXPECT_EQ(redactor.redact("0123456789dact"), "0123456789[redacted]");
}

TEST(Redactor, AnyBearerOrBasicToken) {
  const Redactor redactor("", "http://127.0.0.1:8000/v1");
  EXPECT_EQ(redactor.redact(R"({"authorization": "Bearer sk-proxy.abc_123/+="})"),
            R"({"authorization": "Bearer [redacted]"})");
  EXPECT_EQ(redactor.redact("AUTHORIZATION: basic   dXNlcjpwYXNz, next"), "AUTHORIZATION: basic   [redacted], next");
  EXPECT_EQ(redactor.redact("bearer a bearer b"), "bearer [redacted] bearer [redacted]");
  // Only at a word start, and only with a token after it.
  EXPECT_EQ(redactor.redact("Xbasic abc"), "Xbasic abc");
  EXPECT_EQ(redactor.redact("Bearer"), "Bearer");
  EXPECT_EQ(redactor.redact("Bearer: x"), "Bearer: x");
  EXPECT_EQ(redactor.redact("Bearer \"x\""), "Bearer \"x\"");
}

}  // namespace
}  // namespace parley
