#!/usr/bin/env bash
# The qless bindings over TLS: qless-py (rediss:// URL), the Ruby gem
# (ssl: true with ssl_params) and qless-js (node redis's tls option) each put,
# pop and complete a job on a qlessd that serves TLS only (port 0), and
# redis-cli --tls reads the jobs back. Not part of `make test`: it installs
# Debian packages and fetches the bindings at run time, into a temporary
# directory removed at the end (nothing fetched is kept or committed).
#
#   tests/clients/tls-bindings.sh            # builds qlessd from this tree
#   QLESSD=/path/to/qlessd tests/clients/tls-bindings.sh
#
# Sources, each a git URL or a local clone (defaults: the upstream repositories):
#   QLESS_PY_GIT   qless-py, at QLESS_PY_REF (3eda4ff, version 0.11.4, pinning the qless-core
#                  13cf415 that README lists for 0.11.4; the v0.11.4 tag pins d15c37c)
#   QLESS_RB_GIT   the qless gem, at QLESS_RB_REF (v0.14.0)
#   QLESS_JS_GIT   qless-js, at QLESS_JS_REF (HEAD: 0.4.9, which is not on npm);
#                  its dependencies come from npm
#   QLESS_CORE_GIT qless-core, built at the commits qless-py and qless-js pin
# Other knobs: TLS_AUTH_CLIENTS (yes: the default, optional or no),
# SKIP_APT=1 (the packages are there already), KEEP=1 (keep the directory).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${QLESS_PY_GIT:=https://github.com/seomoz/qless-py}" "${QLESS_PY_REF:=3eda4ffcd4c0016c9a7e44f780d6155e1a354dda}"
: "${QLESS_RB_GIT:=https://github.com/seomoz/qless}" "${QLESS_RB_REF:=v0.14.0}"
: "${QLESS_JS_GIT:=https://github.com/seomoz/qless-js}" "${QLESS_JS_REF:=HEAD}"
: "${QLESS_CORE_GIT:=https://github.com/seomoz/qless-core}"
: "${TLS_AUTH_CLIENTS:=yes}"
PY=/usr/bin/python3 # Debian's, which python3-redis serves

install_packages() {
	[[ -n "${SKIP_APT:-}" ]] && return
	local sudo="" node=()
	[[ $(id -u) -eq 0 ]] || sudo=sudo
	# A node installed otherwise (not from Debian) is kept: Debian's npm would conflict with it.
	command -v node >/dev/null && command -v npm >/dev/null || node=(nodejs npm)
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq git make openssl redis-tools \
		python3 python3-redis python3-decorator python3-simplejson python3-six \
		ruby ruby-redis "${node[@]}" >/dev/null
}

# make_certs writes a CA, a server certificate for 127.0.0.1 and localhost,
# and a client certificate, EC P-256, into $1.
make_certs() {
	local d=$1 n
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$d/ca.key" 2>/dev/null
	openssl req -x509 -new -key "$d/ca.key" -subj /CN=qlessd-tls-bindings-ca -days 2 -out "$d/ca.crt"
	for n in server client; do
		openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$d/$n.key" 2>/dev/null
		openssl req -new -key "$d/$n.key" -subj "/CN=$n" -out "$d/$n.csr"
		printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' >"$d/$n.ext"
		openssl x509 -req -in "$d/$n.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
			-extfile "$d/$n.ext" -out "$d/$n.crt" 2>/dev/null
	done
}

# clone_at URL REF DIR
clone_at() {
	git clone -q "$1" "$3"
	git -C "$3" -c advice.detachedHead=false checkout -q "$2"
}

