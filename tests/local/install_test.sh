#!/usr/bin/env bash
# `cmake --install` of the build: the binary, a man page per command that renders without a groff warning, and
# bash/zsh completions that offer every command and every option the commands' own --help lists (the
# completions and pages are generated from the same CLI definition; this checks them against what CLI11
# prints, so neither can drift). The .deb in a clean Debian root filesystem: tests/package/deb_test.sh.
source "$(dirname "$0")/lib.sh"

build=$(dirname "$MUSTER")
[[ -f $build/cmake_install.cmake ]] || fail "no cmake_install.cmake next to $MUSTER (MUSTER_BIN must be in the build directory)"
prefix=$WORK/prefix
cmake --install "$build" --prefix "$prefix" >"$WORK/install.log" 2>&1 || fail "cmake --install failed: $(cat "$WORK/install.log")"

[[ -x $prefix/bin/muster ]] || fail "no bin/muster installed"
"$prefix/bin/muster" --version | grep -q '^muster .* (build [0-9a-f]\{16\})$' || fail "installed muster --version"
bash_completion=$prefix/share/bash-completion/completions/muster
zsh_completion=$prefix/share/zsh/site-functions/_muster
[[ -f $bash_completion ]] || fail "no bash completion at $bash_completion"
[[ -f $zsh_completion ]] || fail "no zsh completion at $zsh_completion"
[[ -f $prefix/share/doc/muster/copyright ]] || fail "no share/doc/muster/copyright"

# The commands `muster help` lists, and each one's long options as its --help prints them.
commands=$("$MUSTER" help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{exit}')
[[ $commands == *launch* && $commands == *config* ]] || fail "'muster help' lists: $commands"
long_options() {  # the names at the start of each option line ("  -H,--hostfile FILE   help...")
  "$MUSTER" "$@" --help | grep -E '^  +-' | sed -E 's/^ +([^ ]+).*/\1/' | tr ',' '\n' | grep -E '^--[a-z0-9]' |
    grep -vx -- '--help' | sort -u
}

# Man pages: muster(1) and one per command, each rendered by man-db without warnings.
export MANWIDTH=100 LC_ALL=C.UTF-8
for page in muster $(printf 'muster-%s\n' $commands); do
  file=$prefix/share/man/man1/$page.1.gz
  [[ -f $file ]] || fail "no man page $page(1) at $file"
  text=$(man --warnings -l "$file" 2>"$WORK/man.err") || fail "man -l $file failed: $(cat "$WORK/man.err")"
  [[ ! -s $WORK/man.err ]] || fail "man page $page has groff warnings: $(cat "$WORK/man.err")"
  assert_contains "$text" "NAME" "$page(1)"
done
for command in $commands; do  # every option --help lists is on the command's page
  page=$(man -l "$prefix/share/man/man1/muster-$command.1.gz")
  for option in $(long_options "$command"); do
    grep -qF -- "$option" <<<"$page" || fail "muster-$command(1) does not describe $option"
  done
done
for kind in $("$MUSTER" gen --help | awk '/^kinds:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{exit}'); do
  page=$(man -l "$prefix/share/man/man1/muster-gen.1.gz")
  assert_contains "$page" "muster gen $kind" "muster-gen(1)"
  for option in $(long_options gen "$kind"); do
    grep -qF -- "$option" <<<"$page" || fail "muster-gen(1) does not describe $option of $kind"
  done
done
assert_contains "$(man -l "$prefix/share/man/man1/muster-launch.1.gz")" "CONFIGURATION" "muster-launch(1)"

# bash: drive the installed completion function as bash does on TAB.
complete_words() {  # complete_words WORD... (the last is the word being completed): prints the candidates
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
           COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _muster muster; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$bash_completion" "$@"
}
assert_eq "launch" "$(complete_words muster la)" "completion of 'muster la'"
assert_eq "--nproc-per-node" "$(complete_words muster launch --npr)" "completion of 'muster launch --npr'"
assert_eq "$(echo $commands)" "$(echo $(complete_words muster ''))" "completion of 'muster <TAB>'"
for command in $commands; do
  offered=$(complete_words muster "$command" -- | sort -u)
  for option in $(long_options "$command"); do
    grep -qx -- "$option" <<<"$offered" || fail "bash completion of 'muster $command --' lacks $option"
  done
done
kinds=$(complete_words muster gen '')
for kind in $kinds; do
  offered=$(complete_words muster gen "$kind" -- | sort -u)
  for option in $(long_options gen "$kind"); do
    grep -qx -- "$option" <<<"$offered" || fail "bash completion of 'muster gen $kind --' lacks $option"
  done
done
assert_eq "ssh slurm" "$(echo $(complete_words muster launch --transport s))" "values of --transport"

# zsh: every command has its function with every option (the file is loaded by zsh where zsh is installed).
for command in $commands; do
  grep -q "^_muster__${command//-/_}() {" "$zsh_completion" || fail "zsh completion has no function for $command"
done
for option in $(long_options launch); do
  grep -qE -- "[')*]$option[=[]" "$zsh_completion" || fail "zsh completion of launch lacks $option"
done
if command -v zsh >/dev/null; then
  zsh -n "$zsh_completion" || fail "zsh -n $zsh_completion"
fi
