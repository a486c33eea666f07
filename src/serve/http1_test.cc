// The text the server writes, without sockets (http1.h).
#include "serve/http1.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace parley::serve::http1 {
namespace {

TEST(Http1, AResponseHeadKeepsTheHandlersHeadersButNotItsFraming) {
  const Headers headers{{"Content-Type", "application/json"},
                        {"content-LENGTH", "9"},
                        {"Transfer-Encoding", "gzip"},
                        {"Connection", "upgrade"},
                        {"X-Request-Id", "r1"}};
  EXPECT_EQ(
      response_head(200, headers, "Content-Length: 2\r\n", /*close=*/false, 11),
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: r1\r\nContent-Length: 2\r\n\r\n");
  EXPECT_EQ(response_head(404, {}, "", /*close=*/true, 11),
            "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(response_head(200, {}, "", /*close=*/false, 10),
            "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_EQ(response_head(200, {}, "", /*close=*/true, 10), "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(response_head(299, {}, "", /*close=*/false, 11), "HTTP/1.1 299 Unknown\r\n\r\n");
}

TEST(Http1, ChunkLinesGiveTheSizeInHex) {
  EXPECT_EQ(chunk_line(0), "0\r\n");
  EXPECT_EQ(chunk_line(9), "9\r\n");
  EXPECT_EQ(chunk_line(15), "f\r\n");
  EXPECT_EQ(chunk_line(16), "10\r\n");
  EXPECT_EQ(chunk_line(255), "ff\r\n");
  EXPECT_EQ(chunk_line(65536), "10000\r\n");
  EXPECT_EQ(chunk_line(0xabcdef), "abcdef\r\n");
}

TEST(Http1, OnlyBodylessStatusesHaveNoBody) {
  EXPECT_TRUE(bodiless(204));
  EXPECT_TRUE(bodiless(304));
  for (const int status : {200, 201, 205, 303, 305, 404, 500}) EXPECT_FALSE(bodiless(status)) << status;
}

TEST(Http1, AResponseIsCheckedBeforeItIsSent) {
  EXPECT_NO_THROW(check_response(200, {{"X-Ok", "a value: with colon"}}));
  EXPECT_NO_THROW(check_response(599, {}));
  const auto message = [](int status, const Headers& headers) -> std::string {
    try {
      check_response(status, headers);
    } catch (const std::invalid_argument& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_EQ(message(199, {}), "HTTP status 199 is not 200..599");
  EXPECT_EQ(message(600, {}), "HTTP status 600 is not 200..599");
  EXPECT_EQ(message(200, {{"", "x"}}), "bad response header name \"\"");
  EXPECT_EQ(message(200, {{"Bad Name", "x"}}), "bad response header name \"Bad Name\"");
  EXPECT_EQ(message(200, {{"X:Colon", "x"}}), "bad response header name \"X:Colon\"");
  EXPECT_EQ(message(200, {{"X-Split", "a\r\nSet-Cookie: b"}}), "response header X-Split holds a line break");
  EXPECT_EQ(message(200, {{"X-Lf", "a\nb"}}), "response header X-Lf holds a line break");
  EXPECT_EQ(message(200, {{"X-Cr", "a\rb"}}), "response header X-Cr holds a line break");
  EXPECT_EQ(message(200, {{"X-Nul", std::string("a\0b", 3)}}), "response header X-Nul holds a line break");
}

}  // namespace
}  // namespace parley::serve::http1