# core_lua DIR PATH: builds qless.lua of qless-core at the commit the clone
# DIR pins for its submodule PATH, into DIR/PATH/qless.lua (the submodules
# point at git:// URLs that no longer answer).
core_lua() {
	local commit
	commit=$(git -C "$1" ls-tree HEAD "$2" | awk '{print $3}')
	[[ -d "$work/qless-core" ]] || git clone -q "$QLESS_CORE_GIT" "$work/qless-core"
	git -C "$work/qless-core" -c advice.detachedHead=false checkout -q "$commit"
	make -s -C "$work/qless-core" clean qless.lua >/dev/null 2>&1 || make -s -C "$work/qless-core" qless.lua >/dev/null
	mkdir -p "$1/$2"
	cp "$work/qless-core/qless.lua" "$1/$2/qless.lua"
	echo "qless-core $commit built for $(basename "$1")"
}

start_qlessd() {
	port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$QLESSD" --port 0 --tls-port "$port" --bind 127.0.0.1 --dir "$work/data" --http-addr "" \
		--tls-cert-file "$certs/server.crt" --tls-key-file "$certs/server.key" \
		--tls-ca-cert-file "$certs/ca.crt" --tls-auth-clients "$TLS_AUTH_CLIENTS" >"$work/qlessd.log" 2>&1 &
	qlessd_pid=$!
	for _ in $(seq 300); do
		cli PING 2>/dev/null | grep -q PONG && return
		kill -0 "$qlessd_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$work/qlessd.log" >&2
	echo "qlessd did not answer PING over TLS on port $port" >&2
	exit 1
}

cli() {
	redis-cli --tls --cacert "$certs/ca.crt" --cert "$certs/client.crt" --key "$certs/client.key" \
		-h 127.0.0.1 -p "$port" "$@"
}

# check BINDING JID: the job is complete, as redis-cli --tls reads it.
check() {
	local state
	state=$(cli QLESS get now "$2" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["state"])')
	if [[ "$state" == complete ]]; then
		echo "redis-cli --tls: $2 is complete"
		passed=$((passed + 1))
	else
		echo "FAIL: $1: redis-cli --tls reads $2 as ${state:-missing}" >&2
		failed=$((failed + 1))
	fi
}

run_binding() { # NAME JID COMMAND...
	local name=$1 jid=$2
	shift 2
	echo "== $name"
	if "$@" "$port" "$certs" "$jid"; then
		check "$name" "$jid"
	else
		echo "FAIL: $name exited $?" >&2
		failed=$((failed + 1))
	fi
}

main() {
	install_packages
	work=$(mktemp -d)
	certs=$work/certs
	qlessd_pid=""
	trap 'kill "$qlessd_pid" 2>/dev/null; wait "$qlessd_pid" 2>/dev/null; [[ -n "${KEEP:-}" ]] || rm -rf "$work"' EXIT
	mkdir -p "$certs" "$work/data"
	if [[ -z "${QLESSD:-}" ]]; then
		QLESSD=$work/qlessd
		(cd "$root" && go build -o "$QLESSD" ./cmd/qlessd)
	fi
	make_certs "$certs"

	clone_at "$QLESS_PY_GIT" "$QLESS_PY_REF" "$work/qless-py"
	core_lua "$work/qless-py" qless/qless-core
	clone_at "$QLESS_RB_GIT" "$QLESS_RB_REF" "$work/qless-rb"
	clone_at "$QLESS_JS_GIT" "$QLESS_JS_REF" "$work/qless-js"
	core_lua "$work/qless-js" lib/qless-core
	(cd "$work/qless-js" && npm install -s --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)

	start_qlessd
	echo "qlessd serves TLS only on 127.0.0.1:$port (tls-auth-clients $TLS_AUTH_CLIENTS)"
	passed=0 failed=0
	run_binding qless-py jid-tls-py env PYTHONPATH="$work/qless-py" "$PY" "$here/tls_bindings.py"
	run_binding "qless gem" jid-tls-rb ruby -I "$work/qless-rb/lib" "$here/tls_bindings.rb"
	run_binding qless-js jid-tls-js env QLESS_JS_DIR="$work/qless-js" node "$here/tls_bindings.js"
	echo "== INFO qless over TLS"
	cli INFO qless | grep -E '^script_' || true
	echo "$passed passed, $failed failed"
	[[ $failed -eq 0 ]]
}

main "$@"
