#!/usr/bin/env bash
# The muster binary itself: it is what the .deb installs and what the head copies to every node, so it must
# start on any Debian 12 / Ubuntu 22.04 or later of its architecture: only glibc (and the loader) as shared
# libraries, and no glibc symbol newer than 2.35 (Ubuntu 22.04). `muster --version` prints the version and the
# build id, the XXH3-64 of the file, which names its cache directory on the nodes (a node checks the file there by
# its SHA-256 without running it: docs/agent-protocol.md section 1).
source "$(dirname "$0")/lib.sh"

libs=$(ldd "$MUSTER" | awk '{print $1}' | sed 's|.*/||' | sort)
for lib in $libs; do
  case $lib in
    linux-vdso.so.1 | libc.so.6 | libm.so.6 | ld-linux-x86-64.so.2 | ld-linux-aarch64.so.1) ;;
    *) fail "the binary links $lib; only glibc may stay shared (ldd: $(echo $libs))" ;;
  esac
done

newest=$(objdump -T "$MUSTER" | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1)
[[ -n $newest ]] || fail "objdump -T found no GLIBC symbol versions"
minor=${newest#GLIBC_2.}
if ((minor > 35)); then
  fail "the binary needs $newest (Ubuntu 22.04 has glibc 2.35): $(objdump -T "$MUSTER" | grep "$newest")"
fi

out=$("$MUSTER" --version) || fail "'muster --version' failed"
[[ $out =~ ^muster\ ([0-9]+\.[0-9]+\.[0-9]+)\ \(build\ ([0-9a-f]{16})\)$ ]] ||
  fail "'muster --version' printed '$out', expected 'muster X.Y.Z (build <16 hex digits>)'"
build_id=${BASH_REMATCH[2]}
assert_eq "$out" "$("$MUSTER" version)" "'muster version' and 'muster --version'"
command -v xxhsum >/dev/null || fail "xxhsum is missing (apt-get install xxhash; scripts/install-deps has it)"
assert_eq "$build_id" "$(xxhsum -H3 <"$MUSTER" | grep -oE '[0-9a-f]{16}' | head -n 1)" "build id vs XXH3-64 of $MUSTER"

echo "binary_test: shared: $(echo $libs); newest glibc symbol $newest; build $build_id"
