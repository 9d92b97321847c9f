/// \file
/// DribblingServer: a fake Redis on 127.0.0.1 for the tests of bounded
/// commands. It answers the first command of each connection with a fixed
/// reply, `chunk` bytes at a time with `pause` between chunks, then keeps the
/// connection open and silent until the client closes it. Why not the real
/// redis-server (redis_server.h): no real server sends slowly on purpose or
/// announces a value it does not have.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <doctest/doctest.h>

namespace theano::test {

class DribblingServer {
 public:
  DribblingServer(std::string reply, std::size_t chunk, std::chrono::milliseconds pause)
      : reply_(std::move(reply)), chunk_(chunk), pause_(pause) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(listen_fd_ >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(listen_fd_, 8) == 0);
    socklen_t len = sizeof a;
    REQUIRE(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~DribblingServer() {
    stop_ = true;
    thread_.join();
    ::close(listen_fd_);
  }
  DribblingServer(const DribblingServer&) = delete;
  DribblingServer& operator=(const DribblingServer&) = delete;

  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  /// Reply bytes sent so far, over all connections.
  std::size_t sent() const { return sent_; }

 private:
  /// Waits up to 20 ms for `events` on `fd`; false when the server stops.
  bool ready(int fd, short events) const {
    while (!stop_) {
      pollfd p{fd, events, 0};
      if (::poll(&p, 1, 20) > 0) return true;
    }
    return false;
  }

  void serve() {
    while (ready(listen_fd_, POLLIN)) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      char buf[4096];
      if (ready(fd, POLLIN) && ::recv(fd, buf, sizeof buf, 0) > 0) {  // the command
        for (std::size_t at = 0; at < reply_.size() && !stop_; at += chunk_) {
          const std::size_t n = std::min(chunk_, reply_.size() - at);
          if (::send(fd, reply_.data() + at, n, MSG_NOSIGNAL) != static_cast<ssize_t>(n)) break;
          sent_ += n;
          for (auto t = std::chrono::steady_clock::now() + pause_; !stop_ && std::chrono::steady_clock::now() < t;)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        while (ready(fd, POLLIN) && ::recv(fd, buf, sizeof buf, 0) > 0) {  // silent until the client closes
        }
      }
      ::close(fd);
    }
  }

  std::string reply_;
  std::size_t chunk_;
  std::chrono::milliseconds pause_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> sent_{0};
  std::thread thread_;
};

}  // namespace theano::test
