#!/bin/sh
# The code's layers, bottom first; a folder may include its own headers and those of the layers below it, never
# one above or beside it. Fails, naming every offending include, when one does.
#   usage: check_layers.sh SOURCE_ROOT
root=${1:-.}
layers='
clr 0
util 0
report 1
hooks 1
names 1
snapshot 2
threads 3
merge 4
sampler 5
profiler 6
launcher 7
'
rank() { printf '%s\n' "$layers" | awk -v l="$1" '$1 == l { print $2 }'; }
status=0
for file in $(find "$root/src" "$root/tools/launcher" -name '*.h' -o -name '*.cpp' | sort); do
  case "$file" in
    "$root"/tools/launcher/*) layer=launcher ;;
    *) layer=$(echo "${file#$root/src/}" | cut -d/ -f1) ;;
  esac
  own=$(rank "$layer")
  if [ -z "$own" ]; then
    echo "${file#$root/}: folder '$layer' is not a layer of tests/tools/check_layers.sh: add it at its rank"
    status=1
    continue
  fi
  for included in $(sed -n 's/^#include "\([a-z_]*\)\/.*"/\1/p' "$file" | sort -u); do
    [ "$included" = "$layer" ] && continue
    theirs=$(rank "$included")
    [ -z "$theirs" ] && continue  # not a folder of src/ (the launcher's own headers)
    if [ "$theirs" -ge "$own" ]; then
      echo "${file#$root/}: includes $included/ (layer $theirs), but $layer/ (layer $own) may include only layers below it"
      status=1
    fi
  done
done
[ $status -eq 0 ] && echo "layers: every include points down"
exit $status
