# postgres.sh - a throw-away PostgreSQL cluster for the tests (sourced).
#
#   pg_bindir                 where initdb and pg_ctl are; fails (with PG_WHY) when they are not
#   pg_cluster_start DIR      initdb into DIR/data and start it on a Unix socket in DIR (no TCP);
#                             prints the base URI (the "postgres" database); as root, runs the
#                             server as the "postgres" user (initdb refuses root); fsync is off
#                             unless PG_DURABLE=1 (benchmarks: commits as durable as SQLite's)
#   pg_cluster_stop DIR       stop it (immediately) and remove DIR
#   pg_new_database BASE NAME create database NAME in the cluster of BASE; prints its URI
#   pg_test_database NAME     what a suite calls: a new database NAME in the cluster
#                             tests/run-suite.sh started ($BW_TEST_PG), else in one of the
#                             suite's own (started now, stopped by pg_test_cleanup); sets
#                             PG_DB to its URI, or fails with PG_WHY (for the suite's skip
#                             line). Not in a $(...): the cluster it may start must be the
#                             calling shell's to stop.
#
# The cluster is for tests only: trust authentication on a socket only its
# owner and root reach, fsync off. Debian's postgresql package puts the
# binaries under /usr/lib/postgresql/VERSION/bin (pg_config --bindir, from
# libpq-dev, names them).

PG_WHY=
PG_OWN_CLUSTER=
PG_OWN_BASE=
PG_DB=

pg_bindir() {
    local d
    if command -v pg_config >/dev/null 2>&1; then
        d=$(pg_config --bindir 2>/dev/null)
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            echo "$d"
            return 0
        fi
    fi
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            echo "$d"
            return 0
        fi
    done
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return 0
    fi
    PG_WHY="PostgreSQL's server binaries (initdb, pg_ctl) are not installed: scripts/install-deps.sh installs Debian's postgresql"
    return 1
}

# as_pg CMD...: runs CMD as the cluster's owner (the postgres user when we are root).
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

pg_cluster_start() {
    local dir=$1 bin
    bin=$(pg_bindir) || return 1
    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        PG_WHY="running as root and there is no postgres user to run PostgreSQL as"
        return 1
    fi
    mkdir -p "$dir"
    chmod 0755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
    if ! as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-locale -E UTF8 \
        >"$dir/initdb.log" 2>&1; then
        PG_WHY="initdb failed: $(tail -n 3 "$dir/initdb.log" | tr '\n' ' ')"
        return 1
    fi
    local fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [ "${PG_DURABLE:-0}" = 1 ] && fast=
    if ! as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-k $dir -c listen_addresses='' $fast -c max_connections=300" \
        start >"$dir/pg_ctl.log" 2>&1; then
        PG_WHY="pg_ctl start failed: $(tail -n 3 "$dir/server.log" 2>/dev/null | tr '\n' ' ')"
        return 1
    fi
    echo "postgresql:///postgres?host=$dir&user=postgres"
}

pg_cluster_stop() {
    local dir=$1 bin
    [ -n "$dir" ] && [ -d "$dir/data" ] || return 0
    bin=$(pg_bindir) || return 0
    as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$dir"
}

pg_new_database() {
    local base=$1 name=$2
    psql -q -X -v ON_ERROR_STOP=1 "$base" -c "DROP DATABASE IF EXISTS \"$name\"" \
        -c "CREATE DATABASE \"$name\"" >/dev/null 2>&1 || {
        PG_WHY="cannot create database $name in $base"
        return 1
    }
    sed "s|:///postgres?|:///$name?|" <<<"$base"
}

pg_test_database() {
    local name=$1 base=${BW_TEST_PG:-${PG_OWN_BASE:-}}
    PG_DB=
    if ! command -v psql >/dev/null 2>&1; then
        PG_WHY="psql is not installed: scripts/install-deps.sh installs Debian's postgresql"
        return 1
    fi
    if [ -z "$base" ]; then
        PG_OWN_CLUSTER=$(mktemp -d /tmp/bw-pg.XXXXXX)
        if ! PG_OWN_BASE=$(pg_cluster_start "$PG_OWN_CLUSTER"); then
            rm -rf "$PG_OWN_CLUSTER"
            PG_OWN_CLUSTER=
            return 1
        fi
        base=$PG_OWN_BASE
    fi
    PG_DB=$(pg_new_database "$base" "$name")
}

pg_test_cleanup() {
    [ -n "$PG_OWN_CLUSTER" ] && pg_cluster_stop "$PG_OWN_CLUSTER"
    PG_OWN_CLUSTER= PG_OWN_BASE=
}

# suite_database NAME SQLITE_PATH: what a server suite configures as its
# `database`, by $BW_TEST_BACKEND (tests/run-suite.sh runs the server suites
# once per backend): the SQLite file, or a new PostgreSQL database NAME.
# Sets DB; fails with PG_WHY when PostgreSQL was asked for and cannot run.
suite_database() {
    local name=$1 file=$2
    if [ "${BW_TEST_BACKEND:-sqlite}" = postgresql ]; then
        pg_test_database "$name" || return 1
        DB=$PG_DB
    else
        DB=$file
    fi
    echo "database backend: ${BW_TEST_BACKEND:-sqlite} ($DB)"
}
