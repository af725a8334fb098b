#!/usr/bin/env bash
# shellcheck disable=SC2016  # worker scripts are single-quoted on purpose
# The project config: a muster.toml in a parent directory supplies the hosts, workers per node and the
# environment of `muster launch`; a flag overrides one key; the user's config.toml fills what the project
# leaves; `muster config` names the source of every value (flag, file:line, default); a malformed file, an
# unknown key and a bad value are errors naming file, line and key (and nothing runs); a file others can
# write is ignored with a warning; relative paths in a file are relative to it; commands that read no
# config (help, version, the agent) ignore it; `muster init` writes a file that works.
# Trust (issue 27, item 6): keys of a project file that run commands or send the job elsewhere (hosts, env,
# ssh-option, ...) are refused until `muster config allow` recorded the file's content, and again once it
# changed; the file in use is named; a file its group can write, a FIFO (which must not hang a command) and a
# link named muster.toml are ignored with a warning.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
unset MUSTER_CFG_A MUSTER_CFG_B
export XDG_STATE_HOME=$WORK/state  # allow records (and the job registry) of this test only

mkdir -p proj/sub/deeper
cat >proj/muster.toml <<'TOML'
hosts = "localhost"
nproc-per-node = 2
[launch]
env = ["MUSTER_CFG_A=from-file", "MUSTER_CFG_B=b"]
TOML
cd proj/sub/deeper
print_env='echo "rank=$RANK world=$WORLD_SIZE a=${MUSTER_CFG_A-unset}"'

# --- not allowed yet: its hosts and env are refused, naming file, line and key; nothing runs ---------------------
rc=0
"$MUSTER" launch -q -- touch "$WORK/ran" >out 2>&1 || rc=$?
assert_eq 2 "$rc" "exit code of a launch with a project file not allowed"
assert_contains "$(cat out)" "muster: $WORK/proj/muster.toml sets what runs or where your job goes, and you have not allowed it:
  $WORK/proj/muster.toml:1: hosts chooses the machines" "launch with a project file not allowed"
assert_contains "$(cat out)" "$WORK/proj/muster.toml:4: [launch] env sets the workers' environment" "the env key named"
assert_contains "$(cat out)" "muster config allow $WORK/proj/muster.toml" "how to allow it"
[[ ! -e $WORK/ran ]] || fail "the command ran with a project file not allowed"
assert_contains "$("$MUSTER" config)" "project file: $WORK/proj/muster.toml (not allowed, so commands refuse its hosts (line 1), [launch] env (line 4)" \
  "muster config on a file not allowed"
out=$("$MUSTER" config allow) || fail "muster config allow: $out"
assert_contains "$out" "allowed $WORK/proj/muster.toml as it is now" "muster config allow"
assert_contains "$("$MUSTER" config)" "project file: $WORK/proj/muster.toml (allowed)" "muster config once allowed"

# --- the parent's muster.toml supplies hosts, nproc-per-node and env -------------------------------------------
job parent
"$MUSTER" launch -q --job-id "$JOB" -- sh -c "$print_env" >out 2>&1 || fail "launch with the project config: $(cat out)"
assert_contains "$(cat out)" "muster: using $WORK/proj/muster.toml: hosts, nproc-per-node, [launch] env" "the file in use named"
for rank in 0 1; do
  assert_eq "rank=$rank world=2 a=from-file" "$(cat "muster-runs/$JOB/rank-$rank.log")" "rank $rank"
done

# --- a flag overrides one key; the others still come from the file ----------------------------------------------
job flag
"$MUSTER" launch -q --job-id "$JOB" --nproc-per-node 1 -- sh -c "$print_env" >out 2>&1 || fail "launch with a flag: $(cat out)"
assert_eq "rank=0 world=1 a=from-file" "$(cat "muster-runs/$JOB/rank-0.log")" "rank 0 with --nproc-per-node 1"
[[ ! -e muster-runs/$JOB/rank-1.log ]] || fail "--nproc-per-node 1 on the command line did not win over the file's 2"
job envflag
"$MUSTER" launch -q --job-id "$JOB" --env MUSTER_CFG_B=flag -- sh -c 'echo "${MUSTER_CFG_A-unset} $MUSTER_CFG_B"' >out 2>&1 ||
  fail "launch with --env: $(cat out)"
assert_eq "unset flag" "$(cat "muster-runs/$JOB/rank-0.log")" "--env replaces the file's env list"

# --- run-dir in the file: relative to it, {job_id} gives every job its own directory -----------------------------
# (A changed file asks again: its hosts are refused until the new content is allowed.)
printf 'run-dir = "runs/{job_id}"\n' >>"$WORK/proj/muster.toml"
rc=0
"$MUSTER" launch -q -- true >out 2>&1 || rc=$?
assert_eq 2 "$rc" "exit code of a launch once the allowed file changed"
assert_contains "$(cat out)" "you have not allowed it" "a changed file asks again"
"$MUSTER" config allow "$WORK/proj/muster.toml" >/dev/null || fail "muster config allow FILE"
for tag in one two; do
  job "$tag"
  "$MUSTER" launch -q --job-id "$JOB" -- sh -c "$print_env" >out 2>&1 || fail "launch with run-dir from the file: $(cat out)"
  assert_eq "rank=0 world=2 a=from-file" "$(cat "$WORK/proj/runs/$JOB/rank-0.log")" "rank 0's log under the file's run-dir"
