#!/bin/sh
# The ELT3 trampolines save only the general scratch registers around umbra_elt3_try_enter/leave: that is safe
# only while those functions call nothing and use no vector or x87 register. Checks the built library (run after
# every link of libumbra.so, and as a test).
# Usage: check_fast_path_calls_nothing.sh path/to/libumbra.so
set -eu
library=$1
status=0
for function in umbra_elt3_try_enter umbra_elt3_try_leave umbra_elt3_try_tailcall; do
  body=$(objdump -d --no-show-raw-insn --disassemble="$function" "$library" | grep -E '^ +[0-9a-f]+:' || true)
  if [ -z "$body" ]; then
    echo "$function: not found in $library"
    status=1
    continue
  fi
  # Any call, any jump whose target is not inside the function itself, any vector register, any x87 instruction.
  bad=$(printf '%s\n' "$body" | grep -E 'call|%[xyz]mm|%mm[0-7]|%st|[[:space:]]j[a-z]* |:[[:space:]]+f[a-z0-9]+' \
    | grep -v "<$function+0x" || true)
  if [ -n "$bad" ]; then
    echo "$function must call nothing and use no vector register; found:"
    printf '%s\n' "$bad"
    status=1
  else
    echo "$function: $(printf '%s\n' "$body" | wc -l) instructions, no call, no vector register"
  fi
done
exit $status
