# shellcheck shell=bash
# server-suite.sh - what the suites that drive blockwise-server with curl share
# (tests/cpu/server.sh, tests/cpu/hardening.sh); sourced.
#
# The suite sets bin (the server), T (its folder), BASE (http://127.0.0.1:PORT)
# and CONF (the configuration start_server uses), and defines finish, which
# stops what it started, prints "N passed, N failed, N skipped" and exits.
#
#   ok NAME / bad NAME / check NAME CONDITION     count a check (CONDITION is eval'd)
#   server_suite_needs                            skips the suite without jq or curl, fails it without $bin
#   start_server / stop_server [SIGNAL]           the server on $CONF, logging to $T/server.log
#   suite_deadline SECONDS                        past it, a failure naming the deadline, then finish
#   req METHOD PATH [BODY] [CURL ARGS...]         sets STATUS, BODY, HDRS
#   as USER METHOD PATH [BODY] [CURL ARGS...]     req with USER's cookie jar (renamed into place) and CSRF token
#   worker TOKENFILE METHOD PATH [BODY]           req with a worker's token
#   signup NAME [CURL ARGS...]                    NAME's jar and CSRF token in $T
#   signin NAME PASSWORD [CURL ARGS...]
#   field JQ / err / errfield                     read $BODY

pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { # check NAME CONDITION-STRING...
    local name=$1
    shift
    local body=${BODY:-}
    if eval "$@"; then ok "$name"; else bad "$name (${STATUS:-} ${body:0:300})"; fi
}

server_suite_needs() {
    if ! command -v jq >/dev/null || ! command -v curl >/dev/null; then
        echo "jq and curl are needed (scripts/install-deps.sh)"
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
    fi
    if [ ! -x "$bin" ]; then
        echo "no $bin"
        echo "0 passed, 1 failed, 0 skipped"
        exit 1
    fi
}

SERVER_PID=
start_server() {
    "$bin" -c "$CONF" >>"$T/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 200); do
        curl -s -m 5 "$BASE/api/health" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "server did not start:"
    tail -20 "$T/server.log"
    return 1
}
stop_server() { # stop_server [SIGNAL]
    if [ -n "$SERVER_PID" ]; then
        kill -"${1:-TERM}" "$SERVER_PID" 2>/dev/null
        wait "$SERVER_PID" 2>/dev/null
        SERVER_PID=
    fi
}

# Past the deadline, whatever hangs is a failure, not a stuck run. finish
# kills the watchdog ($WATCHDOG).
WATCHDOG=
suite_deadline() {
    DEADLINE=$1
    (
        for _ in $(seq "$DEADLINE"); do sleep 1; done
        kill -USR1 $$
    ) 2>/dev/null &
    WATCHDOG=$!
    trap 'WATCHDOG=; bad "the suite ran past its ${DEADLINE} s deadline"; finish' USR1
}

req() {
    local method=$1 path=$2 body=${3-}
    shift 3 2>/dev/null || shift $#
    local args=(-s -m 30 -o "$T/body" -D "$T/hdrs" -w '%{http_code}' -X "$method")
    if [ -n "$body" ]; then
        args+=(-H 'Content-Type: application/json' --data-binary "$body")
    fi
    STATUS=$(curl "${args[@]}" "$@" "$BASE$path")
    BODY=$(cat "$T/body")
    HDRS=$(cat "$T/hdrs")
}
# The jar is written to a new file and renamed over the old one: an event
# stream running in the background (curl -b JAR ... &) reads the jar when it
# starts, and must never find it half written.
as() {
    local who=$1
    shift
    local method=$1 path=$2 body=${3-}
    shift 3 2>/dev/null || shift $#
    req "$method" "$path" "$body" -b "$T/$who.jar" -c "$T/$who.jar.new" \
        -H "X-CSRF-Token: $(cat "$T/$who.csrf" 2>/dev/null)" "$@"
    [ -e "$T/$who.jar.new" ] && mv -f "$T/$who.jar.new" "$T/$who.jar"
    rm -f "$T/$who.jar.new"
}
worker() {
    local tf=$1
    shift
    local method=$1 path=$2 body=${3-}
    req "$method" "$path" "$body" -H "Authorization: Bearer $(cat "$tf")"
}
signup() {
    local name=$1
    shift
    req POST /api/auth/signup "{\"name\":\"$name\",\"password\":\"password-$name\"}" \
        -c "$T/$name.jar" "$@"
    field .csrf >"$T/$name.csrf"
}
signin() {
    local name=$1 pw=$2
    shift 2
    req POST /api/auth/signin "{\"name\":\"$name\",\"password\":\"$pw\"}" "$@"
}
field() { jq -r "$1" <<<"$BODY" 2>/dev/null; }
err() { jq -r '.error.code' <<<"$BODY" 2>/dev/null; }
errfield() { jq -r '.error.field' <<<"$BODY" 2>/dev/null; }