done
sed -i '$d' "$WORK/proj/muster.toml"

# --- muster config names each source ------------------------------------------------------------------------
mkdir -p "$XDG_CONFIG_HOME/muster"
printf 'nproc-per-node = 8\n[launch]\ngrace = 2.5\n' >"$XDG_CONFIG_HOME/muster/config.toml"
project=$WORK/proj/muster.toml
user=$XDG_CONFIG_HOME/muster/config.toml
out=$("$MUSTER" config launch --max-restarts 3 -- python3 train.py) || fail "muster config launch: $out"
line_of() { grep -E "^  $1 +=" <<<"$out" || fail "muster config launch shows no '$1': $out"; }
assert_contains "$out" "project file: $project" "muster config launch"
assert_contains "$out" "user file:    $user" "muster config launch"
assert_contains "$(line_of hosts)" "\"localhost\"" "hosts"
assert_contains "$(line_of hosts)" "$project:1" "source of hosts"
assert_contains "$(line_of nproc-per-node)" "2" "nproc-per-node"
assert_contains "$(line_of nproc-per-node)" "$project:2 (hides $user:1)" "source of nproc-per-node"
assert_contains "$(line_of env)" '["MUSTER_CFG_A=from-file", "MUSTER_CFG_B=b"]' "env"
assert_contains "$(line_of env)" "$project:4" "source of env"
assert_contains "$(line_of grace)" "2.5" "grace"
assert_contains "$(line_of grace)" "$user:3" "source of grace"
assert_contains "$(line_of max-restarts)" "flag" "source of max-restarts"
assert_contains "$(line_of heartbeat-timeout)" "default" "source of heartbeat-timeout"
out=$("$MUSTER" config) || fail "muster config: $out"
assert_contains "$out" "[launch]
hosts = \"localhost\"  # $project:1" "muster config"
assert_contains "$out" "grace = 2.5  # $user:3" "muster config"
assert_contains "$out" "[sync]
hosts = \"localhost\"  # $project:1" "muster config (top-level keys reach every command that has the flag)"
[[ $(grep -c '^nproc-per-node' <<<"$out") -ge 3 ]] || fail "muster config: nproc-per-node should reach launch, plan, gen ...: $out"
rm "$user"

# --- malformed files: file, line and key; nothing runs ---------------------------------------------------------
cd "$WORK"
mkdir -p bad
expect_bad() {  # expect_bad TOML EXPECTED_STDERR_PART
  printf '%s\n' "$1" >bad/muster.toml
  local rc=0
  (cd bad && "$MUSTER" launch -- touch "$WORK/bad/ran") >bad/out 2>&1 || rc=$?
  assert_eq 2 "$rc" "exit code for a bad muster.toml ($1)"
  assert_contains "$(cat bad/out)" "$2" "error for '$1'"
  [[ ! -e bad/ran ]] || fail "the command ran despite a bad muster.toml ($1)"
}
expect_bad $'hosts = "localhost"\nnproc-per-node = ' "muster: $WORK/bad/muster.toml:2:"
expect_bad $'hosts = "localhost"\nnproc-per-node = ' ": nproc-per-node: "  # the key of a TOML syntax error's line
expect_bad $'[launch]\nhosts = "localhost"\nenv = ["A=1" "B=2"]' "muster: $WORK/bad/muster.toml:3:"
expect_bad $'[launch]\nhosts = "localhost"\nenv = ["A=1" "B=2"]' ": [launch] env: "
expect_bad $'[launch]\nnproc-per-nod = 2' \
  "muster: $WORK/bad/muster.toml:2: unknown key '[launch] nproc-per-nod' (muster launch has no --nproc-per-nod), did you mean 'nproc-per-node'?"
expect_bad $'[lanch]\nenv = []' "muster: $WORK/bad/muster.toml:1: [lanch] is not a muster command that takes settings, did you mean [launch]?"
expect_bad $'\n[launch]\ntransport = "bogus"' "muster: $WORK/bad/muster.toml:3: [launch] transport: --transport: bogus not in {auto,ssh,slurm,local}"
expect_bad $'nproc-per-node = "two"' "muster: $WORK/bad/muster.toml:1: nproc-per-node:"
expect_bad $'exclude = ["*.pt"]' "muster: $WORK/bad/muster.toml:1: key 'exclude' means different things here"
expect_bad $'[launch]\njob-id = "fixed"' "muster: $WORK/bad/muster.toml:2: '[launch] job-id': --job-id names one run"
expect_bad $'[launch]\nquiet = "yes"' "muster: $WORK/bad/muster.toml:2: [launch] quiet: a flag takes true or false"
# A bad file in another command's table is an error too, but commands that read no config do not care.
expect_bad $'[sync]\nfanot = "star"' "muster: $WORK/bad/muster.toml:2: unknown key '[sync] fanot' (muster sync has no --fanot), did you mean 'fanout'?"
(cd bad && "$MUSTER" version >/dev/null && "$MUSTER" help >/dev/null) || fail "version/help read a malformed muster.toml"
agent_err=$(cd bad && "$MUSTER" agent --nonce x </dev/null 2>&1 >/dev/null || true)
assert_not_contains "$agent_err" "muster.toml" "the agent (a node never reads the head's config)"

