#!/usr/bin/env bash
# sync_direct_test.sh — `muster sync`'s direct data path (docs/agent-protocol.md section 8a) on the testbed: 4 nodes
# that can ssh to each other, a relay chain, file data over TCP between the nodes, the control on ssh.
#   1. a tree with a 40 MB file goes over the direct path, encrypted (the summary says so, every hop direct) and
#      every node's copy hashes (md5) like the source; the same with --trusted-network (plaintext) and 3 streams;
#   2. node3 refuses TCP from the others (a firewall letting only ssh in): the sync still completes, node3 (and the
#      chain after it) getting the data over ssh, and muster says which hop and why ("Connection refused"); a
#      firewall that drops instead of refusing costs --connect-timeout and is said too; --data-path direct makes
#      such a hop an error, before any file is sent;
#   3. a man in the middle on node1 -> node2 flips one bit of the stream: encrypted, the record fails
#      authentication, node2 drops what it had in flight and gets it again over ssh; in plaintext
#      (--trusted-network) the file's hash check fails on node2 and the file is sent again; every copy ends
#      identical to the source;
#   4. the head SIGKILLed mid-transfer over the direct path: no destination path holds a partial file, no
#      temporary is left on any node, a re-run completes.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=4
muster_sync() { XDG_CACHE_HOME=$MUX_HOME "$MUSTER" sync "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --fanout chain "$@"; }
tree_digest() {
  (cd "$1" && find . -mindepth 1 -printf '%y %p %m %s %l\n' | LC_ALL=C sort &&
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum) | md5sum | cut -d' ' -f1
}
assert_all_nodes_match() {  # assert_all_nodes_match DEST WHAT
  local want k got
  want=$(tree_digest "$SRC")
  for ((k = 1; k <= NODES; k++)); do
    got=$("$TESTBED" exec "node$k" bash -c "$(declare -f tree_digest); tree_digest $1") || fail "$2: cannot hash $1 on node$k"
    [[ $got == "$want" ]] || fail "$2: node$k's copy of $1 differs from the source"
  done
  step "$2: all $NODES copies identical to the source"
}
node_ip() { "$TESTBED" ip "$1"; }

launch_setup "$NODES" --mesh
SRC=$SCRATCH/tree
mkdir -p "$SRC/small"
head -c 40000000 /dev/urandom >"$SRC/model.bin"
for i in $(seq 1 30); do head -c $((i * 331)) /dev/urandom >"$SRC/small/f$i"; done
ln -s ../model.bin "$SRC/small/link"

# --- 1. over the direct path, encrypted, then in plaintext over 3 streams per hop
out=$(muster_sync "$SRC" --to /data/d1 2>&1) || fail "sync over the direct path failed: $out"
assert_contains "$out" "file data over direct TCP, AES-128-GCM, 1 stream per hop (4 of 4 hops)" "direct path, encrypted"
assert_all_nodes_match /data/d1 "direct path, encrypted"
out=$(muster_sync "$SRC" --to /data/d2 --trusted-network --streams 3 2>&1) || fail "plaintext sync failed: $out"
assert_contains "$out" "file data over direct TCP, plaintext, 3 streams per hop (4 of 4 hops)" "direct path, plaintext"
assert_all_nodes_match /data/d2 "direct path, plaintext, 3 streams per hop"

# --- 2. nodes that cannot reach each other over TCP
"$TESTBED" exec node3 iptables -A INPUT -p tcp --syn ! --dport 22 -j REJECT --reject-with tcp-reset
out=$(muster_sync "$SRC" --to /data/d3 2>&1) || fail "sync with node3 refusing TCP failed: $out"
assert_contains "$out" "node2 -> node3: cannot open TCP to $(node_ip node3):" "the refused hop is named"
assert_contains "$out" "Connection refused; node3 gets its data over ssh" "and why, and what happens"
assert_contains "$out" "(3 of 4 hops)" "the other hops stay direct"
assert_all_nodes_match /data/d3 "node3 refusing TCP: it and the chain after it over ssh"
out=$(muster_sync "$SRC" --to /data/d4 --data-path direct 2>&1) && fail "--data-path direct over a refused hop should fail: $out"
assert_contains "$out" "--data-path direct: nodes cannot reach each other over TCP" "--data-path direct"
assert_contains "$out" "node2 -> node3: cannot open TCP" "--data-path direct names the hop"
[[ -z $("$TESTBED" exec node2 find /data/d4 -mindepth 1) ]] || fail "--data-path direct failed but sent files to node2"
step "--data-path direct over a refused hop: an error naming it, no file sent"
"$TESTBED" exec node3 iptables -F INPUT
"$TESTBED" exec node4 iptables -A INPUT -p tcp --syn ! --dport 22 -j DROP
t0=$(now_us)
out=$(muster_sync "$SRC" --to /data/d5 --connect-timeout 2 2>&1) || fail "sync with node4 dropping TCP failed: $out"
assert_contains "$out" "node3 -> node4: cannot open TCP to $(node_ip node4):" "the dropping hop is named"
assert_contains "$out" "no answer within 2 s" "a dropping firewall costs the connect timeout"
assert_all_nodes_match /data/d5 "node4 dropping TCP (in $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s)"
"$TESTBED" exec node4 iptables -F INPUT

# --- 3. one bit flipped on the way from node1 to node2
readonly PROXY_PORT=47123 MARK=77
tamper() {  # tamper DEST ARGS...: a sync through a proxy on node1 that flips one bit 5 MB into a stream to node2
  local dest=$1 proxy_out=$SCRATCH/proxy.out
  shift
  "$TESTBED" exec node1 iptables -t nat -A OUTPUT -p tcp -d "$(node_ip node2)" ! --dport 22 -m mark ! --mark $MARK \
    -j REDIRECT --to-ports $PROXY_PORT
  "$TESTBED" exec node1 python3 "$REPO/tests/cluster/scripts/tamper_proxy.py" $PROXY_PORT 5000000 $MARK 60 \
    >"$proxy_out" 2>&1 &
  local proxy=$!
  wait_until 10 grep -q listening "$proxy_out" || fail "the tampering proxy did not start: $(cat "$proxy_out")"
  out=$(muster_sync "$SRC" --to "$dest" "$@" 2>&1) || fail "sync through the tampering proxy failed: $out"
  "$TESTBED" exec node1 iptables -t nat -F OUTPUT
  kill "$proxy" 2>/dev/null || true
  wait "$proxy" 2>/dev/null || true
  grep -q "tampered $(node_ip node2)" "$proxy_out" || fail "the proxy never flipped a bit: $(cat "$proxy_out")"
}
tamper /data/d6
assert_contains "$out" "node1 -> node2: the data link broke (a record on the data link failed authentication" \
  "a tampered record, encrypted"
assert_contains "$out" "node2 gets its data over ssh" "the tampered hop goes over ssh"
assert_contains "$out" "sent again" "what node2 had in flight is sent again"
assert_all_nodes_match /data/d6 "a bit flipped on node1 -> node2, encrypted: caught, sent again"
tamper /data/d7 --trusted-network
assert_contains "$out" "sent again" "a tampered chunk in plaintext is sent again"
assert_all_nodes_match /data/d7 "a bit flipped on node1 -> node2 in plaintext: hash check failed, sent again"

# --- 4. the head SIGKILLed mid-transfer over the direct path
old_md5=$(md5sum <"$SRC/model.bin" | cut -d' ' -f1)
out=$(muster_sync "$SRC" --to /data/d8 2>&1) || fail "sync before the kill failed: $out"
for ((k = 1; k <= NODES; k++)); do "$TESTBED" rate "node$k" 100mbit >/dev/null; done
head -c 40000000 /dev/urandom >"$SRC/model.bin"
XDG_CACHE_HOME=$MUX_HOME "$MUSTER" sync "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --fanout chain "$SRC" --to /data/d8 \
  >"$SCRATCH/killed.out" 2>&1 &
MUSTER_PID=$!
partial() { "$TESTBED" exec node3 bash -c "stat -c %s /data/d8/.model.bin.muster-tmp-* 2>/dev/null | head -1"; }
partial_big() { [[ $(partial) -gt 4000000 ]]; }
wait_until 60 partial_big || fail "no partial transfer of model.bin on node3 within 60 s: $(cat "$SCRATCH/killed.out")"
seen=$(partial)
kill -KILL "$MUSTER_PID"
wait_exit "$MUSTER_PID" 5
step "head SIGKILLed when node3 had $seen bytes of the new model.bin"
for ((k = 1; k <= NODES; k++)); do
  got=$("$TESTBED" exec "node$k" md5sum /data/d8/model.bin | cut -d' ' -f1)
  [[ $got == "$old_md5" ]] || fail "node$k: /data/d8/model.bin is not the old complete file (md5 $got)"
done
no_temp_anywhere() {
  local k
  for ((k = 1; k <= NODES; k++)); do
    if "$TESTBED" exec "node$k" bash -c "find /data/d8 -name '*.muster-tmp-*' | grep -q ."; then return 1; fi
  done
}
wait_until 5 no_temp_anywhere || fail "a temporary file is still on a node 5 s after the head died"
step "after the kill: every node has the old, complete model.bin and no temporary"
for ((k = 1; k <= NODES; k++)); do "$TESTBED" rate "node$k" none >/dev/null; done
out=$(muster_sync "$SRC" --to /data/d8 2>&1) || fail "re-run after the kill failed: $out"
assert_all_nodes_match /data/d8 "re-run after the kill"
