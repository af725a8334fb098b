#!/usr/bin/env bash
# The posix boundary (ARCHITECTURE.md): only src/posix/ includes system headers or calls raw system calls; every
# other layer goes through its RAII types (Fd, Dir, Process, Poller, ...). Fails naming each offending line.
#
# Two checks, because the text alone cannot see everything: glibc's <csignal>, <cstdio> and <cstdlib> declare
# kill, rename, popen, setenv, system ... in the global namespace, so an unqualified `kill(pid, sig)` compiles
# without any system header. So besides the sources (system headers, `::call(`, `syscall(`), every built layer
# library except posix's is asked (nm -u) which C functions it calls: none may be a system call wrapper. What the
# C++ standard library's own inline code calls (std::thread: syscall for futexes, sched_yield) is not on the list.
set -euo pipefail
src=${MUSTER_SOURCE_DIR:?MUSTER_SOURCE_DIR is not set}/src
bin=${MUSTER_BIN:?MUSTER_BIN is not set (the built muster; its layer libraries are next to it)}
[[ -d $src/posix ]] || { echo "posix_boundary_test: no $src/posix" >&2; exit 1; }

headers='unistd|fcntl|dirent|spawn|poll|signal|netdb|ifaddrs|pwd|grp|termios|malloc|sched|pthread|sys/[a-z_]+|arpa/[a-z_]+|netinet/[a-z_]+|net/[a-z_]+|linux/[a-z_]+'
calls='open|openat|read|pread|write|pwrite|close|stat|fstat|fstatat|lstat|access|mkdir|mkdirat|rmdir|unlink|unlinkat|rename|renameat|symlink|symlinkat|readlink|readlinkat|chmod|fchmod|fchmodat|chown|utimensat|futimens|dup|dup2|dup3|pipe|pipe2|fcntl|ioctl|kill|killpg|fork|vfork|execv|execve|execvp|waitpid|wait4|setsid|setpgid|getpid|getppid|getuid|geteuid|prctl|socket|bind|listen|accept|accept4|connect|setsockopt|getsockname|sigaction|sigprocmask|epoll_create1|epoll_ctl|epoll_wait|epoll_pwait|mmap|munmap|opendir|fdopendir|readdir|closedir|mallopt'
# The same calls as the libraries name them (large-file and old-glibc variants), and what reaches the system
# without being a call of that list: other file, process, socket and signal calls, the environment, a shell.
symbols="$calls|open64|openat64|creat|pread64|pwrite64|lseek|lseek64|stat64|fstat64|lstat64|fstatat64|__xstat|__lxstat|__fxstat|__fxstatat|statx|faccessat|readdir64|link|linkat|renameat2|truncate|ftruncate|ftruncate64|fchown|lchown|fchownat|flock|chdir|fchdir|execl|execlp|execle|execvpe|fexecve|posix_spawn|posix_spawnp|wait|waitid|popen|pclose|system|setenv|unsetenv|putenv|clearenv|poll|ppoll|select|pselect|socketpair|getsockopt|getpeername|send|sendto|sendmsg|recv|recvfrom|recvmsg|shutdown|signal|sigsuspend|sigwait|sigtimedwait|pthread_sigmask|tcgetattr|tcsetattr|isatty|gethostname|getpwuid|getpwuid_r|getpwnam|getpwnam_r|getaddrinfo|getrlimit|setrlimit|prlimit"

offenders=$(
  cd "$src"
  find . -path ./posix -prune -o \( -name '*.h' -o -name '*.cc' -o -name '*.h.in' -o -name '*.cc.in' \) -print | sort |
    while read -r file; do
      grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*<($headers)\.h>" "$file" | sed "s|^|src/${file#./}:|" || true
      grep -nE "(^|[^A-Za-z0-9_.>:])::($calls)[[:space:]]*\(" "$file" | sed "s|^|src/${file#./}:|" || true
      grep -nE "(^|[^A-Za-z0-9_.>])syscall[[:space:]]*\(" "$file" | sed "s|^|src/${file#./}:|" || true
    done
)
if [[ -n $offenders ]]; then
  echo "posix_boundary_test: system headers or raw system calls outside src/posix/ (use or add a type there):" >&2
  echo "$offenders" >&2
  exit 1
fi

command -v nm >/dev/null || { echo "posix_boundary_test: nm (binutils) is needed for the library check" >&2; exit 1; }
build=$(dirname "$bin")
libraries=0
missing=""
called=""
for layer_dir in "$src"/*/; do
  layer=$(basename "$layer_dir")
  [[ $layer == posix ]] && continue
  [[ -f $layer_dir/CMakeLists.txt ]] || continue
  library="$build/src/$layer/libmuster_$layer.a"
  if [[ ! -f $library ]]; then
    missing+=" $library"
    continue
  fi
  libraries=$((libraries + 1))
  # "<library>:<object>: U <symbol>"; C++ names are mangled (_Z...), so only C functions can match.
  called+=$(nm -A -u "$library" | awk -v deny="^($symbols)\$" '$NF ~ deny { print $1 " " $NF }')
  called+=$'\n'
done
if [[ -n $missing ]]; then
  echo "posix_boundary_test: layer libraries not built (build everything before the tests):$missing" >&2
  exit 1
fi
called=$(grep -v '^$' <<<"$called" || true)
if [[ -n $called ]]; then
  echo "posix_boundary_test: layer libraries outside posix call system functions (use or add a type in src/posix):" >&2
  echo "$called" | sed 's|^.*/src/||' >&2
  exit 1
fi
files=$(cd "$src" && find . -path ./posix -prune -o \( -name '*.h' -o -name '*.cc' -o -name '*.h.in' -o -name '*.cc.in' \) -print | wc -l)
echo "PASS: posix_boundary_test ($files files outside src/posix checked; $libraries layer libraries checked with nm)"