# --- a file anyone can write (or, as root, someone else's) is ignored with a warning ----------------------------
printf 'hosts = "localhost"\n' >bad/muster.toml
chmod o+w bad/muster.toml
out=$(cd bad && "$MUSTER" config 2>&1) || fail "muster config with a world-writable file: $out"
assert_contains "$out" "warning: ignoring $WORK/bad/muster.toml: anyone can write to it" "world-writable muster.toml"
assert_contains "$out" "project file: none" "world-writable muster.toml"
chmod o-w bad/muster.toml
if [[ $(id -u) == 0 ]]; then
  chown 65534:65534 bad/muster.toml
  out=$(cd bad && "$MUSTER" config 2>&1) || fail "muster config with another user's file: $out"
  assert_contains "$out" "warning: ignoring $WORK/bad/muster.toml: it belongs to uid 65534, not to you" "another user's muster.toml"
else
  echo "config_test: not root: the check of another user's muster.toml is in unit_config (ConfigFilesTest)"
fi

# --- a file its group can write is ignored; a FIFO or a link named muster.toml is ignored, never read -----------
rm -f bad/muster.toml
printf 'nproc-per-node = 3\n' >bad/muster.toml
chmod g+w bad/muster.toml
out=$(cd bad && "$MUSTER" config 2>&1) || fail "muster config with a group-writable file: $out"
assert_contains "$out" "warning: ignoring $WORK/bad/muster.toml: its group can write to it" "group-writable muster.toml"
rm bad/muster.toml
mkdir -p fifo/below
mkfifo fifo/muster.toml
rc=0
out=$(cd fifo/below && timeout 20 "$MUSTER" plan -w localhost 2>&1) || rc=$?
[[ $rc != 124 ]] || { timeout 5 sh -c ': >fifo/muster.toml' || true; fail "a FIFO named muster.toml in a parent directory hung muster plan"; }
assert_eq 0 "$rc" "muster plan below a FIFO named muster.toml: $out"
assert_contains "$out" "warning: ignoring $WORK/fifo/muster.toml: it is a FIFO, socket or device, not a regular file" "FIFO"
mkdir -p linked
printf 'nproc-per-node = 3\n' >linked.toml
ln -s ../linked.toml linked/muster.toml
out=$(cd linked && "$MUSTER" config 2>&1) || fail "muster config with a link named muster.toml: $out"
assert_contains "$out" "warning: ignoring $WORK/linked/muster.toml: it is a symbolic link" "muster.toml as a link"

# --- the issue's case: a parent's ssh-option ProxyCommand does not run until allowed ----------------------------
mkdir -p shown/repo
printf 'hosts = "node-that-does-not-exist"\nssh-option = ["ProxyCommand=touch %s/proxy-ran"]\n' "$WORK" >shown/muster.toml
rc=0
(cd shown/repo && "$MUSTER" launch --transport ssh --connect-timeout 2 -- true) >out 2>&1 || rc=$?
assert_eq 2 "$rc" "launch below a parent's ssh-option"
assert_contains "$(cat out)" "$WORK/shown/muster.toml:2: ssh-option passes options to ssh" "the parent's ssh-option refused"
[[ ! -e $WORK/proxy-ran ]] || fail "a parent directory's ssh-option ProxyCommand ran"

# --- paths in a file are relative to the file; muster init writes a file that works ------------------------------
mkdir -p initdir/sub
printf 'localhost slots=3\n' >initdir/hosts
(cd initdir && "$MUSTER" init -H hosts --nproc-per-node 2 >../init.out) || fail "muster init: $(cat init.out)"
assert_contains "$(cat init.out)" "wrote $WORK/initdir/muster.toml (2 settings)" "muster init"
assert_contains "$(cat initdir/muster.toml)" $'hostfile = "hosts"\nnproc-per-node = 2' "muster.toml written by init"
out=$(cd initdir/sub && "$MUSTER" plan) || fail "muster plan below an init'ed muster.toml: $out"
assert_contains "$out" "world size 2 on 1 node" "muster plan with the init'ed hostfile (relative to muster.toml)"
rc=0
(cd initdir && "$MUSTER" init -w localhost) >init.out 2>&1 || rc=$?
assert_eq 2 "$rc" "muster init over an existing file"
assert_contains "$(cat init.out)" "exists; --force replaces it" "muster init over an existing file"
(cd initdir && "$MUSTER" init --force -w 'node[1-4]' >/dev/null) || fail "muster init --force"
assert_contains "$(cat initdir/muster.toml)" $'\nhosts = "node[1-4]"\n' "muster init --force"
