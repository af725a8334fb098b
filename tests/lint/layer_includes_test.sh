#!/usr/bin/env bash
# Each layer sees the headers of the layers below it only (src/CMakeLists.txt, muster_layer): its include path is
# build/include/<layer>/, one link per allowed layer, so `#include "launch/x.h"` in src/head fails to build,
# header-only or not. Checked as the build sees it, with the layer's include path (the preprocessor's part of the
# build), per layer: a file that includes one of the layer's own headers and asks (__has_include, the lookup
# #include does) for every header of every layer it may not use (per the DEPS in its CMakeLists.txt) must go
# through with none found and those of the layers it links found; and a file including one header of a layer
# above must fail with "No such file".
set -euo pipefail
src=${MUSTER_SOURCE_DIR:?MUSTER_SOURCE_DIR is not set}/src
bin=${MUSTER_BIN:?MUSTER_BIN is not set (the built muster: the include directories of the layers are next to it)}
cxx=${MUSTER_CXX:-c++}
root=$(dirname "$bin")/include
generated=$(dirname "$bin")/src/util/generated
[[ -d $root ]] || { echo "layer_includes_test: no $root (configure the build first)" >&2; exit 1; }
command -v "$cxx" >/dev/null || { echo "layer_includes_test: no compiler $cxx" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Preprocesses $work/probe.cc with LAYER's include path (what decides whether an include builds); the compiler's
# output in $work/out.
compile() { "$cxx" -std=c++20 -E -o /dev/null -I "$root/$1" -I "$generated" "$work/probe.cc" >"$work/out" 2>&1; }
declare -A headers  # layer -> its headers (sub-folders too), one a line

layers=()
for dir in "$src"/*/; do
  layer=$(basename "$dir")
  [[ -f $dir/CMakeLists.txt ]] || continue
  headers[$layer]=$(cd "$src" && find "$layer" -name '*.h' | sort)
  [[ -n ${headers[$layer]} ]] && layers+=("$layer")
done
((${#layers[@]} > 10)) || { echo "layer_includes_test: found only ${#layers[@]} layers under $src" >&2; exit 1; }

# What each layer may use, read from the DEPS of its muster_layer() (not from the build): itself and the layers
# it links, transitively.
declare -A deps allowed
for layer in "${layers[@]}"; do
  deps[$layer]=$(awk '/muster_layer\(/ { on = 1 } on { print } on && /\)/ { on = 0 }' "$src/$layer/CMakeLists.txt" |
    sed -n '/DEPS/,$p' | grep -o 'muster_[a-z_]*' | sed 's/^muster_//' | tr '\n' ' ')
done
closure() {  # LAYER: itself and every layer below it, one a line
  local layer=$1 dep
  echo "$layer"
  for dep in ${deps[$layer]:-}; do
    if [[ -n ${deps[$dep]+set} ]]; then closure "$dep"; fi
  done
}
for layer in "${layers[@]}"; do allowed[$layer]=" $(closure "$layer" | sort -u | tr '\n' ' ')"; done

problems=""
hidden=0
for layer in "${layers[@]}"; do
  [[ -d $root/$layer ]] || { problems+=$'\n'"$layer: no include directory $root/$layer"; continue; }
  own=$(head -n 1 <<<"${headers[$layer]}")
  printf '#include "%s"\n' "$own" >"$work/probe.cc"
  above=""
  for other in "${layers[@]}"; do
    [[ $other == "$layer" ]] && continue
    if [[ ${allowed[$layer]} == *" $other "* ]]; then
      first=$(head -n 1 <<<"${headers[$other]}")
      printf '#if !__has_include("%s")\n#error "%s does not see %s"\n#endif\n' "$first" "$layer" "$first" >>"$work/probe.cc"
      continue
    fi
    for header in ${headers[$other]}; do
      printf '#if __has_include("%s")\n#error "%s sees %s"\n#endif\n' "$header" "$layer" "$header" >>"$work/probe.cc"
      hidden=$((hidden + 1))
      [[ -n $above ]] || above=$header
    done
  done
  compile "$layer" || problems+=$'\n'"$layer: $(grep -m 3 -E 'error' "$work/out")"
  [[ -n $above ]] || continue
  printf '#include "%s"\n' "$above" >"$work/probe.cc"
  if compile "$layer"; then
    problems+=$'\n'"$layer: #include \"$above\" builds, though $layer does not link ${above%%/*}"
  elif ! grep -q "No such file" "$work/out"; then
    problems+=$'\n'"$layer: #include \"$above\" failed for another reason: $(head -n 3 "$work/out")"
  fi
done
if [[ -n $problems ]]; then
  echo "layer_includes_test: the include paths of the layers are not their boundary:$problems" >&2
  exit 1
fi
((hidden > 0)) || { echo "layer_includes_test: no layer has a layer above it?" >&2; exit 1; }
echo "layer_includes_test: ${#layers[@]} layers; $hidden headers of layers above are out of their reach"
