#pragma once
// A blocking HTTP/1.1 client on a raw loopback socket, for the server's tests: it sends exactly
// the bytes it is given and reads responses (Content-Length, chunked or to the close) one at a
// time, so a test can pipeline, stall, half-close or reset as it likes. Runs on a test thread,
// never on the loop's. Every read gives up after five seconds (the test then fails, not hangs).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace parley::serve::testing {

struct Response {
  int status = 0;
  std::string head;                            // status line and headers, as received
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;                            // de-chunked

  std::string header(const std::string& name) const {
    const auto found = headers.find(name);
    return found == headers.end() ? "" : found->second;
  }
};

class Client {
 public:
  // receive_buffer > 0: the socket's receive buffer (so that a client that does not read stops
  // the server's output soon).
  explicit Client(std::uint16_t port, int family = AF_INET, int receive_buffer = 0) {
    fd_ = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (receive_buffer > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    const timeval timeout{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    int connected = -1;
    if (family == AF_INET6) {
      sockaddr_in6 address{};
      address.sin6_family = AF_INET6;
      address.sin6_port = htons(port);
      address.sin6_addr = in6addr_loopback;
      connected = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    } else {
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(port);
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      connected = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    }
    connected_ = connected == 0;
  }
  // A client on a socket connected already.
  static Client adopting(int connected_fd) { return Client(connected_fd); }
  ~Client() { close(); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }

  // False when the connection broke before all of it was sent.
  bool send(const std::string& bytes) {
    for (std::size_t sent = 0; sent < bytes.size();) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  // The next response; status 0 when the connection ended (or timed out) before its head.
  // `head_request`: the response to a HEAD has no body whatever its headers say.
  Response read_response(bool head_request = false) {
    Response response;
    response.head = read_head();
    if (response.head.empty()) return response;
    response.status = std::stoi(response.head.substr(9, 3));
    for (std::size_t line = response.head.find("\r\n") + 2; line < response.head.size();) {
      const std::size_t line_end = response.head.find("\r\n", line);
      const std::string header = response.head.substr(line, line_end - line);
      const std::size_t colon = header.find(':');
      std::string name = header.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const std::size_t value = header.find_first_not_of(' ', colon + 1);
      response.headers[name] = value == std::string::npos ? "" : header.substr(value);
      line = line_end + 2;
    }
    if (head_request || response.status / 100 == 1 || response.status == 204 || response.status == 304)
      return response;
    if (response.header("transfer-encoding") == "chunked") {
      while (auto chunk = read_chunk()) {
        if (chunk->empty()) break;
        response.body += *chunk;
      }
    } else if (!response.header("content-length").empty()) {
      const std::size_t length = std::stoul(response.header("content-length"));
      while (buffer_.size() < length) {
        if (!fill()) break;
      }
      response.body = buffer_.substr(0, length);
      buffer_.erase(0, response.body.size());
    } else {
      while (fill()) {
      }
      response.body = std::move(buffer_);
      buffer_.clear();
    }
    return response;
  }

  // The next response's status line and headers (without the blank line); "" when the
  // connection ended first.
  std::string read_head() {
    std::size_t end = std::string::npos;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return "";
    }
    std::string head = buffer_.substr(0, end + 2);
    buffer_.erase(0, end + 4);
    return head;
  }

  // One chunk of a chunked body: its data, "" for the last chunk, nullopt when the connection
  // ended first.
  std::optional<std::string> read_chunk() {
    std::size_t line_end = std::string::npos;
    while ((line_end = buffer_.find("\r\n")) == std::string::npos) {
      if (!fill()) return std::nullopt;
    }
    const std::size_t size = std::stoul(buffer_.substr(0, line_end), nullptr, 16);
    const std::size_t need = line_end + 2 + size + 2;
    while (buffer_.size() < need) {
      if (!fill()) return std::nullopt;
    }
    std::string data = buffer_.substr(line_end + 2, size);
    buffer_.erase(0, need);
    return data;
  }

  // Reads until the connection ends; true when it ended with a close (not a timeout or reset),
  // and `rest` (when given) gets what came before it.
  bool closed_by_peer(std::string* rest = nullptr) {
    while (fill()) {
    }
    if (rest != nullptr) *rest = buffer_;
    return last_recv_ == 0;
  }
  // Reads whatever comes next into the buffer the read_* functions take from; false at the end.
  bool read_more() { return fill(); }

  // The errno of the last failed read (ECONNRESET after a reset).
  int last_error() const { return last_error_; }

  // From now on each read takes at most `piece` bytes, after a pause: a slow reader.
  void read_slowly(std::size_t piece, std::chrono::milliseconds pause) {
    piece_ = piece;
    pause_ = pause;
  }

  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }
  // Closes with a reset (RST) instead of a FIN.
  void reset() {
    const linger abort_on_close{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
    close();
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  explicit Client(int connected_fd) : fd_(connected_fd), connected_(true) {
    const timeval timeout{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }

  bool fill() {
    char chunk[65536];
    if (pause_.count() > 0) std::this_thread::sleep_for(pause_);
    const ssize_t n = ::recv(fd_, chunk, std::min(sizeof chunk, piece_), 0);
    last_recv_ = n;
    if (n < 0) last_error_ = errno;
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
  ssize_t last_recv_ = 1;
  std::size_t piece_ = 65536;
  std::chrono::milliseconds pause_{0};
  int last_error_ = 0;
};

}  // namespace parley::serve::testing
