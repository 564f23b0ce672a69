#!/usr/bin/env bash
# Runs a command with scripts/crash_frames.c preloaded and, when it dies of a signal, prints the
# crashing thread's frames as function, file and line (addr2line), for a machine without gdb:
#   scripts/crash_frames.sh python3 -m pytest -p no:faulthandler python/tests/test_x.py
# Its exit status is the command's.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
library=$(mktemp -d)/crash_frames.so
if ! cc -shared -fPIC -O1 -o "$library" "$here/crash_frames.c" -ldl; then
  echo "crash_frames.sh: could not build the crash reporter; running without it" >&2
  exec "$@"
fi
log=$(mktemp)
LD_PRELOAD="$library${LD_PRELOAD:+:$LD_PRELOAD}" "$@" 2> >(tee "$log" >&2)
status=$?
wait
if grep -q '^FRAME ' "$log"; then
  echo "== frames of the crash, symbolised"
  grep '^FRAME ' "$log" | while read -r _ file offset symbol; do
    if [[ "$file" == "?" ]]; then
      echo "?? $offset"
      continue
    fi
    where=$(addr2line -f -C -i -e "$file" "$offset" 2>/dev/null | paste -sd ' ' -)
    [[ -z "$where" || "$where" == "?? ??:0" ]] && where="$symbol (no line information)"
    echo "$(basename "$file") $offset $where"
  done
fi
exit "$status"
