#!/usr/bin/env bash
# sync_test.sh — `muster sync` on the testbed (8 nodes, private /data on each):
#   1. a tree of ~2,000 files incl. a 300 MB file → every node's copy hashes (md5sum, independently of muster's
#      XXH3) exactly like the source, modes and symlinks included; the data went along the relay chain (the
#      nodes' own interface counters: nodes 1-7 each sent the tree on to the next node, node 8 sent nothing);
#   2. a re-sync with nothing changed finishes in under 1 s and every node sends < 40 KB (a digest of its
#      manifest, not the manifest), asked of each node directly (the source is the one the last sync left there);
#      a file changed on one node only (other content with the same size and mtime, or only its mtime) is repaired
#      on that node and nothing moves to the others; touching one file on the head moves only that file (the
#      summary reports its bytes on each node), down the chain again; with the source unchanged but model.bin
#      gone from every node, the star finds 300 MB to send and the data goes down the chain after all;
#   3. the head SIGKILLed mid-transfer (links capped so the transfer takes a while): no destination path holds a
#      partial file (the big file is still its old, complete version everywhere), no temporary is left, and a
#      re-run completes and verifies;
#   4. `--fanout star` sends from the head to every node; with node3 refusing node2's key, `auto` reaches node3
#      from the head (saying so) and node3 carries the chain on; `--fanout chain` fails naming node3;
#   5. `launch --sync DIR` syncs before starting: the job sees the new file on every node.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=8 DEST=/data/synced
muster_sync() { XDG_CACHE_HOME=$MUX_HOME "$MUSTER" sync "${MUSTER_SSH[@]}" -w "node[1-$NODES]" "$@"; }

# tree_digest DIR: one digest of every path, type, mode, size and content (md5), and symlink text.
tree_digest() {
  (cd "$1" && find . -mindepth 1 -printf '%y %p %m %s %l\n' | LC_ALL=C sort &&
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum) | md5sum | cut -d' ' -f1
}
node_digest() {  # node_digest NODE: tree_digest of DEST on that node, computed there
  "$TESTBED" exec "$1" bash -c "$(declare -f tree_digest); tree_digest $DEST"
}
assert_all_nodes_match() {  # assert_all_nodes_match WHAT
  local want k got
  want=$(tree_digest "$SRC")
  for ((k = 1; k <= NODES; k++)); do
    got=$(node_digest "node$k") || fail "$1: cannot hash $DEST on node$k"
    [[ $got == "$want" ]] || fail "$1: node$k's copy differs from the source (digest $got, want $want)"
  done
  step "$1: all $NODES copies identical to the source (md5 of every file, modes, links)"
}

