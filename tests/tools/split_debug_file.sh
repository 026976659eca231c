#!/bin/sh
# Copies of a library with its symbols moved to a separate debug file, the two ways distributions do it, for the
# native symbol tests: OUT/debuglink/LIB (stripped, .gnu_debuglink to OUT/debuglink/.debug/LIB.debug) and
# OUT/buildid/LIB (stripped, no debuglink; the debug file at OUT/debug-root/.build-id/xx/yyyy.debug).
# Usage: split_debug_file.sh LIBRARY OUT_DIR
set -eu
library=$1
out=$2
name=$(basename "$library")
rm -rf "$out/debuglink" "$out/buildid" "$out/debug-root"
mkdir -p "$out/debuglink/.debug" "$out/buildid"

objcopy --only-keep-debug "$library" "$out/debuglink/.debug/$name.debug"
objcopy --strip-all --add-gnu-debuglink="$out/debuglink/.debug/$name.debug" "$library" "$out/debuglink/$name"

build_id=$(readelf -n "$library" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$build_id" ] || { echo "$library has no build id" >&2; exit 1; }
id_dir=$out/debug-root/.build-id/$(echo "$build_id" | cut -c1-2)
mkdir -p "$id_dir"
objcopy --only-keep-debug "$library" "$id_dir/$(echo "$build_id" | cut -c3-).debug"
objcopy --strip-all "$library" "$out/buildid/$name"
