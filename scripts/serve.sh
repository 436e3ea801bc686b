#!/usr/bin/env bash
# serve.sh - Blockwise on this machine: blockwise-server on an embedded SQLite
# file plus one local judged, for trying it out and for development.
#
#   scripts/serve.sh [PORT]        (default 8080; state in .blockwise/)
#
# The first run creates .blockwise/blockwise.conf, an admin account "admin"
# whose password is kept in .blockwise/admin.password (printed once, and named
# again in the banner every run), and a worker token for the local judged. The
# admin is made again with the file's password whenever the database or the
# file is new. On a machine without a GPU the worker compiles submissions
# (compile errors come back at once) and the rest of each job waits, visibly,
# for a GPU worker. Ctrl-C stops both.
#
# For tests: BW_SERVE_STATE (the state directory) and BW_SERVE_BIN (where
# blockwise-server and judged are) override the defaults.
set -u
cd "$(dirname "$0")/.."
port=${1:-8080}
state=${BW_SERVE_STATE:-.blockwise}
bin=${BW_SERVE_BIN:-build/bin}
mkdir -p "$state"
[ -x "$bin/blockwise-server" ] && [ -x "$bin/judged" ] || make -j"$(nproc)" all || exit 1

if [ ! -f "$state/blockwise.conf" ]; then
    cat >"$state/blockwise.conf" <<EOC
listen = 127.0.0.1
port = $port
database = $state/blockwise.db
problems = problems
web = web/dist
cookie_secure = no
log_format = text
EOC
fi
password_file=$(cd "$state" && pwd)/admin.password
make_admin=
if [ ! -f "$password_file" ]; then
    head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$password_file"
    chmod 600 "$password_file"
    echo "admin password: $(cat "$password_file") (kept in $password_file)"
    make_admin=1
fi
if [ ! -f "$state/blockwise.db" ]; then
    make_admin=1
    rm -f "$state/worker.token" # its worker was in the old database
fi
if [ -n "$make_admin" ]; then
    # Creates admin, or resets its password to the file's.
    "$bin/blockwise-server" -c "$state/blockwise.conf" --port "$port" create-admin admin \
        --password-file "$password_file" || exit 1
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
    kill -0 "$server" 2>/dev/null || exit 1
    sleep 0.1
done
"$bin/judged" --server "http://127.0.0.1:$port" --token-file "$state/worker.token" --gpu 0 \
    --cache "$state/judged-cache" &
worker=$!
echo "Blockwise is at http://127.0.0.1:$port/ - sign in as admin with the password in" \
    "$password_file; Ctrl-C stops it"
wait $server
