// CurlTransport: HTTP POSTs on libcurl multi handles, driven from the EventLoop thread.
// curl tells us which sockets to watch (CURLMOPT_SOCKETFUNCTION) and when its next timeout is
// due (CURLMOPT_TIMERFUNCTION); we keep those sockets in our own epoll set and hand curl only
// the sockets that are ready, so a wake-up costs O(active sockets), not O(transfers in flight).
// Easy handles are pooled, configured once, and the connection caches are large, so connections
// stay alive. A transfer whose CancelSignal fires is taken out of its multi at once: libcurl closes
// a connection it removes a transfer from before completion (multi_done with `premature` on an
// HTTP/1.1 connection disconnects it rather than caching it), so the server sees the client go
// and no half-used connection is reused.

#include <curl/curl.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <coroutine>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "curl_library.h"
#include "http_support.h"
#include "parley/llm_client.h"
#include "parley/version.h"
#include "waitable_transport.h"

namespace parley {
namespace {

using Clock = std::chrono::steady_clock;

class CurlTransport;

// One libcurl multi handle and its next timeout. See CurlTransport for why there are several.
struct Shard {
  CurlTransport* owner = nullptr;
  std::uint32_t index = 0;
  CURLM* multi = nullptr;
  std::optional<Clock::time_point> deadline;  // from CURLMOPT_TIMERFUNCTION
  std::size_t in_flight = 0;
};

struct Transfer;

// A pooled easy handle and what stays with it between transfers. The options that never change
// (callbacks, their data, the error buffer, the receive buffer's size) are set once, when the
// handle is made; a transfer sets only its own, and the URL and header list only when they differ
// from the last ones (resetting and reconfiguring every handle cost more than the transfer).
struct EasyHandle {
  const CurlLibrary* curl = nullptr;
  CURL* easy = nullptr;
  Transfer* transfer = nullptr;         // the transfer it carries, while curl has it
  std::string url;                      // the URL curl was last given
  const curl_slist* headers = nullptr;  // the header list curl was last given
  char error[CURL_ERROR_SIZE] = {};

  EasyHandle() = default;
  EasyHandle(const EasyHandle&) = delete;
  EasyHandle& operator=(const EasyHandle&) = delete;
  ~EasyHandle() {
    if (easy != nullptr) curl->easy_cleanup(easy);
  }
};

// One POST in flight. Lives in the awaiting coroutine's frame; curl reaches it through its
// EasyHandle (CURLOPT_PRIVATE and the callbacks' user data).
struct Transfer {
  Shard* shard = nullptr;        // set while curl holds the easy handle
  EasyHandle* handle = nullptr;  // likewise
  Transfer* previous = nullptr;  // the transport's list of transfers in flight
  Transfer* next = nullptr;
  HttpRequest request;
  HttpResponse response;
  std::coroutine_handle<> waiter;
  Clock::time_point started;
  bool too_large = false;  // the body passed request.max_response_bytes; on_body stopped it
  int sends = 0;           // times curl sent the request (on_send)
  CancelSignal::Subscription cancel_subscription;  // to request.cancel while curl has it

  Transfer() = default;
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;
  ~Transfer();
};

// Transfers are spread over a few multi handles. libcurl 7.x walks a multi's whole connection
// cache when it picks a connection and again when it removes a finished handle, so with one
// multi the cost per request grows with the number of connections (10,000 in flight made it
// quadratic). Each shard has its own cache; a new transfer goes to the least busy shard
// (the first on ties, so sequential requests keep reusing one connection).
class CurlTransport final : public WaitableTransport {
 public:
  static constexpr std::uint32_t kShards = 8;
  // curl reads a response through one buffer per easy handle, 16 KiB by default: with ten
  // thousand transfers in flight that alone was a third of the heap. Replies are mostly a few KiB;
  // a longer one takes a few more reads.
  static constexpr long kReceiveBufferBytes = 4096;

