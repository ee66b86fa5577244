#!/usr/bin/env bash
# Makes sure redis-server is present for the differential tests: installs
# Debian's package when it is missing and we may, otherwise says how.
set -eu
if [ -n "${REDIS_SERVER:-}" ] && [ -x "${REDIS_SERVER}" ]; then exit 0; fi
if command -v redis-server >/dev/null 2>&1; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "redis-server missing: installing Debian's redis-server package" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  # The package starts a system redis on 6379; tests use their own ports, and
  # `make run` wants 6379 for qlessd.
  (service redis-server stop || systemctl stop redis-server || pkill -x redis-server) >/dev/null 2>&1 || true
  command -v redis-server >/dev/null 2>&1 && exit 0
fi
echo "redis-server (Redis 7.0) is required by the differential tests." >&2
echo "Install it with: sudo apt-get install -y redis-server   (or set REDIS_SERVER=/path/to/redis-server)" >&2
exit 1
