#include "config/trust.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "config/toml_reader.h"

namespace muster::config {
namespace {

namespace fs = std::filesystem;

ConfigFile file(std::string_view text, const std::string& path, const std::string& role, bool allowed) {
  auto parsed = parse_config_text(text, path, role);
  EXPECT_TRUE(parsed) << parsed.error().message;
  ConfigFile out = parsed ? *parsed : ConfigFile{};
  out.allowed = allowed;
  return out;
}

struct App {
  std::string hosts, ssh_option;
  int nproc = 0;
  CLI::App app{"launch"};
  App() {
    app.add_option("-w,--hosts", hosts);
    app.add_option("--ssh-option", ssh_option);
    app.add_option("--nproc-per-node", nproc);
    app.parse(std::vector<std::string>{});
  }
};

TEST(ConfigTrust, KeysThatRunCommandsOrSendTheJobElsewhereNeedAnAllow) {
  for (const char* key : {"ssh-option", "ssh-config", "python", "hosts", "hostfile", "user", "master-addr", "env",
                          "env-file", "env-prefix", "sync", "to", "delete", "container-image", "container",
                          "container-option", "mount", "node-cache-dir"}) {
    EXPECT_NE(why_key_needs_allow(key), nullptr) << key;
  }
  for (const char* key : {"nproc-per-node", "grace", "heartbeat-timeout", "prefix", "quiet", "fanout", "run-dir"}) {
    EXPECT_EQ(why_key_needs_allow(key), nullptr) << key;
  }
}

TEST(ConfigTrust, AProjectFileNotAllowedMaySetHarmlessKeysOnly) {
  App harmless;
  ConfigSet set;
  set.files.push_back(file("nproc-per-node = 2\n", "/p/muster.toml", "project", false));
  auto applied = apply_config(harmless.app, {"launch"}, set, "/home/u");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_TRUE(check_allowed(*applied, set));
  EXPECT_EQ(project_settings_note(*applied, set), "using /p/muster.toml: nproc-per-node");

  App risky;
  set.files[0] = file("nproc-per-node = 2\nssh-option = \"ProxyCommand=touch /tmp/x\"\nhosts = \"h\"\n",
                      "/p/muster.toml", "project", false);
  applied = apply_config(risky.app, {"launch"}, set, "/home/u");
  ASSERT_TRUE(applied) << applied.error().message;
  auto checked = check_allowed(*applied, set);
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("/p/muster.toml:2: ssh-option passes options to ssh"), std::string::npos)
      << checked.error().message;
  EXPECT_NE(checked.error().message.find("/p/muster.toml:3: hosts"), std::string::npos) << checked.error().message;
  EXPECT_NE(checked.error().message.find("muster config allow /p/muster.toml"), std::string::npos);
  EXPECT_EQ(checked.error().kind, ErrorKind::usage);
  EXPECT_EQ(keys_needing_allow(set.files[0]), "ssh-option (line 2), hosts (line 3)");

  set.files[0].allowed = true;
  EXPECT_TRUE(check_allowed(*applied, set));
}

TEST(ConfigTrust, TheUsersOwnFileNeedsNoAllow) {
  App app;
  ConfigSet set;
  set.files.push_back(file("ssh-option = \"ProxyJump=bastion\"\n", "/home/u/.config/muster/config.toml", "user", true));
  auto applied = apply_config(app.app, {"launch"}, set, "/home/u");
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_TRUE(check_allowed(*applied, set));
  EXPECT_EQ(project_settings_note(*applied, set), "");
}

TEST(ConfigTrust, RecordsArePerPathAndContentAndAChangeDropsTheOldOne) {
  fs::path dir = fs::temp_directory_path() / ("muster-trust-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string allowed = (dir / "allowed").string();
  EXPECT_FALSE(is_allowed(allowed, "/p/muster.toml", content_digest("a")));
  ASSERT_TRUE(record_allow(allowed, "/p/muster.toml", content_digest("a")));
  EXPECT_EQ(fs::status(allowed).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_TRUE(is_allowed(allowed, "/p/muster.toml", content_digest("a")));
  EXPECT_FALSE(is_allowed(allowed, "/q/muster.toml", content_digest("a")));
  EXPECT_FALSE(is_allowed(allowed, "/p/muster.toml", content_digest("b")));
  ASSERT_TRUE(record_allow(allowed, "/p/muster.toml", content_digest("b")));
  EXPECT_FALSE(is_allowed(allowed, "/p/muster.toml", content_digest("a")));  // one record per path
  EXPECT_TRUE(is_allowed(allowed, "/p/muster.toml", content_digest("b")));
  // A record others could write is no record.
  for (const auto& entry : fs::directory_iterator(allowed)) {
    fs::permissions(entry.path(), fs::perms::others_write, fs::perm_options::add);
  }
  EXPECT_FALSE(is_allowed(allowed, "/p/muster.toml", content_digest("b")));
  auto revoked = revoke_allows(allowed, "/p/muster.toml");
  ASSERT_TRUE(revoked);
  EXPECT_EQ(*revoked, 1);
  fs::remove_all(dir);
}

TEST(ConfigTrust, AllowDirFromXdgStateHomeElseHome) {
  EXPECT_EQ(allow_dir("/s", "/home/u"), "/s/muster/allowed");
  EXPECT_EQ(allow_dir("relative", "/home/u"), "/home/u/.local/state/muster/allowed");
  EXPECT_EQ(allow_dir(nullptr, ""), "");
}

}  // namespace
}  // namespace muster::config