  explicit CurlTransport(EventLoop& loop) : loop_(loop), curl_(curl_library()) {
    const rlim_t open_files = http::raise_open_file_limit_once();
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
    // Keep every connection we opened for reuse (curl's default cache is tiny), leaving
    // descriptors to spare; per-host limits are the clients' semaphores, not curl's.
    const long spare = 512;
    const long max_connects =
        std::clamp(static_cast<long>(std::min<rlim_t>(open_files, 1 << 20)) - spare, 512L, 16384L) / kShards;
    for (std::uint32_t i = 0; i < kShards; ++i) {
      auto shard = std::make_unique<Shard>();
      shard->owner = this;
      shard->index = i;
      shard->multi = curl_.multi_init();
      if (shard->multi == nullptr) {
        cleanup();
        throw std::runtime_error("curl_multi_init failed");
      }
      curl_.multi_setopt(shard->multi, CURLMOPT_SOCKETFUNCTION, &CurlTransport::on_socket);
      curl_.multi_setopt(shard->multi, CURLMOPT_SOCKETDATA, shard.get());
      curl_.multi_setopt(shard->multi, CURLMOPT_TIMERFUNCTION, &CurlTransport::on_timer);
      curl_.multi_setopt(shard->multi, CURLMOPT_TIMERDATA, shard.get());
      curl_.multi_setopt(shard->multi, CURLMOPT_MAXCONNECTS, max_connects);
      shards_.push_back(std::move(shard));
    }
  }

  ~CurlTransport() override { cleanup(); }

  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  Async<HttpResponse> post(HttpRequest request) override {
    Transfer transfer;
    transfer.request = std::move(request);
    co_await Start{this, &transfer};
    co_return std::move(transfer.response);
  }

  std::size_t in_flight() const override { return in_flight_; }
  bool busy() const override { return in_flight_ > 0; }
  int wait_fd() const override { return epoll_fd_; }
  std::optional<Clock::time_point> next_deadline() const override {
    std::optional<Clock::time_point> earliest;
    for (const auto& shard : shards_) {
      if (shard->deadline && (!earliest || *shard->deadline < *earliest)) earliest = shard->deadline;
    }
    return earliest;
  }

  void poll(std::chrono::milliseconds max_wait) override {
    const auto wait = http::wait_before(max_wait, next_deadline());
    const int ready = epoll_wait(epoll_fd_, events_.data(), static_cast<int>(events_.size()),
                                 static_cast<int>(wait.count()));
    int running = 0;
    for (int i = 0; i < ready; ++i) {
      const epoll_event& event = events_[static_cast<std::size_t>(i)];
      int flags = 0;
      // On error or hang-up let curl try both directions so it sees the real socket error.
      if (event.events & (EPOLLIN | EPOLLERR | EPOLLHUP)) flags |= CURL_CSELECT_IN;
      if (event.events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) flags |= CURL_CSELECT_OUT;
      Shard& shard = *shards_[event.data.u64 >> 32];
      curl_.multi_socket_action(shard.multi, static_cast<curl_socket_t>(event.data.u64 & 0xffffffffU), flags,
                               &running);
    }
    for (const auto& shard : shards_) {
      if (shard->deadline && Clock::now() >= *shard->deadline) {
        shard->deadline.reset();  // before the call: curl may set a new one from inside it
        curl_.multi_socket_action(shard->multi, CURL_SOCKET_TIMEOUT, 0, &running);
      }
      if (shard->in_flight > 0) finish_completed(*shard);
    }
  }

  void cancel() override {
    while (Transfer* transfer = first_) {
      detach(*transfer);  // unlinks it
      transfer->response = cancelled_response(transfer->started);
      loop_.post(transfer->waiter);
    }
  }

  // The transfer's signal fired: curl drops it, and its connection with it (see the top).
  // The response keeps its resends: a request sent again before it was cancelled was sent twice.
  void cancel_transfer(Transfer& transfer) {
    detach(transfer);
    transfer.response =
        cancelled_response(transfer.started, http::cancelled_message(*transfer.request.cancel));
    transfer.response.resends = std::max(transfer.sends - 1, 0);
    loop_.post(transfer.waiter);
  }

  // The coroutine frame holding `transfer` is being destroyed while curl still has it.
  void abandon(Transfer& transfer) { detach(transfer); }

 private:
  struct Start {
    CurlTransport* transport;
    Transfer* transfer;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> waiter) {
      transfer->waiter = waiter;
      return transport->start(*transfer);
    }
    void await_resume() const noexcept {}
  };

  // A list of request headers and the curl list sent for it.
  struct HeaderList {
    std::vector<std::string> lines;
    curl_slist* list = nullptr;
  };

