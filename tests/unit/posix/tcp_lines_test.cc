#include "posix/tcp_lines.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "posix/clock.h"
#include "posix/fd.h"
#include "posix/socket.h"
#include "posix/tcp_stream.h"

namespace muster::posix {
namespace {

// A listener on a free loopback port, non-blocking (as exchange_lines wants its own).
struct Listener {
  Fd fd;
  int port = 0;
};
Listener listen_free() {
  auto fd = listen_tcp(0);
  EXPECT_TRUE(fd) << fd.error().message;
  auto port = local_port(fd->get());
  EXPECT_TRUE(port);
  EXPECT_TRUE(set_nonblocking(fd->get()));
  return {std::move(*fd), *port};
}

// A server that answers every connection with `banner` (and reads nothing), `count` times.
std::thread banner_server(int listener, std::string banner, int count) {
  return std::thread([listener, banner, count] {
    for (int i = 0; i < count; ++i) {
      auto c = accept_tcp_stream(listener, 5000);
      if (!c) return;
      (void)write_all(c->get(), banner);
    }
  });
}

TEST(TcpLines, ReadsEveryServersFirstLineAndNamesWhatFailed) {
  auto a = listen_tcp(0);
  ASSERT_TRUE(a);
  int port = *local_port(a->get());
  auto server = banner_server(a->get(), "SSH-2.0-Test_1.0\r\nmore\r\n", 2);
  auto closed = pick_free_tcp_port("127.0.0.1");
  ASSERT_TRUE(closed);
  LineRound round;
  round.targets = {{"127.0.0.1", port}, {"127.0.0.1", *closed}, {"no-such-host.invalid", 22}, {"127.0.0.1", port}};
  round.timeout_ms = 5000;
  auto result = exchange_lines(round);
  server.join();
  ASSERT_EQ(result.outcomes.size(), 4u);
  EXPECT_TRUE(result.outcomes[0].answered);
  EXPECT_EQ(result.outcomes[0].line, "SSH-2.0-Test_1.0");
  EXPECT_EQ(result.outcomes[0].address, "127.0.0.1");
  EXPECT_FALSE(result.outcomes[1].answered);
  EXPECT_NE(result.outcomes[1].error.find("refused"), std::string::npos) << result.outcomes[1].error;
  EXPECT_FALSE(result.outcomes[2].answered);
  EXPECT_NE(result.outcomes[2].error.find("cannot resolve no-such-host.invalid"), std::string::npos);
  EXPECT_TRUE(result.outcomes[3].answered);
}

TEST(TcpLines, ASilentServerEndsTheRoundAtItsBound) {
  auto a = listen_tcp(0);
  ASSERT_TRUE(a);
  LineRound round;
  round.targets = {{"127.0.0.1", *local_port(a->get())}};  // the kernel accepts; nobody ever writes
  round.timeout_ms = 300;
  int64_t start = monotonic_ms();
  auto result = exchange_lines(round);
  EXPECT_LT(monotonic_ms() - start, 3000);
  EXPECT_FALSE(result.outcomes[0].answered);
  EXPECT_NE(result.outcomes[0].error.find("no answer within 1 s"), std::string::npos) << result.outcomes[0].error;
}

// Two "nodes" in one test: each serves its listener and connects to the other's, which comes up late.
TEST(TcpLines, MeshRoundsServeEachOtherAndRetryAListenerThatIsNotUpYet) {
  Listener first = listen_free();
  auto reserved = pick_free_tcp_port("127.0.0.1");
  ASSERT_TRUE(reserved);
  int second_port = *reserved;
  auto round_of = [](int listener, int peer_port) {
    LineRound round;
    round.targets = {{"127.0.0.1", peer_port}};
    round.send = "MUSTER-PROBE t\n";
    round.retry = true;
    round.ipv4_only = true;
    round.servers = {{listener, "MUSTER-PROBE t\n", "OK\n", 1}};
    round.timeout_ms = 5000;
    return round;
  };
  LineRoundResult second_result;
  std::thread second([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the first one is refused meanwhile
    auto fd = listen_tcp(second_port);
    ASSERT_TRUE(fd) << fd.error().message;
    ASSERT_TRUE(set_nonblocking(fd->get()));
    second_result = exchange_lines(round_of(fd->get(), first.port));
  });
  auto first_result = exchange_lines(round_of(first.fd.get(), second_port));
  second.join();
  EXPECT_TRUE(first_result.outcomes[0].answered) << first_result.outcomes[0].error;
  EXPECT_EQ(first_result.outcomes[0].line, "OK");
  EXPECT_EQ(first_result.accepted, std::vector<int>{1});
  EXPECT_TRUE(second_result.outcomes[0].answered) << second_result.outcomes[0].error;
  EXPECT_EQ(second_result.accepted, std::vector<int>{1});
}

TEST(TcpLines, AStrayConnectionIsNotCounted) {
  Listener own = listen_free();
  std::thread stray([port = own.port] {
    auto c = connect_tcp_stream("127.0.0.1", port, 2000);
    if (c) (void)write_all(c->get(), "GET / HTTP/1.0\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  LineRound round;
  round.servers = {{own.fd.get(), "MUSTER-PROBE t\n", "OK\n", 1}};
  round.timeout_ms = 800;
  auto result = exchange_lines(round);
  stray.join();
  EXPECT_EQ(result.accepted, std::vector<int>{0});
  EXPECT_EQ(result.strays, 1);
}

}  // namespace
}  // namespace muster::posix