# --mesh: the nodes can ssh to each other (what `muster setup ssh` gives), so the relay chain can be built.
launch_setup "$NODES" --mesh
tx_bytes() { "$TESTBED" exec "$1" cat /sys/class/net/eth0/statistics/tx_bytes; }
SRC=$SCRATCH/tree
step "making the source: 2,000 small files in 40 directories + one 300 MB file"
mkdir -p "$SRC"
for d in $(seq -w 1 40); do
  mkdir -p "$SRC/dir$d"
  for f in $(seq -w 1 50); do printf 'file %s/%s\n%*s\n' "$d" "$f" $((10#$f * 37)) x >"$SRC/dir$d/f$f.txt"; done
done
chmod 755 "$SRC/dir01/f01.txt"
ln -s ../dir02/f02.txt "$SRC/dir01/link"
head -c 300000000 /dev/urandom >"$SRC/model.bin"
files=$(find "$SRC" -type f | wc -l)
step "source: $files files, $(du -sm "$SRC" | cut -f1) MB"

# --- 1. first sync
declare -A tx_before
for ((k = 1; k <= NODES; k++)); do tx_before[$k]=$(tx_bytes "node$k"); done
t0=$(now_us)
out=$(muster_sync "$SRC" --to "$DEST" 2>&1) || fail "first sync failed: $out"
step "first sync to $NODES nodes: $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s"
echo "$out" | sed 's/^/    /' >&2
assert_contains "$out" "relay chain" "first sync (auto fanout on $NODES mesh nodes)"
assert_all_nodes_match "first sync"
tree_bytes=$(du -sb "$SRC" | cut -f1)
for ((k = 1; k <= NODES; k++)); do
  sent=$(($(tx_bytes "node$k") - tx_before[$k]))
  if ((k < NODES)); then
    ((sent > tree_bytes * 9 / 10)) || fail "node$k sent $sent bytes: it should have passed the tree ($tree_bytes) on"
  else
    ((sent < tree_bytes / 10)) || fail "node$NODES, the end of the chain, sent $sent bytes"
  fi
done
step "relay chain: nodes 1-$((NODES - 1)) each sent ~$((tree_bytes / 1000000)) MB on, node$NODES sent (almost) nothing"

# --- 2. nothing changed: under 1 s; one file touched: only it moves
t0=$(now_us)
out=$(muster_sync "$SRC" --to "$DEST" 2>&1) || fail "re-sync failed: $out"
ms=$(ms_between "$t0" "$(now_us)")
step "re-sync with nothing changed: $(fmt_ms "$ms") s"
((ms < 1000)) || fail "re-sync with nothing changed took $(fmt_ms "$ms") s (bound: 1 s): $out"
[[ $(grep -c 'up to date' <<<"$out") == "$NODES" ]] || fail "re-sync: every node should be up to date: $out"
# The source is the one the last sync left on these nodes: auto asks each node directly, without the chain's
# node-to-node hops (sync_head/last_sync.h).
unchanged_note="$SRC is unchanged since the last sync to these nodes: asking each node directly (no relay chain)"
assert_contains "$out" "$unchanged_note" "re-sync with nothing changed"
# ... and sends (almost) nothing: each node answers with its manifest's digest, not the manifest (~100 KB for
# these 2,001 entries, and node1 passes on those of the 7 nodes behind it).
for ((k = 1; k <= NODES; k++)); do tx_before[$k]=$(tx_bytes "node$k"); done
out=$(muster_sync "$SRC" --to "$DEST" 2>&1) || fail "second re-sync failed: $out"
[[ $(grep -c 'up to date' <<<"$out") == "$NODES" ]] || fail "second re-sync: every node should be up to date: $out"
for ((k = 1; k <= NODES; k++)); do
  sent=$(($(tx_bytes "node$k") - tx_before[$k]))
  ((sent < 40000)) || fail "re-sync with nothing changed: node$k sent $sent bytes (bound: 40 KB; a manifest is ~100 KB)"
done
step "re-sync with nothing changed: every node sent < 40 KB (digests, not manifests)"

# A file changed on one node only is repaired there, and only there: same size and mtime but other content on
# node5 (its ctime changed, so its hash is read again), the mtime alone on node3 (metadata only).
f=dir05/f05.txt
mtime=$(stat -c %y "$SRC/$f")
size=$(stat -c %s "$SRC/$f")
"$TESTBED" exec node5 bash -c "head -c $size /dev/zero | tr '\\0' z >$DEST/$f && touch -d '$mtime' $DEST/$f"
"$TESTBED" exec node3 touch -d '2001-01-01' "$DEST/$f"
out=$(muster_sync "$SRC" --to "$DEST" 2>&1) || fail "sync after changes on node3 and node5 failed: $out"
grep -Eq "^  node5 +1 +$size B " <<<"$out" || fail "node5 should receive exactly its changed file ($size B): $out"
for ((k = 1; k <= NODES; k++)); do
  ((k == 5)) && continue
  grep -Eq "^  node$k +0 +0 B " <<<"$out" || fail "node$k should receive nothing: $out"
done
[[ $("$TESTBED" exec node3 stat -c %Y "$DEST/$f") == $(stat -c %Y "$SRC/$f") ]] ||
  fail "node3: the mtime of $f was not restored: $out"
assert_contains "$out" "$unchanged_note" "the repair of node5 and node3 (the source unchanged)"
assert_all_nodes_match "after changing $f on node5 (content) and node3 (mtime)"

echo "changed" >>"$SRC/dir07/f07.txt"
size=$(stat -c %s "$SRC/dir07/f07.txt")
out=$(muster_sync "$SRC" --to "$DEST" 2>&1) || fail "sync of one touched file failed: $out"
for ((k = 1; k <= NODES; k++)); do
  grep -Eq "^  node$k +1 +$size B " <<<"$out" || fail "node$k should receive exactly 1 file of $size B: $out"
done
# A changed source goes down the chain again.
assert_contains "$out" "relay chain: each node passes it on to the next" "one touched file"
[[ $out != *"is unchanged since the last sync"* ]] || fail "one touched file: the source changed, yet: $out"
step "one touched file: exactly 1 file ($size B) moved to each node, along the chain; an unchanged source is asked of each node directly"
assert_all_nodes_match "after touching one file"

# The source is unchanged, but the nodes lost the big file since (a node wiped): the star, tried first, finds
# 300 MB to send to each node, sends nothing, and the data goes down the chain after all.
for ((k = 1; k <= NODES; k++)); do "$TESTBED" exec "node$k" rm -f "$DEST/model.bin"; done
out=$(muster_sync "$SRC" --to "$DEST" 2>&1) || fail "sync after the nodes lost model.bin failed: $out"
assert_contains "$out" "$unchanged_note" "the nodes lost model.bin"
assert_contains "$out" "a node needs 300.0 MB after all: sending down the relay chain" "the nodes lost model.bin"
assert_contains "$out" "relay chain: each node passes it on to the next" "the nodes lost model.bin"
assert_all_nodes_match "after the nodes lost model.bin (the source unchanged)"

# --- 3. head SIGKILLed mid-transfer
old_md5=$(md5sum <"$SRC/model.bin" | cut -d' ' -f1)
for ((k = 1; k <= NODES; k++)); do "$TESTBED" rate "node$k" 200mbit >/dev/null; done
head -c 300000000 /dev/urandom >"$SRC/model.bin"
new_md5=$(md5sum <"$SRC/model.bin" | cut -d' ' -f1)
XDG_CACHE_HOME=$MUX_HOME "$MUSTER" sync "${MUSTER_SSH[@]}" -w "node[1-$NODES]" "$SRC" --to "$DEST" \
  >"$SCRATCH/killed.out" 2>&1 &
MUSTER_PID=$!
# Wait until node1 holds a temporary of the big file of at least 20 MB, then kill the head.
partial() {
  "$TESTBED" exec node1 bash -c "stat -c %s $DEST/.model.bin.muster-tmp-* 2>/dev/null | head -1"
}
partial_big() { [[ $(partial) -gt 20000000 ]]; }
wait_until 60 partial_big || fail "no partial transfer of model.bin seen on node1 within 60 s"
seen=$(partial)
kill -KILL "$MUSTER_PID"
wait_exit "$MUSTER_PID" 5
step "head SIGKILLed when node1 had $seen bytes of the new model.bin"
for ((k = 1; k <= NODES; k++)); do
  got=$("$TESTBED" exec "node$k" md5sum "$DEST/model.bin" | cut -d' ' -f1)
  [[ $got == "$old_md5" ]] || fail "node$k: $DEST/model.bin is neither the old complete file nor absent (md5 $got)"
done
no_temp_anywhere() {
  local k
  for ((k = 1; k <= NODES; k++)); do
    if "$TESTBED" exec "node$k" bash -c "find $DEST -name '*.muster-tmp-*' | grep -q ."; then return 1; fi
  done
}
# The agents remove their temporaries when the head (or, down the chain, their parent agent) goes away.
wait_until 5 no_temp_anywhere || fail "a temporary file is still on a node 5 s after the head died"
step "after the kill: every node still has the old, complete model.bin and no temporary"
for ((k = 1; k <= NODES; k++)); do "$TESTBED" rate "node$k" none >/dev/null; done
out=$(muster_sync "$SRC" --to "$DEST" 2>&1) || fail "re-run after the kill failed: $out"
for ((k = 1; k <= NODES; k++)); do
  got=$("$TESTBED" exec "node$k" md5sum "$DEST/model.bin" | cut -d' ' -f1)
  [[ $got == "$new_md5" ]] || fail "node$k: model.bin after the re-run has md5 $got, want $new_md5"
done
assert_all_nodes_match "re-run after the kill"

# --- 4. star, and the fallback from a chain that cannot be built
echo "star" >>"$SRC/dir03/f03.txt"
out=$(muster_sync "$SRC" --to "$DEST" --fanout star 2>&1) || fail "--fanout star failed: $out"
assert_contains "$out" "to each node" "--fanout star"
node2_key=$("$TESTBED" exec node2 cat /root/.ssh/id_ed25519.pub | cut -d' ' -f2)
"$TESTBED" exec node3 sed -i "\|$node2_key|d" /root/.ssh/authorized_keys
# node2's agent keeps an ssh master to node3 from the earlier runs (multiplexing): close it, so the next
# connection has to authenticate.
"$TESTBED" exec node2 bash -c 'for s in /root/.cache/muster/ssh/*; do [[ -S $s ]] && ssh -o ControlPath="$s" -O exit x; done' \
  >/dev/null 2>&1 || true
echo "fallback" >>"$SRC/dir04/f04.txt"
out=$(muster_sync "$SRC" --to "$DEST" 2>&1) || fail "sync with a broken node2 -> node3 link failed: $out"
assert_contains "$out" "node2 could not start the agent of node3" "fallback notice names the hop"
assert_contains "$out" "the head connects to it directly" "fallback notice"
# node3 is reached from the head and carries the rest of the chain on.
assert_contains "$out" "over 2 connections, each node passing it on to those below it" "the chain from node3 on"
assert_all_nodes_match "--fanout star and the chain around a broken link"
out=$(muster_sync "$SRC" --to "$DEST" --fanout chain 2>&1) && fail "--fanout chain over a broken link should fail: $out"
assert_contains "$out" "could not start the agent of node3" "--fanout chain names the hop it could not reach"
step "a chain broken at node2 -> node3: --fanout chain fails naming node3, auto reaches node3 from the head and goes on from there"

# --- 5. launch --sync
CODE=$SCRATCH/code
mkdir -p "$CODE" && echo "version 2" >"$CODE/VERSION"
out=$(muster_launch -w "node[1-4]" --sync "$CODE" -- cat "$CODE/VERSION" 2>&1) || fail "launch --sync failed: $out"
[[ $(grep -c 'version 2' <<<"$out") == 4 ]] || fail "launch --sync: every node should print 'version 2': $out"
step "launch --sync: the job saw the synced file on all 4 nodes"
step "PASS"
