#!/usr/bin/env bash
# Prints the path of the Python gpukb should use: the interpreter named by $1 when given (a name on
# PATH, e.g. python3.12, or a path), else the newest CPython 3.11-3.13 found on PATH or under pyenv.
# Exits 1 with a message on stderr when none fits.
set -u
ok() {  # ok PY: prints its X.Y when PY runs and is CPython 3.11-3.13
  "$1" -c 'import sys, platform
v = sys.version_info[:2]
sys.exit(0 if platform.python_implementation() == "CPython" and (3, 11) <= v <= (3, 13) else 1)' >/dev/null 2>&1 \
    && "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'
}
pyenv_root=$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")
candidates() {  # candidates NAME...: each name on PATH, then under pyenv's versions
  for n in "$@"; do
    p=$(command -v "$n" 2>/dev/null) && echo "$p"
    for d in "$pyenv_root"/versions/*/bin/"$n"; do [ -x "$d" ] && echo "$d"; done
  done
}
if [ $# -gt 0 ] && [ -n "$1" ]; then
  for p in $(candidates "$1"); do
    if ok "$p" >/dev/null; then echo "$p"; exit 0; fi
  done
  echo "gpukb: PYTHON=$1 is not a working CPython 3.11, 3.12 or 3.13 (looked on PATH and in $pyenv_root/versions)." >&2
  exit 1
fi
best=""; best_v=0
for p in $(candidates python3.13 python3.12 python3.11 python3); do
  v=$(ok "$p") || continue
  n=$(( ${v%.*} * 100 + ${v#*.} ))
  if [ "$n" -gt "$best_v" ]; then best=$p; best_v=$n; fi
done
if [ -z "$best" ]; then
  echo "gpukb needs CPython 3.11, 3.12 or 3.13 (with venv and its headers, to build durable-rules)." >&2
  echo "Install one, e.g. 'apt-get install python3 python3-venv python3-dev', or 'pyenv install 3.13', or name it: make test PYTHON=/path/to/python3" >&2
  exit 1
fi
echo "$best"
