#include "parley/cancel.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace parley {
namespace {

TEST(CancelSignal, RunsCallbacksOnceInSubscriptionOrderWithTheReason) {
  CancelSignal signal;
  std::vector<std::string> ran;
  auto first = signal.subscribe([&] { ran.push_back("first:" + signal.reason()); });
  auto second = signal.subscribe([&] { ran.push_back("second"); });
  EXPECT_FALSE(signal.fired());
  EXPECT_EQ(signal.reason(), "");
  signal.fire("client disconnected");
  signal.fire("deadline");  // changes nothing
  EXPECT_TRUE(signal.fired());
  EXPECT_EQ(signal.reason(), "client disconnected");
  EXPECT_EQ(ran, (std::vector<std::string>{"first:client disconnected", "second"}));
  EXPECT_EQ(signal.subscribers(), 0u);
}

TEST(CancelSignal, AnUnsubscribedCallbackDoesNotRun) {
  CancelSignal signal;
  int runs = 0;
  {
    auto gone = signal.subscribe([&] { ++runs; });
  }
  auto reset = signal.subscribe([&] { ++runs; });
  reset.reset();
  EXPECT_EQ(signal.subscribers(), 0u);
  signal.fire();
  EXPECT_EQ(runs, 0);
}

TEST(CancelSignal, ACallbackMayUnsubscribeALaterOne) {
  CancelSignal signal;
  std::vector<int> ran;
  CancelSignal::Subscription later;
  auto earlier = signal.subscribe([&] {
    ran.push_back(1);
    later.reset();
  });
  later = signal.subscribe([&] { ran.push_back(2); });
  signal.fire();
  EXPECT_EQ(ran, std::vector<int>{1});
}

TEST(CancelSignal, SubscribingAfterItFiredRunsAtOnce) {
  CancelSignal signal;
  signal.fire("deadline");
  int runs = 0;
  auto subscription = signal.subscribe([&] { ++runs; });
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(signal.subscribers(), 0u);
}

TEST(CancelSignal, AMovedSubscriptionStillUnsubscribes) {
  CancelSignal signal;
  int runs = 0;
  CancelSignal::Subscription kept;
  {
    auto made = signal.subscribe([&] { ++runs; });
    kept = std::move(made);
  }
  EXPECT_EQ(signal.subscribers(), 1u);
  kept = CancelSignal::Subscription();
  EXPECT_EQ(signal.subscribers(), 0u);
  signal.fire();
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace parley
