#include <gtest/gtest.h>

#include <chrono>

#include "parley/llm_client.h"

namespace parley {
namespace {

using std::chrono::milliseconds;

CallError http_error(int status) { return CallError{CallErrorKind::kHttpStatus, status, "HTTP", 1}; }
CallError error_of(CallErrorKind kind) { return CallError{kind, 0, "failure", 1}; }

TEST(RetryPolicy, RetriesTransientFailures) {
  RetryPolicy policy;
  EXPECT_TRUE(policy.should_retry(error_of(CallErrorKind::kTimeout), 1));
  EXPECT_TRUE(policy.should_retry(error_of(CallErrorKind::kConnection), 1));
  EXPECT_TRUE(policy.should_retry(error_of(CallErrorKind::kBadResponse), 1));
  for (int status : {408, 429, 500, 502, 503, 504, 599}) EXPECT_TRUE(policy.should_retry(http_error(status), 1)) << status;
}

TEST(RetryPolicy, NeverRetriesOtherClientErrorsOrCancellation) {
  RetryPolicy policy;
  for (int status : {400, 401, 403, 404, 409, 413, 422}) EXPECT_FALSE(policy.should_retry(http_error(status), 1)) << status;
  EXPECT_FALSE(policy.should_retry(error_of(CallErrorKind::kCancelled), 1));
}

TEST(RetryPolicy, NeverRetriesAnUnsupportedOperationOrAnOversizedReply) {
  RetryPolicy policy;
  EXPECT_FALSE(policy.should_retry(error_of(CallErrorKind::kUnsupported), 1));
  EXPECT_FALSE(policy.should_retry(error_of(CallErrorKind::kTooLarge), 1));  // it would be again
}

TEST(CallErrorKindName, NamesEveryKind) {
  EXPECT_STREQ(call_error_kind_name(CallErrorKind::kTimeout), "timeout");
  EXPECT_STREQ(call_error_kind_name(CallErrorKind::kHttpStatus), "http_status");
  EXPECT_STREQ(call_error_kind_name(CallErrorKind::kConnection), "connection");
  EXPECT_STREQ(call_error_kind_name(CallErrorKind::kBadResponse), "bad_response");
  EXPECT_STREQ(call_error_kind_name(CallErrorKind::kCancelled), "cancelled");
  EXPECT_STREQ(call_error_kind_name(CallErrorKind::kUnsupported), "unsupported");
  EXPECT_STREQ(call_error_kind_name(CallErrorKind::kTooLarge), "too_large");
}

TEST(RetryPolicy, StopsAfterMaxRetries) {
  RetryPolicy policy;
  policy.max_retries = 4;  // five attempts in all
  EXPECT_TRUE(policy.should_retry(error_of(CallErrorKind::kTimeout), 4));
  EXPECT_FALSE(policy.should_retry(error_of(CallErrorKind::kTimeout), 5));
  policy.max_retries = 0;
  EXPECT_FALSE(policy.should_retry(error_of(CallErrorKind::kTimeout), 1));
}

TEST(RetryPolicy, DelayDoublesFromBaseWithJitterFactor) {
  RetryPolicy policy;  // base 0.5 s, cap 30 s, jitter 0.5: factor = 0.5 + unit_random
  EXPECT_EQ(policy.delay(1, std::nullopt, 0.5), milliseconds(500));    // 0.5 × 1
  EXPECT_EQ(policy.delay(2, std::nullopt, 0.5), milliseconds(1000));   // 1.0 × 1
  EXPECT_EQ(policy.delay(3, std::nullopt, 0.0), milliseconds(1000));   // 2.0 × 0.5
  EXPECT_EQ(policy.delay(3, std::nullopt, 1.0), milliseconds(3000));   // 2.0 × 1.5
  EXPECT_EQ(policy.delay(4, std::nullopt, 0.25), milliseconds(3000));  // 4.0 × 0.75
}

TEST(RetryPolicy, DelayIsCappedBeforeJitter) {
  RetryPolicy policy;
  EXPECT_EQ(policy.delay(7, std::nullopt, 0.5), milliseconds(30000));   // min(30, 32) × 1
  EXPECT_EQ(policy.delay(10, std::nullopt, 0.0), milliseconds(15000));  // 30 × 0.5
  EXPECT_EQ(policy.delay(5000, std::nullopt, 1.0), milliseconds(45000));  // no overflow: 30 × 1.5
}

TEST(RetryPolicy, NoJitterAndSmallBase) {
  RetryPolicy policy;
  policy.jitter = 0.0;
  policy.base_delay_s = 0.01;
  EXPECT_EQ(policy.delay(1, std::nullopt, 0.9), milliseconds(10));
  EXPECT_EQ(policy.delay(3, std::nullopt, 0.1), milliseconds(40));
}

TEST(RetryPolicy, RetryAfterWinsWhenLonger) {
  RetryPolicy policy;
  EXPECT_EQ(policy.delay(1, 2.0, 0.5), milliseconds(2000));   // 2 s > 0.5 s
  EXPECT_EQ(policy.delay(3, 1.0, 1.0), milliseconds(3000));   // backoff 3 s > 1 s
  EXPECT_EQ(policy.delay(1, 0.0, 0.5), milliseconds(500));
  EXPECT_EQ(policy.delay(1, 1e6, 0.5), milliseconds(300000));  // capped at 10 × max_delay
}

}  // namespace
}  // namespace parley
