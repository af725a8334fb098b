#!/usr/bin/env bash
# The .deb, for real: `cpack -G DEB` from this build; lintian finds no error or warning (its remaining notes are
# explained in packaging/README.md); it needs no glibc newer than Ubuntu 22.04's; `dpkg -i` installs it in a
# clean Debian 12 root filesystem (mmdebstrap minbase + man-db, bash-completion and zsh, cached in
# /var/cache/muster-tests); there `muster --version` runs, `man muster-launch` shows the page, and TAB in an
# interactive login bash (bash-completion's loader) and in zsh (compinit) completes `muster la` and
# `muster launch --npr` (a pseudo-terminal, tab_complete.py); `dpkg -r` removes every file it installed.
# Needs root (chroot, dpkg into a root filesystem): exit 77 without it, a failure with MUSTER_REQUIRE_CLUSTER=1.
PACKAGE_TEST_DIR=$(cd "$(dirname "$0")" && pwd)
source "$PACKAGE_TEST_DIR/../local/lib.sh"

skip() {
  if [[ ${MUSTER_REQUIRE_CLUSTER:-0} == 1 ]]; then fail "required but cannot run: $*"; fi
  echo "SKIP: $TEST_NAME: $*" >&2
  exit 77
}
[[ $(id -u) == 0 ]] || skip "needs root (chroot and dpkg into a root filesystem)"
for tool in cpack lintian mmdebstrap unshare chroot /usr/bin/python3 flock; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/install-deps)"
done
build=$(dirname "$MUSTER")
[[ -f $build/CPackConfig.cmake ]] || fail "no CPackConfig.cmake next to $MUSTER (MUSTER_BIN must be in the build directory)"

# --- build and inspect the package -------------------------------------------------------------------------
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$WORK/pkg" >"$WORK/cpack.log" 2>&1 || fail "cpack: $(cat "$WORK/cpack.log")"
debs=("$WORK"/pkg/muster_*.deb)
[[ -f ${debs[0]} && ${#debs[@]} == 1 ]] || fail "cpack made ${debs[*]}"
deb=${debs[0]}
lintian --fail-on error,warning --tag-display-limit 0 "$deb" >"$WORK/lintian.log" 2>&1 ||
  fail "lintian: $(grep -v 'root privileges' "$WORK/lintian.log")"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends =~ ^libc6\ \(\>=\ 2\.([0-9]+)\)$ ]] || fail "Depends: '$depends', expected only libc6 (>= 2.N)"
((BASH_REMATCH[1] <= 35)) || fail "Depends: $depends: Ubuntu 22.04 has glibc 2.35"

# --- a clean Debian 12 root filesystem, cached -------------------------------------------------------------
cache=${MUSTER_TEST_CACHE:-/var/cache/muster-tests}
packages=man-db,bash-completion,zsh
image=$cache/debian-bookworm-minbase-${packages//,/-}.tar
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9  # one builder at a time; the others use its image
if [[ ! -f $image ]]; then
  echo "deb_test: making $image with mmdebstrap (once; about 2 minutes)"
  partial=$cache/.partial-$$.tar
  mmdebstrap --quiet --variant=minbase --include="$packages" bookworm "$partial" ${MUSTER_TEST_DEBIAN_MIRROR:-} \
    >"$WORK/mmdebstrap.log" 2>&1 || { rm -f "$partial"; fail "mmdebstrap: $(tail -20 "$WORK/mmdebstrap.log")"; }
  mv "$partial" "$image"
fi
flock -u 9
root=$WORK/root
mkdir "$root"
tar -xf "$image" -C "$root" || fail "cannot extract $image"
cp "$deb" "$root/tmp/muster.deb"

# in_root CMD...: runs in the root filesystem, in its own mount and pid namespaces (its /proc goes with them).
root_argv=(unshare --mount --pid --fork --mount-proc="$root/proc"
  chroot "$root" env -i HOME=/root TERM=dumb LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin)
in_root() { "${root_argv[@]}" "$@"; }
tab() { /usr/bin/python3 "$PACKAGE_TEST_DIR/tab_complete.py" "$@"; }
bash_tab() { tab --setup "PS1='$ '" "$@" -- "${root_argv[@]}" bash --login -i; }
zsh_tab() { tab --setup "PS1='$ '" --setup "autoload -U compinit && compinit -u" "$@" -- "${root_argv[@]}" zsh -f -i; }

# Before the package: nothing completes `muster la` (the checks below can fail).
assert_eq "muster la" "$(bash_tab --type "muster la")" "bash TAB before installing"

# --- install ------------------------------------------------------------------------------------------------
in_root dpkg -i /tmp/muster.deb >"$WORK/dpkg.log" 2>&1 || fail "dpkg -i: $(cat "$WORK/dpkg.log")"
grep -qiE 'warning|error' "$WORK/dpkg.log" && fail "dpkg -i printed: $(cat "$WORK/dpkg.log")"
out=$(in_root muster --version) || fail "muster --version in the root filesystem"
[[ $out =~ ^muster\ [0-9.]+\ \(build\ [0-9a-f]{16}\)$ ]] || fail "muster --version printed '$out'"
page=$(in_root sh -c 'MANWIDTH=200 man muster-launch 2>&1 | tr -s " "') || fail "man muster-launch: $page"
assert_contains "$page" "muster-launch - start a job on every node" "man muster-launch"
assert_contains "$page" "--nproc-per-node" "man muster-launch"
assert_eq "/usr/share/man/man1/muster-launch.1.gz" "$(in_root man -w muster-launch)" "man -w muster-launch"
assert_contains "$(in_root man muster 2>&1)" "muster-config(1)" "man muster"

results=$(bash_tab --type "muster la" --type "muster launch --npr" --type "muster gen sb" --type "muster launch --transport sl")
assert_eq "muster launch
muster launch --nproc-per-node
muster gen sbatch
muster launch --transport slurm" "$results" "bash TAB completion"
results=$(zsh_tab --type "muster la" --type "muster launch --npr" --type "muster launch --transport sl")
assert_eq "muster launch
muster launch --nproc-per-node
muster launch --transport slurm" "$results" "zsh TAB completion"

# --- remove -------------------------------------------------------------------------------------------------
files=$(in_root dpkg -L muster | while read -r path; do [[ -d $root$path ]] || echo "$path"; done)
[[ $files == *usr/bin/muster* ]] || fail "dpkg -L muster: $files"
in_root dpkg -r muster >"$WORK/dpkg-r.log" 2>&1 || fail "dpkg -r: $(cat "$WORK/dpkg-r.log")"
for path in $files; do
  [[ ! -e $root$path ]] || fail "dpkg -r left $path"
done
echo "deb_test: $(basename "$deb"), Depends: $depends, $(wc -w <<<"$files") files installed and removed"
