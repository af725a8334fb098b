#!/usr/bin/env bash
# The posix boundary (ARCHITECTURE.md): only src/posix/ includes system headers or calls raw system calls; every
# other layer goes through its RAII types (Fd, Dir, Process, Poller, ...). Fails naming each offending line.
set -euo pipefail
src=${MUSTER_SOURCE_DIR:?MUSTER_SOURCE_DIR is not set}/src
[[ -d $src/posix ]] || { echo "posix_boundary_test: no $src/posix" >&2; exit 1; }

headers='unistd|fcntl|dirent|spawn|poll|signal|netdb|ifaddrs|pwd|grp|termios|malloc|sched|pthread|sys/[a-z_]+|arpa/[a-z_]+|netinet/[a-z_]+|net/[a-z_]+|linux/[a-z_]+'
calls='open|openat|read|pread|write|pwrite|close|stat|fstat|fstatat|lstat|access|mkdir|mkdirat|rmdir|unlink|unlinkat|rename|renameat|symlink|symlinkat|readlink|readlinkat|chmod|fchmod|fchmodat|chown|utimensat|futimens|dup|dup2|dup3|pipe|pipe2|fcntl|ioctl|kill|killpg|fork|vfork|execv|execve|execvp|waitpid|wait4|setsid|setpgid|getpid|getppid|getuid|geteuid|prctl|socket|bind|listen|accept|accept4|connect|setsockopt|getsockname|sigaction|sigprocmask|epoll_create1|epoll_ctl|epoll_wait|epoll_pwait|mmap|munmap|opendir|fdopendir|readdir|closedir|mallopt'

offenders=$(
  cd "$src"
  find . -path ./posix -prune -o \( -name '*.h' -o -name '*.cc' -o -name '*.h.in' \) -print | sort | while read -r file; do
    grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<($headers)\.h>" "$file" | sed "s|^|src/${file#./}:|" || true
    grep -nE "(^|[^A-Za-z0-9_.>:])::($calls)[[:space:]]*\(" "$file" | sed "s|^|src/${file#./}:|" || true
  done
)
if [[ -n $offenders ]]; then
  echo "posix_boundary_test: system headers or raw system calls outside src/posix/ (use or add a type there):" >&2
  echo "$offenders" >&2
  exit 1
fi
files=$(cd "$src" && find . -path ./posix -prune -o \( -name '*.h' -o -name '*.cc' \) -print | wc -l)
echo "PASS: posix_boundary_test ($files files outside src/posix checked)"