  void cleanup() {
    for (Transfer* transfer = first_; transfer != nullptr; transfer = transfer->next) {
      transfer->cancel_subscription.reset();
      curl_.multi_remove_handle(transfer->shard->multi, transfer->handle->easy);
      transfer->shard = nullptr;
      transfer->handle = nullptr;
    }
    first_ = nullptr;
    in_flight_ = 0;
    handles_.clear();
    idle_.clear();
    for (const auto& shard : shards_) curl_.multi_cleanup(shard->multi);
    shards_.clear();
    for (const HeaderList& headers : header_lists_) curl_.slist_free_all(headers.list);
    header_lists_.clear();
    close(epoll_fd_);
  }

  Shard& least_busy_shard() {
    Shard* best = shards_.front().get();
    for (const auto& shard : shards_) {
      if (shard->in_flight < best->in_flight) best = shard.get();
    }
    return *best;
  }

  static HttpResponse cancelled_response(Clock::time_point started,
                                         std::string message = "the run was stopped") {
    HttpResponse response;
    response.failure = HttpResponse::Failure::kCancelled;
    response.failure_message = std::move(message);
    response.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    return response;
  }

  // Takes the transfer back from curl, its easy handle returned to the pool.
  void detach(Transfer& transfer) {
    transfer.cancel_subscription.reset();
    curl_.multi_remove_handle(transfer.shard->multi, transfer.handle->easy);
    transfer.handle->transfer = nullptr;
    idle_.push_back(transfer.handle);
    --transfer.shard->in_flight;
    transfer.handle = nullptr;
    transfer.shard = nullptr;
    (transfer.previous != nullptr ? transfer.previous->next : first_) = transfer.next;
    if (transfer.next != nullptr) transfer.next->previous = transfer.previous;
    transfer.previous = transfer.next = nullptr;
    --in_flight_;
  }

