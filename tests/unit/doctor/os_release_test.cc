#include "doctor/node/os_release.h"

#include <gtest/gtest.h>

#include "doctor/node/filesystem_type.h"

namespace muster::doctor {
namespace {

TEST(OsRelease, Debian12) {
  auto release = parse_os_release(
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
      "VERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\nHOME_URL=\"https://www.debian.org/\"\n");
  EXPECT_EQ(release.id, "debian");
  EXPECT_EQ(release.version_id, "12");
  EXPECT_EQ(release.pretty_name, "Debian GNU/Linux 12 (bookworm)");
}

TEST(OsRelease, QuotingCommentsAndJunk) {
  auto release = parse_os_release(
      "# comment\n\nnot a line\nID='rocky'\nVERSION_ID=9.3\nPRETTY_NAME=\"Say \\\"hi\\\" \\\\ \\$HOME\"\r\n");
  EXPECT_EQ(release.id, "rocky");
  EXPECT_EQ(release.version_id, "9.3");
  EXPECT_EQ(release.pretty_name, "Say \"hi\" \\ $HOME");
  EXPECT_EQ(parse_os_release("").id, "");
}

TEST(FilesystemType, KnownAndUnknownMagics) {
  EXPECT_EQ(filesystem_type_name(0xEF53), "ext4");
  EXPECT_EQ(filesystem_type_name(0x6969), "nfs");
  EXPECT_EQ(filesystem_type_name(0x01021994), "tmpfs");
  EXPECT_EQ(filesystem_type_name(0x794C7630), "overlay");
  EXPECT_EQ(filesystem_type_name(0x0BD00BD0), "lustre");
  EXPECT_EQ(filesystem_type_name(0x47504653), "gpfs");
  EXPECT_EQ(filesystem_type_name(0x1234abcd), "0x1234abcd");
  EXPECT_TRUE(is_network_filesystem("nfs"));
  EXPECT_FALSE(is_network_filesystem("ext4"));
}

}  // namespace
}  // namespace muster::doctor
