# emit_known_bytes.sh [FAILING_RANK] — what a rank writes in the log tests: known bytes in several writes with
# pauses (\r progress updates, CRLF lines, a line split across writes, escapes / tabs / invalid UTF-8, 2000
# short lines, one 200 KB line, a partial last line). The same on a node and on the head (dash), so the head
# can make the expected rank-N.log. FAILING_RANK, if given, exits 3 two seconds after the others end.
r=$RANK
printf "rank %s of node %s: start\n" "$r" "$NODE_RANK"
printf "progress   0%%\r"; sleep 0.05; printf "progress  50%%\r"; sleep 0.05; printf "progress 100%%\n"
printf "crlf line 1\r\ncrlf line 2\r\n"
printf "partial "; sleep 0.2; printf "and the rest of the line\n"
printf "esc \033[31mred\033[0m tab\there bytes \377\376\001 utf8 ünï ✓\n"
i=0; while [ $i -lt 2000 ]; do printf "bulk %s %05d ................................\n" "$r" $i; i=$((i + 1)); done
head -c 200000 /dev/zero | tr "\0" "y"; printf "\n"
printf "bare cr at the end of a write\r"; sleep 0.05; printf "overwritten\n"
printf "last line without newline %s" "$r"
if [ "$r" = "${1:-}" ]; then sleep 2; exit 3; fi  # after the others (they need ~0.4 s): none is stopped by fail-fast