  // Hands the transfer to curl; false (with response.failure set) when that is impossible.
  bool start(Transfer& transfer) {
    transfer.started = Clock::now();
    if (loop_.cancelled()) {
      transfer.response = cancelled_response(transfer.started);
      return false;  // the awaiting coroutine continues at once
    }
    const HttpRequest& request = transfer.request;
    if (request.cancel != nullptr && request.cancel->fired()) {
      transfer.response = cancelled_response(transfer.started, http::cancelled_message(*request.cancel));
      return false;
    }
    const curl_slist* headers = header_list(request.headers);
    if (headers == nullptr) return fail_to_start(transfer, "curl_slist_append failed");
    EasyHandle* handle = acquire_handle();
    if (handle == nullptr) return fail_to_start(transfer, "curl_easy_init failed");
    CURL* easy = handle->easy;
    if (handle->url != request.url) {
      handle->url.assign(request.url);  // curl copies it; the copy here only tells it apart
      curl_.easy_setopt(easy, CURLOPT_URL, handle->url.c_str());
    }
    if (handle->headers != headers) {
      handle->headers = headers;
      curl_.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    }
    curl_.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    // The caller keeps the body alive until post() completes. Never a null pointer: curl would
    // read the body from stdin.
    curl_.easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.empty() ? "" : request.body.data());
    curl_.easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<long long>(request.timeout.count(), 0)));
    curl_.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(std::max<long long>(request.connect_timeout.count(), 0)));
    // A declared Content-Length over the limit fails before any body arrives; on_body stops the rest.
    curl_.easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(request.max_response_bytes));
    handle->error[0] = '\0';
    handle->transfer = &transfer;

    Shard& shard = least_busy_shard();
    const CURLMcode added = curl_.multi_add_handle(shard.multi, easy);
    if (added != CURLM_OK) {
      handle->transfer = nullptr;
      idle_.push_back(handle);
      return fail_to_start(transfer, std::string("curl_multi_add_handle: ") + curl_.multi_strerror(added));
    }
    transfer.handle = handle;
    transfer.shard = &shard;
    ++shard.in_flight;
    transfer.next = first_;
    if (first_ != nullptr) first_->previous = &transfer;
    first_ = &transfer;
    ++in_flight_;
    // Runs from CancelSignal::fire, on the loop thread, between coroutines (never inside a curl
    // call, where removing a handle is refused). detach() unsubscribes, however the transfer ends.
    if (request.cancel != nullptr)
      transfer.cancel_subscription =
          request.cancel->subscribe([this, &transfer] { cancel_transfer(transfer); });
    return true;
  }

  // The curl list for `lines`, built the first time they are sent: clients send the same few
  // lists with every request. Each ends in "Expect:" (without it curl waits up to a second for
  // "100 Continue" before larger bodies) and parley's User-Agent (a header rather than
  // CURLOPT_USERAGENT, which curl formats anew for every transfer). nullptr when out of memory.
  const curl_slist* header_list(std::span<const std::string> lines) {
    for (const HeaderList& known : header_lists_) {
      if (std::equal(known.lines.begin(), known.lines.end(), lines.begin(), lines.end())) return known.list;
    }
    HeaderList built{{lines.begin(), lines.end()}, nullptr};
    std::vector<std::string> sent = built.lines;
    sent.emplace_back("Expect:");
    if (std::none_of(lines.begin(), lines.end(),
                     [](const std::string& line) { return http::header_named(line, "user-agent"); }))
      sent.emplace_back("User-Agent: parley/" PARLEY_VERSION);
    for (const std::string& line : sent) {
      curl_slist* appended = curl_.slist_append(built.list, line.c_str());
      if (appended == nullptr) {
        curl_.slist_free_all(built.list);
        return nullptr;
      }
      built.list = appended;
    }
    header_lists_.push_back(std::move(built));
    return header_lists_.back().list;
  }

  static bool fail_to_start(Transfer& transfer, std::string message) {
    transfer.response.failure = HttpResponse::Failure::kConnection;
    transfer.response.failure_message = std::move(message);
    return false;  // the awaiting coroutine continues at once
  }

  void finish_completed(Shard& shard) {
    // Drain the queue first: curl_multi_remove_handle scans the unread messages, so removing
    // while many remain queued would cost O(completions^2) per wake-up.
    completed_.clear();
    int queued = 0;
    while (CURLMsg* message = curl_.multi_info_read(shard.multi, &queued)) {
      if (message->msg == CURLMSG_DONE) completed_.emplace_back(message->easy_handle, message->data.result);
    }
    for (const auto& [easy, result] : completed_) {
      char* private_data = nullptr;
      curl_.easy_getinfo(easy, CURLINFO_PRIVATE, &private_data);
      Transfer* transfer = reinterpret_cast<EasyHandle*>(private_data)->transfer;
      HttpResponse& response = transfer->response;
      response.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - transfer->started).count();
      response.resends = std::max(transfer->sends - 1, 0);
      if (result == CURLE_OK) {
        long status = 0;
        curl_.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        response.status = static_cast<int>(status);
      } else {
        // Only complete responses count; a status seen before a reset is not one.
        response.status = 0;
        response.retry_after_s.reset();
        std::string().swap(response.body);  // a part of a reply is no reply; free it at once
        if (transfer->too_large || result == CURLE_FILESIZE_EXCEEDED) {
          response.failure = HttpResponse::Failure::kTooLarge;
          response.failure_message =
              "reply larger than " + std::to_string(transfer->request.max_response_bytes) + " bytes";
        } else {
          response.failure = result == CURLE_OPERATION_TIMEDOUT ? HttpResponse::Failure::kTimeout
                                                                : HttpResponse::Failure::kConnection;
          std::string detail = http::one_line(transfer->handle->error);
          response.failure_message = detail.empty() ? curl_.easy_strerror(result)
                                                    : std::string(curl_.easy_strerror(result)) + ": " + detail;
        }
      }
      detach(*transfer);
      loop_.post(transfer->waiter);
    }
  }

  // An idle handle, or a new one configured once; nullptr when curl cannot make one.
  EasyHandle* acquire_handle() {
    if (!idle_.empty()) {
      EasyHandle* handle = idle_.back();
      idle_.pop_back();
      return handle;
    }
    auto handle = std::make_unique<EasyHandle>();
    handle->curl = &curl_;
    handle->easy = curl_.easy_init();
    if (handle->easy == nullptr) return nullptr;
    CURL* easy = handle->easy;
    curl_.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_.easy_setopt(easy, CURLOPT_BUFFERSIZE, kReceiveBufferBytes);
    curl_.easy_setopt(easy, CURLOPT_WRITEFUNCTION, &CurlTransport::on_body);
    curl_.easy_setopt(easy, CURLOPT_WRITEDATA, handle.get());
    curl_.easy_setopt(easy, CURLOPT_HEADERFUNCTION, &CurlTransport::on_header);
    curl_.easy_setopt(easy, CURLOPT_HEADERDATA, handle.get());
    curl_.easy_setopt(easy, CURLOPT_ERRORBUFFER, handle->error);
    curl_.easy_setopt(easy, CURLOPT_PRIVATE, handle.get());
    curl_.easy_setopt(easy, CURLOPT_PREREQFUNCTION, &CurlTransport::on_send);
    curl_.easy_setopt(easy, CURLOPT_PREREQDATA, handle.get());
    handles_.push_back(std::move(handle));
    return handles_.back().get();
  }

  static std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    Transfer* transfer = static_cast<EasyHandle*>(user)->transfer;
    std::string& body = transfer->response.body;
    if (size * count > transfer->request.max_response_bytes - body.size()) {
      transfer->too_large = true;
      return 0;  // a short count makes curl abort the transfer
    }
    body.append(data, size * count);
    return size * count;
  }

  // Called each time curl is about to send the request on a connection: more than once when
  // the kept-alive connection it used was closed by the server without a reply and curl sent
  // the request again on a new one.
  static int on_send(void* user, char* /*remote_ip*/, char* /*local_ip*/, int /*remote_port*/, int /*local_port*/) {
    ++static_cast<EasyHandle*>(user)->transfer->sends;
    return CURL_PREREQFUNC_OK;
  }

  static std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    Transfer* transfer = static_cast<EasyHandle*>(user)->transfer;
    std::string_view line(data, size * count);
    if (line.starts_with("HTTP/")) {
      transfer->response.retry_after_s.reset();  // a new response (after a 1xx) starts over
    } else if (http::header_named(line, "retry-after")) {
      if (auto seconds = http::retry_after_seconds(line.substr(std::string_view("retry-after:").size()))) {
        transfer->response.retry_after_s = seconds;
      }
    }
    return size * count;
  }

  static int on_socket(CURL* /*easy*/, curl_socket_t socket, int what, void* user, void* socket_data) {
    auto* shard = static_cast<Shard*>(user);
    const int epoll_fd = shard->owner->epoll_fd_;
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(epoll_fd, EPOLL_CTL_DEL, socket, nullptr);  // may already be closed
      return 0;
    }
    epoll_event event{};
    event.data.u64 = (static_cast<std::uint64_t>(shard->index) << 32) | static_cast<std::uint32_t>(socket);
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) event.events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) event.events |= EPOLLOUT;
    // socket_data marks sockets already in the set; fall back if the kernel disagrees.
    const bool known = socket_data != nullptr;
    if (epoll_ctl(epoll_fd, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, socket, &event) != 0) {
      epoll_ctl(epoll_fd, known ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, socket, &event);
    }
    if (!known) shard->owner->curl_.multi_assign(shard->multi, socket, shard);
    return 0;
  }

  static int on_timer(CURLM* /*multi*/, long timeout_ms, void* user) {
    auto* shard = static_cast<Shard*>(user);
    if (timeout_ms < 0) {
      shard->deadline.reset();
    } else {
      shard->deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    }
    return 0;
  }

  EventLoop& loop_;
  const CurlLibrary& curl_;
  int epoll_fd_ = -1;
  std::vector<std::unique_ptr<Shard>> shards_;  // stable addresses: curl holds them
  Transfer* first_ = nullptr;                   // the transfers in flight, linked
  std::size_t in_flight_ = 0;
  std::vector<std::unique_ptr<EasyHandle>> handles_;  // every handle made; stable addresses
  std::vector<EasyHandle*> idle_;
  std::vector<HeaderList> header_lists_;
  std::vector<std::pair<CURL*, CURLcode>> completed_;
  std::array<epoll_event, 1024> events_{};
};

Transfer::~Transfer() {
  if (shard != nullptr) shard->owner->abandon(*this);
}

}  // namespace

std::unique_ptr<WaitableTransport> make_waitable_curl_transport(EventLoop& loop) {
  return std::make_unique<CurlTransport>(loop);
}

std::unique_ptr<HttpTransport> make_curl_transport(EventLoop& loop) { return make_waitable_curl_transport(loop); }

}  // namespace parley
