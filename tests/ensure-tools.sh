#!/usr/bin/env bash
# Makes sure the tools some tests drive are present: tmux (the interactive
# redis-cli test) and Debian's chromium (the dashboard's browser tests).
# Installs Debian's packages when they are missing and we may; otherwise
# those tests say they were skipped and why.
set -eu
missing=()
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing Debian's ${missing[*]} for the tests" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "missing ${missing[*]}: the tests that drive them will be skipped (sudo apt-get install -y ${missing[*]})" >&2
