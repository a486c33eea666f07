// Coroutine frames from per-thread free lists (detail::allocate_frame in parley/async.h).
// A debate allocates and frees several frames per LLM call, all of a few sizes, with hundreds
// of debates interleaved: glibc keeps only 7 freed chunks of a size for quick reuse, so most
// frames went through its bins. Here a freed frame waits on the list of its size class and is
// handed out again first, up to kMaxPooledBytes per thread; past that, frames go back to the
// heap, so the memory of a peak (10,000 debates in flight) is not kept from everything else.
#include <cstddef>
#include <new>
#include <utility>

#include "parley/async.h"

#if defined(__SANITIZE_ADDRESS__)
#define PARLEY_FRAME_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang's spelling
#define PARLEY_FRAME_POOL 0
#endif
#endif
#ifndef PARLEY_FRAME_POOL
#define PARLEY_FRAME_POOL 1
#endif

namespace parley::detail {

#if !PARLEY_FRAME_POOL
// Under AddressSanitizer every frame is an allocation of its own, so that a use after free is caught.
void* allocate_frame(std::size_t size) { return ::operator new(size); }
void free_frame(void* frame, std::size_t) noexcept { ::operator delete(frame); }
bool frames_are_pooled() noexcept { return false; }
#else
bool frames_are_pooled() noexcept { return true; }

namespace {

// glibc's chunks are 16-byte multiples with 8 bytes of header, so malloc(n) gives
// round16(n + 8) - 8 usable bytes; a class's frames are that size, no larger than malloc's.
constexpr std::size_t kGranule = 16;
constexpr std::size_t kHeader = 8;
constexpr std::size_t kMaxPooledSize = 4096;  // its class reaches 4104; larger frames are rare
constexpr std::size_t kClasses = (kMaxPooledSize + kHeader + kGranule - 1) / kGranule + 1;
constexpr std::size_t kMaxPooledBytes = std::size_t{16} << 20;

struct FreeFrame {
  FreeFrame* next;
};

// Plain data, so that it stays usable during the thread's exit: the Reaper empties the lists,
// and a frame freed after that goes straight back to the heap.
struct FreeLists {
  FreeFrame* heads[kClasses];
  std::size_t pooled_bytes;
  bool closed;
};
thread_local FreeLists free_lists{};

struct Reaper {
  ~Reaper() {
    for (FreeFrame*& head : free_lists.heads) {
      while (head != nullptr) ::operator delete(std::exchange(head, head->next));
    }
    free_lists.closed = true;
  }
};
thread_local Reaper reaper;

std::size_t size_class(std::size_t size) { return (size + kHeader + kGranule - 1) / kGranule; }
std::size_t class_bytes(std::size_t size_class_index) { return size_class_index * kGranule - kHeader; }

}  // namespace

void* allocate_frame(std::size_t size) {
  const std::size_t size_class_index = size_class(size);
  if (size_class_index >= kClasses) return ::operator new(size);
  // A frame of a class is always of the class's size, even from the heap: another thread may
  // pool it later and hand it out for any size of the class.
  const std::size_t bytes = class_bytes(size_class_index);
  if (free_lists.closed) return ::operator new(bytes);
  if (FreeFrame* frame = free_lists.heads[size_class_index]) {
    free_lists.heads[size_class_index] = frame->next;
    free_lists.pooled_bytes -= bytes;
    return frame;
  }
  return ::operator new(bytes);
}

void free_frame(void* frame, std::size_t size) noexcept {
  const std::size_t size_class_index = size_class(size);
  const std::size_t bytes = size_class_index < kClasses ? class_bytes(size_class_index) : 0;
  if (bytes == 0 || free_lists.closed || free_lists.pooled_bytes + bytes > kMaxPooledBytes) {
    ::operator delete(frame);
    return;
  }
  (void)&reaper;  // an odr-use: constructs it on this thread, so that it frees the lists at the thread's exit
  auto* node = static_cast<FreeFrame*>(frame);
  node->next = free_lists.heads[size_class_index];
  free_lists.heads[size_class_index] = node;
  free_lists.pooled_bytes += bytes;
}
#endif

}  // namespace parley::detail
