#pragma once
// TasksInFlight: the tasks of the gateway's debates admitted and not yet finished, by id. A task
// id names one task (question, options, gold, …): a request reusing the id of a task in flight
// must ask the same; a finished debate's task is in the store (Store::stored_task). On the
// loop's thread.

#include <map>
#include <string>
#include <utility>

#include "parley/task.h"

namespace parley::gateway {

// Each task with how many debates of it are in flight.
class TasksInFlight {
 public:
  const Task* find(const std::string& id) const {
    const auto found = tasks_.find(id);
    return found == tasks_.end() ? nullptr : &found->second.task;
  }

  // A debate of a task, from its admission until it is stored (or not: the client left while
  // queued, a stop, a failed store).
  class Hold {
   public:
    Hold(TasksInFlight& owner, std::string id) : owner_(owner), id_(std::move(id)) {}
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold() {
      const auto found = owner_.tasks_.find(id_);
      if (--found->second.debates == 0) owner_.tasks_.erase(found);
    }

   private:
    TasksInFlight& owner_;
    std::string id_;
  };
  [[nodiscard]] Hold hold(const Task& task) {
    ++tasks_.try_emplace(task.id, Entry{task, 0}).first->second.debates;
    return Hold(*this, task.id);
  }

 private:
  struct Entry {
    Task task;
    int debates = 0;
  };
  std::map<std::string, Entry> tasks_;
};

}  // namespace parley::gateway
