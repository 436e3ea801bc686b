#!/usr/bin/env bash
# serve.sh - Blockwise on this machine: blockwise-server on an embedded SQLite
# file plus one local judged, for trying it out and for development.
#
#   scripts/serve.sh [PORT]        (default 8080; state in .blockwise/)
#
# The first run creates .blockwise/blockwise.conf, an admin account "admin"
# (its password is printed once and kept in .blockwise/admin.password) and a
# worker token for the local judged. On a machine without a GPU the worker
# compiles submissions (compile errors come back at once) and the rest of
# each job waits, visibly, for a GPU worker. Ctrl-C stops both.
set -u
cd "$(dirname "$0")/.."
port=${1:-8080}
state=.blockwise
bin=build/bin
mkdir -p "$state"
[ -x "$bin/blockwise-server" ] && [ -x "$bin/judged" ] || make -j"$(nproc)" all || exit 1

if [ ! -f "$state/blockwise.conf" ]; then
    cat >"$state/blockwise.conf" <<EOF
listen = 127.0.0.1
port = $port
database = $state/blockwise.db
problems = problems
web = web/dist
cookie_secure = no
log_format = text
EOF
fi
if [ ! -f "$state/admin.password" ]; then
    head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$state/admin.password"
    chmod 600 "$state/admin.password"
    "$bin/blockwise-server" -c "$state/blockwise.conf" --port "$port" create-admin admin \
        --password-file "$state/admin.password" || exit 1
    echo "admin password: $(cat "$state/admin.password") (kept in $state/admin.password)"
fi
if [ ! -f "$state/worker.token" ]; then
    "$bin/blockwise-server" -c "$state/blockwise.conf" --port "$port" \
        create-worker "local-$(hostname)" --token-file "$state/worker.token" || exit 1
fi

worker=
"$bin/blockwise-server" -c "$state/blockwise.conf" --port "$port" &
server=$!
trap 'kill $worker $server 2>/dev/null; wait' INT TERM EXIT
for _ in $(seq 100); do
    curl -s "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break
    sleep 0.1
done
"$bin/judged" --server "http://127.0.0.1:$port" --token-file "$state/worker.token" --gpu 0 \
    --cache "$state/judged-cache" &
worker=$!
echo "Blockwise is at http://127.0.0.1:$port/ (admin: admin); Ctrl-C stops it"
wait $server
