#!/usr/bin/env bash
# Makes sure redis-server is present for the differential tests: installs
# Debian's package when it is missing and we may, otherwise says how.
set -eu
if [ -n "${REDIS_SERVER:-}" ] && [ -x "${REDIS_SERVER}" ]; then exit 0; fi
if command -v redis-server >/dev/null 2>&1; then exit 0; fi
stop_packaged_redis() {
  if service redis-server stop >/dev/null 2>&1 || systemctl stop redis-server >/dev/null 2>&1; then
    return 0
  fi
  # No init system (a container): the package's own pid file names it.
  for pidfile in /run/redis/redis-server.pid /var/run/redis/redis-server.pid; do
    if [ -s "$pidfile" ]; then
      kill "$(cat "$pidfile")" >/dev/null 2>&1 || true
      return 0
    fi
  done
}
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "redis-server missing: installing Debian's redis-server package" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  # The package starts a system redis on 6379; tests use their own ports, and
  # `make run` wants 6379 for qlessd. Stop that service only: other
  # redis-server processes on this machine are not ours to stop.
  stop_packaged_redis
  command -v redis-server >/dev/null 2>&1 && exit 0
fi
echo "redis-server (Redis 7.0) is required by the differential tests." >&2
echo "Install it with: sudo apt-get install -y redis-server   (or set REDIS_SERVER=/path/to/redis-server)" >&2
exit 1
