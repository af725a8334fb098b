#include "posix/socket.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <fstream>

#include <gtest/gtest.h>

#include "posix/fd.h"

namespace muster::posix {
namespace {

Fd listen_on(int port) {
  Fd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::bind(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return Fd();
  if (::listen(sock.get(), 1) != 0) return Fd();
  return sock;
}

TEST(Socket, PickedPortIsFreeThenInUseWhileListening) {
  auto port = pick_free_tcp_port("127.0.0.1");
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_GT(*port, 0);
  EXPECT_LE(*port, 65535);
  auto before = tcp_port_in_use(*port);
  ASSERT_TRUE(before);
  EXPECT_FALSE(*before);
  {
    Fd listener = listen_on(*port);
    ASSERT_TRUE(listener.valid());
    auto during = tcp_port_in_use(*port);
    ASSERT_TRUE(during);
    EXPECT_TRUE(*during);
  }
  auto after = tcp_port_in_use(*port);
  ASSERT_TRUE(after);
  EXPECT_FALSE(*after);
}

TEST(Socket, PickOnEveryAddress) {
  auto port = pick_free_tcp_port("");
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_GT(*port, 0);
}

TEST(Socket, PickOnAnAddressThisHostDoesNotHaveFails) {
  auto port = pick_free_tcp_port("192.0.2.1");  // TEST-NET-1, never local
  ASSERT_FALSE(port);
  EXPECT_EQ(port.error().kind, ErrorKind::io);
  EXPECT_NE(port.error().message.find("192.0.2.1"), std::string::npos);
}

TEST(Socket, InvalidPortIsAUsageError) {
  for (int bad : {0, -1, 65536}) {
    auto in_use = tcp_port_in_use(bad);
    ASSERT_FALSE(in_use);
    EXPECT_EQ(in_use.error().kind, ErrorKind::usage);
  }
}

TEST(Socket, HostnameMatchesTheKernel) {
  auto name = hostname();
  ASSERT_TRUE(name);
  std::ifstream kernel("/proc/sys/kernel/hostname");
  std::string expected;
  std::getline(kernel, expected);
  EXPECT_FALSE(name->empty());
  EXPECT_EQ(*name, expected);
}

}  // namespace
}  // namespace muster::posix
