#pragma once
// WaitList: coroutines waiting for one event — an endpoint's capability probe to be answered, an
// identical call in flight to finish — each of which leaves early when its own CancelSignal
// fires. Internal to src/llm; single-threaded, on the EventLoop thread.

#include <coroutine>
#include <cstddef>

#include "parley/async.h"
#include "parley/cancel.h"

namespace parley {

class WaitList {
  struct Node {
    std::coroutine_handle<> handle;
    EventLoop* loop = nullptr;
    Node* previous = nullptr;
    Node* next = nullptr;
    bool queued = false;
    bool notified = false;
  };

 public:
  WaitList() = default;
  WaitList(const WaitList&) = delete;
  WaitList& operator=(const WaitList&) = delete;
  ~WaitList() {
    while (first_ != nullptr) unlink(*first_);  // a waiter's frame outlives nothing here
  }

  // Awaitable: suspends until notify_all(), or until `*cancel` fires (a null signal: only
  // notify_all). co_await yields true when notified, false when the signal fired first (at once
  // when it had fired already). Resumes through the loop, never inline.
  class Wait {
   public:
    Wait(WaitList* list, EventLoop* loop, CancelSignal* cancel) : list_(list), cancel_(cancel) {
      node_.loop = loop;
    }
    Wait(const Wait&) = delete;
    Wait& operator=(const Wait&) = delete;
    ~Wait() {
      if (node_.queued) list_->unlink(node_);
    }
    bool await_ready() const noexcept { return cancel_ != nullptr && cancel_->fired(); }
    void await_suspend(std::coroutine_handle<> handle) {
      node_.handle = handle;
      list_->enqueue(node_);
      if (cancel_ == nullptr) return;
      subscription_ = cancel_->subscribe([this] {
        if (!node_.queued) return;  // notified already: it resumes with true
        list_->unlink(node_);
        node_.loop->post(node_.handle);
      });
    }
    bool await_resume() {
      subscription_.reset();
      return node_.notified;
    }

   private:
    WaitList* list_;
    CancelSignal* cancel_;
    Node node_;
    CancelSignal::Subscription subscription_;
  };

  Wait wait(EventLoop& loop, CancelSignal* cancel) { return Wait(this, &loop, cancel); }

  // Resumes every waiter, through its loop, with true.
  void notify_all() {
    while (Node* node = first_) {
      unlink(*node);
      node->notified = true;
      node->loop->post(node->handle);
    }
  }
  std::size_t size() const { return size_; }

 private:
  void enqueue(Node& node) {
    node.previous = last_;
    node.next = nullptr;
    (last_ != nullptr ? last_->next : first_) = &node;
    last_ = &node;
    node.queued = true;
    ++size_;
  }
  void unlink(Node& node) {
    (node.previous != nullptr ? node.previous->next : first_) = node.next;
    (node.next != nullptr ? node.next->previous : last_) = node.previous;
    node.previous = node.next = nullptr;
    node.queued = false;
    --size_;
  }

  Node* first_ = nullptr;
  Node* last_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace parley
