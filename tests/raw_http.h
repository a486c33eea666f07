#pragma once
// An HTTP/1.1 exchange on loopback written byte for byte, for tests of parley's servers: no client
// normalises the request's path or headers on the way (a `..`, a foreign Host, a bad method reach
// the server as written). Reads the reply to the end of the connection.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <map>
#include <string>

#include <gtest/gtest.h>

namespace parley::testing {

struct HttpReply {
  int status = 0;
  std::multimap<std::string, std::string> headers;  // names lower-cased
  std::string body;

  std::string header(const std::string& name) const {
    const auto found = headers.find(name);
    return found == headers.end() ? "" : found->second;
  }
};

// Sends `request` as it is (no client normalises its path or headers) and reads the reply to EOF.
inline HttpReply send_raw(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  HttpReply reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    ADD_FAILURE() << "cannot connect to port " << port;
    return reply;
  }
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  std::string raw;
  char buffer[65536];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) raw.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  const auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) {
    ADD_FAILURE() << "no reply head in: " << raw;
    return reply;
  }
  reply.status = std::stoi(raw.substr(9, 3));
  std::size_t line = raw.find("\r\n") + 2;
  while (line < head_end) {
    const auto end = raw.find("\r\n", line);
    const std::string header = raw.substr(line, end - line);
    const auto colon = header.find(':');
    std::string name = header.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers.emplace(name, header.substr(header.find_first_not_of(' ', colon + 1)));
    line = end + 2;
  }
  reply.body = raw.substr(head_end + 4);
  return reply;
}

}  // namespace parley::testing
