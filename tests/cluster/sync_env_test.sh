#!/usr/bin/env bash
# sync_env_test.sh — a real Python environment synced to 4 nodes, as the how-tos' "no shared disk" mode wants
# (issue #18): a copy of Debian's dist-packages (torch, numpy, ...; ~300 MB, ~12,000 files) made on the head at
# a path every node also has, private on each (/tmp), with its relative links that leave it (torch/lib/*.so ->
# the system's libtorch, torch/include/* -> /usr/include/...) and a conda-like package cache of hard links.
#   1. `muster sync ENV` (same path): exit 0; the summary counts the links that leave the tree as kept links
#      (as many as `realpath` finds) and the hard links;
#   2. on every node `import torch` from the synced path (python -S: nothing from the system's dist-packages)
#      and a tensor op work; the links are links with the same text; the hard links are one inode there;
#   3. a second sync sends nothing (every node "up to date");
#   4. the same tree to another path (--to) names every link that would point elsewhere, in one run, and changes
#      nothing until --links says what to do.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / torch).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"
require_torch

readonly NODES=4 SYSTEM_SITE=/usr/lib/python3/dist-packages
launch_setup "$NODES" --mesh
muster_sync() { XDG_CACHE_HOME=$MUX_HOME "$MUSTER" sync "${MUSTER_SSH[@]}" -w "node[1-$NODES]" "$@"; }

# --- the environment: a prefix with lib/python3/dist-packages, like a venv or conda env
ENV=$SCRATCH/env
SITE=$ENV/lib/python3/dist-packages
step "copying $SYSTEM_SITE to $SITE"
mkdir -p "$ENV/lib/python3" "$ENV/pkgs"
cp -a "$SYSTEM_SITE" "$SITE"
# Its links that leave it keep pointing where they did: relative links from the new place to the same files
# (torch/lib/libtorch.so -> ../../../../../../../../usr/lib/x86_64-linux-gnu/libtorch.so.1.13, ...).
leaving=0 absolute=0  # relative links that climb out of it; absolute links (they leave it too, and mean the same anywhere)
while IFS= read -r -d '' link; do
  rel=${link#"$SITE"/}
  target=$(readlink "$SYSTEM_SITE/$rel")
  if [[ $target == /* ]]; then
    absolute=$((absolute + 1))
    continue
  fi
  resolved=$(realpath -m "$(dirname "$SYSTEM_SITE/$rel")/$target")
  [[ $resolved != "$SYSTEM_SITE"/* ]] || continue
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$resolved")" "$link"
  leaving=$((leaving + 1))
done < <(find "$SITE" -type l -print0)
((leaving > 0)) || fail "the copy of $SYSTEM_SITE has no links that leave it (is python3-torch installed?)"
# A conda-like package cache: numpy's files are hard links of the environment's.
cp -al "$SITE/numpy" "$ENV/pkgs/numpy"
hardlinks=$(find "$ENV/pkgs/numpy" -type f | wc -l)
files=$(find "$ENV" -type f | wc -l)
step "environment: $(du -sm "$ENV" | cut -f1) MB, $files names of files, $leaving relative links leaving it (and $absolute absolute links), $hardlinks hard links"

# --- 1. the sync
t0=$(now_us)
out=$(muster_sync "$ENV" 2>&1) || fail "sync of the environment failed: $out"
step "synced to $NODES nodes in $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s"
echo "$out" | sed 's/^/    /' >&2
assert_contains "$out" "links leaving the tree: $((leaving + absolute)), copied as links" "the summary counts the links that leave"
assert_contains "$out" "hard links: $hardlinks names" "the summary counts the hard links"

# --- 2. on every node: torch from the synced path, links and hard links as on the head
probe="import sys; sys.path.insert(0, '$SITE'); import torch
assert torch.__file__.startswith('$SITE/'), torch.__file__
x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
print('torch', torch.__version__, 'from', torch.__file__, 'sum', (x @ x.T).sum().item())"
link_rel=torch/lib/libtorch.so
for ((k = 1; k <= NODES; k++)); do
  got=$("$TESTBED" exec "node$k" /usr/bin/python3 -S -c "$probe" 2>&1) || fail "node$k: import torch from $SITE failed: $got"
  [[ $got == *"sum 83.0"* ]] || fail "node$k: unexpected tensor result: $got"
  [[ $("$TESTBED" exec "node$k" readlink "$SITE/$link_rel") == "$(readlink "$SITE/$link_rel")" ]] ||
    fail "node$k: $SITE/$link_rel is not the same link as on the head"
  inodes=$("$TESTBED" exec "node$k" stat -c %i "$SITE/numpy/__init__.py" "$ENV/pkgs/numpy/__init__.py" | sort -u | wc -l)
  [[ $inodes == 1 ]] || fail "node$k: numpy/__init__.py and its hard link are $inodes files"
  step "node$k: $got; hard links are one inode"
done

# --- 3. nothing changed: nothing moves
out=$(muster_sync "$ENV" 2>&1) || fail "second sync failed: $out"
[[ $(grep -c 'up to date' <<<"$out") == "$NODES" ]] || fail "second sync: every node should be up to date: $out"
grep -Eq "^  node1 +0 +0 B +0 B " <<<"$out" || fail "second sync sent something: $out"
step "second sync: every node up to date, nothing sent"

# --- 4. to another path, the climbing links need a choice: all of them named at once
out=$(muster_sync "$ENV" --to /data/env-elsewhere 2>&1) && fail "--to with climbing links should ask for --links: $out"
named=$(grep -c " -> \.\./" <<<"$out" || true)
[[ $named == "$leaving" ]] || fail "--to: $named links named, want all $leaving: $out"
assert_contains "$out" "--links" "the choice"
for ((k = 1; k <= NODES; k++)); do
  if "$TESTBED" exec "node$k" test -e /data/env-elsewhere; then fail "node$k: --to wrote before the choice"; fi
done
step "--to another path: all $leaving climbing links named in one run, nothing written"
step "PASS"
