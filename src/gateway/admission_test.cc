#include "gateway/admission.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace parley::gateway {
namespace {

// Requests as the gateway admits them: refused when full, else queued for a slot held until
// their own `done` fires. `order` says who was refused ("429 name") or got a slot ("name").
struct Scene {
  EventLoop loop;
  Admission admission{1, 1};  // max_debates 1, max_waiting 1
  std::vector<std::string> order;

  // `name` is a literal: a std::string prvalue argument would be copied bitwise by g++ 12.
  Async<void> request(const char* name, CancelSignal* done) {
    if (admission.full()) {
      order.push_back("429 " + std::string(name));
      co_return;
    }
    if (!co_await admission.acquire(loop, nullptr)) co_return;
    Admission::Slot slot(admission, loop);
    order.push_back(name);
    co_await loop.sleep_for(std::chrono::hours(1), done);
  }
};

TEST(Admission, OneDebateAndOneWaitingThenTheThirdIsRefused) {
  Scene scene;
  CancelSignal a_done, b_done;
  auto driver = [&]() -> Async<void> {
    co_await scene.loop.yield();
    EXPECT_EQ(scene.admission.in_flight(), 1u);
    EXPECT_EQ(scene.admission.waiting(), 1u);
    EXPECT_TRUE(scene.admission.full());
    a_done.fire();
    co_await scene.loop.yield();
    co_await scene.loop.yield();
    b_done.fire();
  };
  scene.loop.spawn(scene.request("a", &a_done));
  scene.loop.spawn(scene.request("b", &b_done));
  scene.loop.spawn(scene.request("c", nullptr));
  scene.loop.spawn(driver());
  scene.loop.run();
  EXPECT_EQ(scene.order, (std::vector<std::string>{"a", "429 c", "b"}));
  EXPECT_EQ(scene.admission.in_flight(), 0u);
  EXPECT_EQ(scene.admission.waiting(), 0u);
}

// The moment between a slot's release and its new holder's resumption: the slot is held and
// the queue is empty, so one request may queue and the next is refused, as a moment later.
TEST(Admission, ASlotPassedOnIsHeldBeforeItsNewHolderResumes) {
  Scene scene;
  CancelSignal a_done, b_done, c_done;
  auto driver = [&]() -> Async<void> {
    co_await scene.loop.yield();
    a_done.fire();  // "a" resumes and passes its slot to "b", which resumes on a later turn
    co_await scene.loop.yield();
    EXPECT_EQ(scene.order, (std::vector<std::string>{"a"}));  // "b" has not resumed yet
    EXPECT_EQ(scene.admission.in_flight(), 1u);
    EXPECT_EQ(scene.admission.waiting(), 0u);
    EXPECT_FALSE(scene.admission.full());
    scene.loop.spawn(scene.request("c", &c_done));  // queued
    scene.loop.spawn(scene.request("d", nullptr));  // refused: the queue is full
    EXPECT_EQ(scene.admission.waiting(), 1u);
    co_await scene.loop.yield();
    b_done.fire();
    co_await scene.loop.yield();
    co_await scene.loop.yield();
    c_done.fire();
  };
  scene.loop.spawn(scene.request("a", &a_done));
  scene.loop.spawn(scene.request("b", &b_done));
  scene.loop.spawn(driver());
  scene.loop.run();
  EXPECT_EQ(scene.order, (std::vector<std::string>{"a", "429 d", "b", "c"}));
}

TEST(Admission, NoQueueRefusesTheSecond) {
  EventLoop loop;
  Admission admission(1, 0);
  EXPECT_FALSE(admission.full());
  bool held = false;
  auto holder = [&]() -> Async<void> {
    held = co_await admission.acquire(loop, nullptr);
    Admission::Slot slot(admission, loop);
    EXPECT_TRUE(admission.full());
  };
  loop.spawn(holder());
  loop.run();
  EXPECT_TRUE(held);
  EXPECT_FALSE(admission.full());
}

}  // namespace
}  // namespace parley::gateway
