#include "transport/ssh_command.h"

#include <fmt/core.h>

#include "transport/ssh_cipher.h"
#include "transport/ssh_kex.h"
#include "util/sha256.h"
#include "util/shell_quote.h"

namespace muster::transport {

const std::string& bootstrap_script() {
  // POSIX sh and coreutils only (every Debian/Ubuntu node has them). Nodes may share $HOME (NFS): every step is
  // safe with any number of nodes running it at once (docs/agent-protocol.md section 1).
  static const std::string script = R"SH(set -e
id=$1; size=$2; sum=$3; shift 3
base="${XDG_CACHE_HOME:-$HOME/.cache}/muster"
dir="$base/$id"
bin="$dir/muster"
stamp="$dir/muster.checked"
refuse() { echo "muster: refusing $1: $2" >&2; exit 96; }
# muster runs what it finds here: the directories and the binary must be this user's alone (created 0700). One
# find reads every mode, and the binary's identity with it (inode, size, mtime, ctime: any change to the file, or
# another file, changes it): one process at each start, not one per question.
identity=
private() {
  for f in "$@"; do
    [ ! -e "$f" ] || [ -O "$f" ] || refuse "$f" "it belongs to uid $(stat -L -c %u -- "$f"), not to you (uid $(id -u)); remove it, or set XDG_CACHE_HOME to a directory of your own"
  done
  facts=$(find -L "$@" -maxdepth 0 -printf '%m %i %s %T@ %C@ %p\n' 2>/dev/null || :)
  while read -r f_mode f_ino f_size f_mtime f_ctime f_path; do  # (sh has no local variables: f_ names)
    [ -n "$f_mode" ] || continue
    [ $((0$f_mode & 022)) -eq 0 ] || refuse "$f_path" "it is writable by its group or others (mode $f_mode), and muster runs the binary it keeps there; fix it with: chmod go-w '$f_path'"
    [ "$f_path" != "$bin" ] || identity="$f_ino $f_size $f_mtime $f_ctime"
  done <<EOF
$facts
EOF
}
# The content check reads the candidate, never runs it.
matches() { [ -f "$1" ] && [ "$(sha256sum < "$1")" = "$sum  -" ]; }
# The last check is remembered with the binary's identity (private), so an unchanged binary is not read again.
checked() { [ -f "$stamp" ] && [ -f "$bin" ] && [ -n "$identity" ] && read -r seen < "$stamp" && [ "$seen" = "$sum $identity" ]; }
remember() { t=$(mktemp -- "$dir/.checked.XXXXXXXXXX") && echo "$sum $identity" > "$t" && mv -fT -- "$t" "$stamp"; }
[ -d "$dir" ] || (umask 077 && mkdir -p -- "$dir")
if [ -e "$bin" ]; then private "$base" "$dir" "$bin" "$stamp"; else private "$base" "$dir"; fi
if checked; then :
elif matches "$bin"; then remember
else
  tmp=$(mktemp -- "$dir/.upload.XXXXXXXXXX")
  trap 'rm -f -- "$tmp"' EXIT
  printf '\nMUSTER-UPLOAD %s %s\n' "$id" "$size"
  head -c "$size" > "$tmp"
  got=$(wc -c < "$tmp")
  if [ "$got" -ne "$size" ]; then echo "muster: upload of $size bytes stopped at $got" >&2; exit 97; fi
  matches "$tmp" || { echo "muster: the uploaded binary does not hash to the head's SHA-256 $sum" >&2; exit 97; }
  chmod 700 -- "$tmp"
  # Never truncate or remove a binary another node may run: a new name is linked in place (fails if one is
  # there already), a damaged one is replaced by rename.
  if ! ln -- "$tmp" "$bin" 2>/dev/null && ! matches "$bin"; then mv -fT -- "$tmp" "$bin"; fi
  rm -f -- "$tmp"
  trap - EXIT
  private "$bin"
  remember
fi
exec "$bin" agent "$@"
)SH";
  return script;
}

std::string remote_agent_command(const SelfBinary& binary, const std::vector<std::string>& agent_args) {
  std::vector<std::string> words = {"sh", "-c", bootstrap_script(), "muster-bootstrap", binary.build_id,
                                    std::to_string(binary.size), binary.sha256};
  words.insert(words.end(), agent_args.begin(), agent_args.end());
  return shell_join(words);
}

std::string control_path(const SshOptions& options, const std::string& destination) {
  if (!options.multiplex || options.control_dir.empty()) return "";
  std::string key = destination + '\0' + options.config_file;
  for (const auto& extra : options.extra_options) key += '\0' + extra;
  return options.control_dir + "/" + sha256_hex(key).substr(0, 24);
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
  if (auto kex = kex_algorithms(options.kex)) option("KexAlgorithms=" + *kex);
  // ssh's stderr only ever reaches the user inside muster's error messages, and at an ssh_config's LogLevel ERROR
  // or QUIET ssh would not say why it failed ("Unable to negotiate ...: no matching key exchange method", which
  // ssh_kex.h's retry looks for, is INFO).
  option("LogLevel=INFO");
  option("BatchMode=yes");
  option(fmt::format("ConnectTimeout={}", options.connect_timeout_s));
  option(fmt::format("ServerAliveInterval={}", options.server_alive_interval_s));
  option("ServerAliveCountMax=3");
  if (options.multiplex && !options.control_dir.empty()) {
    option("ControlMaster=auto");
    option("ControlPath=" + control_path(options, destination));
    option(fmt::format("ControlPersist={}", options.control_persist_s));
  }
  // OpenSSH's default order puts ChaCha20 first; AES-GCM runs in hardware (AES-NI, ARMv8 crypto) at several
  // times its speed, which is what moves sync data and logs (ssh_cipher.h).
  if (auto ciphers = cipher_algorithms(options.cipher, options.cpu_has_aes)) option("Ciphers=" + *ciphers);
  argv.push_back("--");
  argv.push_back(destination);
  argv.push_back(remote_command);
  return argv;
}

}  // namespace muster::transport
