// The ssh transport's ControlPath directory: a control socket there is a way into every connection to a node, so a
// directory another user owns or others can write is refused before any ssh runs (posix/private_dir.h).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "transport/transport.h"

namespace muster::transport {
namespace {

TEST(SshTransport, RefusesAControlDirectoryOthersCanWrite) {
  char pattern[] = "/tmp/muster-ssh-control.XXXXXX";
  std::string scratch = ::mkdtemp(pattern);
  std::string control = scratch + "/ssh";
  std::filesystem::create_directory(control);
  ::chmod(control.c_str(), 0777);  // as if another user made it first, for everyone
  SshOptions options;
  options.control_dir = control;
  auto transport = make_ssh_transport(SelfBinary{"/bin/false", "0000000000000000", 1, std::string(64, '0')}, options);
  auto started = transport->start(AgentTarget{"node1", "node1.invalid", {}});
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("refusing " + control + ": it is writable by its group or others (mode 777)"),
            std::string::npos)
      << started.error().message;
  std::filesystem::remove_all(scratch);
}

}  // namespace
}  // namespace muster::transport
