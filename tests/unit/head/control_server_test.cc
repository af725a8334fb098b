// The control socket, for real: a listener in a temporary directory, clients connected with control_request or
// a raw socket, the server driven by hand as the launcher's loop drives it.
#include "head/control_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "posix/fd.h"
#include "posix/unix_socket.h"

namespace muster::head {
namespace {

class ControlServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/muster-control-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    auto server = ControlServer::open(dir_ + "/c.sock");
    ASSERT_TRUE(server);
    server_.emplace(std::move(*server));
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  // A connected client and the server's fd for it.
  std::pair<posix::Fd, int> connect() {
    auto client = posix::connect_unix(dir_ + "/c.sock");
    EXPECT_TRUE(client);
    std::vector<int> accepted;
    for (int i = 0; i < 100 && accepted.empty(); ++i) {
      accepted = server_->on_listen_readable();
      if (accepted.empty()) ::usleep(1000);
    }
    EXPECT_EQ(accepted.size(), 1u);
    return {std::move(*client), accepted.empty() ? -1 : accepted[0]};
  }
  void write_text(int fd, const std::string& text) {
    ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  std::string read_all(int fd) {
    std::string in;
    char buffer[65536];
    while (true) {
      ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n <= 0) return in;
      in.append(buffer, static_cast<size_t>(n));
    }
  }

  std::string dir_;
  std::optional<ControlServer> server_;
};

TEST_F(ControlServerTest, SocketIsOwnerOnlyAndRemovedWithTheServer) {
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/c.sock").c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  server_.reset();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/c.sock"));
}

TEST_F(ControlServerTest, RequestsComeLineByLineAndRepliesGoBack) {
  auto [client, fd] = connect();
  write_text(client.get(), "{\"op\": \"a\"}\n{\"op\"");
  ::usleep(10000);
  EXPECT_TRUE(server_->on_client_ready(fd));
  auto requests = server_->take_requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body["op"], "a");
  write_text(client.get(), ": \"b\"}\nnot json\n");
  ::usleep(10000);
  EXPECT_TRUE(server_->on_client_ready(fd));
  requests = server_->take_requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body["op"], "b");
  server_->reply(fd, {{"ok", true}});
  ASSERT_TRUE(posix::set_nonblocking(client.get()));
  EXPECT_EQ(read_all(client.get()), "{\"error\":\"not a JSON object\",\"ok\":false}\n{\"ok\":true}\n");
}

TEST_F(ControlServerTest, CloseWhenFlushedSendsWhatIsQueuedThenCloses) {
  auto [client, fd] = connect();
  server_->reply_line(fd, "{\"e\":\"end\"}\n");
  server_->close_when_flushed(fd);
  EXPECT_FALSE(server_->has(fd));  // everything fitted in the socket buffer: closed at once
  EXPECT_EQ(read_all(client.get()), "{\"e\":\"end\"}\n");
}

TEST_F(ControlServerTest, AClientThatReadsNothingQueuesAndLosesOnlyWhatWasNotStarted) {
  auto [client, fd] = connect();
  std::string line = "{\"t\":\"" + std::string(1000, 'x') + "\"}\n";
  for (int i = 0; i < 10'000; ++i) server_->reply_line(fd, line);  // ~10 MB: more than any socket buffer
  size_t queued = server_->pending_bytes(fd);
  EXPECT_GT(queued, 1'000'000u);
  EXPECT_TRUE(server_->has(fd));
  server_->discard_unsent(fd);
  EXPECT_LE(server_->pending_bytes(fd), line.size());  // at most the rest of the line being sent
  server_->reply_line(fd, "{\"e\":\"dropped\"}\n");
  server_->close_when_flushed(fd);
  ASSERT_TRUE(server_->has(fd));  // the socket is still full
  EXPECT_TRUE(server_->closing(fd));
  // The client reads: every line it gets is whole, the last is the reason, then the server closes it.
  std::string got;
  char buffer[65536];
  for (int round = 0; round < 10'000 && server_->has(fd); ++round) {
    ssize_t n = ::read(client.get(), buffer, sizeof(buffer));
    if (n > 0) got.append(buffer, static_cast<size_t>(n));
    (void)server_->on_client_ready(fd);
  }
  EXPECT_FALSE(server_->has(fd));
  got += read_all(client.get());
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.back(), '\n');
  size_t last = got.rfind('\n', got.size() - 2);
  EXPECT_EQ(got.substr(last + 1), "{\"e\":\"dropped\"}\n");
  for (size_t start = 0; start < last + 1;) {
    size_t end = got.find('\n', start);
    EXPECT_EQ(got.substr(start, end + 1 - start), line) << "a line cut at " << start;
    start = end + 1;
  }
}

TEST_F(ControlServerTest, AClientThatHangsUpIsForgotten) {
  auto [client, fd] = connect();
  client.reset();
  EXPECT_FALSE(server_->on_client_ready(fd));
  EXPECT_FALSE(server_->has(fd));
  server_->reply(fd, {{"ok", true}});  // to a client that is gone: ignored
}

}  // namespace
}  // namespace muster::head
