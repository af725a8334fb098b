#include "transport/ssh_command.h"

#include <fmt/core.h>

#include "util/shell_quote.h"

namespace muster::transport {

const std::string& bootstrap_script() {
  static const std::string script = R"(set -e
id=$1; size=$2; shift 2
dir="${XDG_CACHE_HOME:-$HOME/.cache}/muster/$id"
bin="$dir/muster"
# A cached binary must hash to its build id (a truncated or damaged file is replaced, never run).
if [ -x "$bin" ] && ! "$bin" agent --verify "$id" >/dev/null 2>&1; then rm -f "$bin"; fi
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  tmp="$dir/.upload.$$"
  trap 'rm -f "$tmp"' EXIT
  printf '\nMUSTER-UPLOAD %s %s\n' "$id" "$size"
  head -c "$size" > "$tmp"
  got=$(wc -c < "$tmp")
  if [ "$got" -ne "$size" ]; then echo "muster: upload of $size bytes stopped at $got" >&2; exit 97; fi
  chmod 755 "$tmp"
  mv -f "$tmp" "$bin"
  trap - EXIT
fi
exec "$bin" agent "$@"
)";
  return script;
}

std::string remote_agent_command(const SelfBinary& binary, const std::vector<std::string>& agent_args) {
  std::vector<std::string> words = {"sh", "-c", bootstrap_script(), "muster-bootstrap", binary.build_id,
                                    std::to_string(binary.size)};
  words.insert(words.end(), agent_args.begin(), agent_args.end());
  return shell_join(words);
}

std::vector<std::string> ssh_argv(const SshOptions& options, const std::string& destination,
                                  const std::string& remote_command) {
  std::vector<std::string> argv = {"ssh", "-T", "-x"};
  if (!options.config_file.empty()) {
    argv.push_back("-F");
    argv.push_back(options.config_file);
  }
  auto option = [&](const std::string& value) {
    argv.push_back("-o");
    argv.push_back(value);
  };
  // ssh takes the first value it gets for an option: the user's --ssh-option values go first, so they win.
  for (const auto& extra : options.extra_options) option(extra);
  option("BatchMode=yes");
  option(fmt::format("ConnectTimeout={}", options.connect_timeout_s));
  option(fmt::format("ServerAliveInterval={}", options.server_alive_interval_s));
  option("ServerAliveCountMax=3");
  if (options.multiplex && !options.control_dir.empty()) {
    option("ControlMaster=auto");
    option("ControlPath=" + options.control_dir + "/%C");
    option(fmt::format("ControlPersist={}", options.control_persist_s));
  }
  // OpenSSH's default order puts ChaCha20 first; AES-GCM runs in hardware (AES-NI, ARMv8 crypto) at several
  // times its speed, which is what moves sync data and logs. The same algorithms, AES-GCM preferred.
  if (options.prefer_aes_gcm) option(std::string("Ciphers=") + kPreferredCiphers);
  argv.push_back("--");
  argv.push_back(destination);
  argv.push_back(remote_command);
  return argv;
}

}  // namespace muster::transport
