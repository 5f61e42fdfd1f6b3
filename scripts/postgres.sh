#!/usr/bin/env bash
# A throwaway PostgreSQL on a free loopback port, for tests, benchmarks and `make cluster`.
#
#   scripts/postgres.sh start DIR       initdb + start; prints the postgres:// URL (also in DIR/url)
#   scripts/postgres.sh stop DIR        stop it and remove its files (idempotent)
#   scripts/postgres.sh url DIR         print the URL of a started server
#   scripts/postgres.sh createdb DIR NAME   a fresh database owned by the app user; prints its URL
#   scripts/postgres.sh psql DIR [ARGS…]    psql as the superuser over the Unix socket (database: the app's)
#   scripts/postgres.sh down DIR        `pg_ctl stop -m fast`, keeping the data (an outage)
#   scripts/postgres.sh up DIR          start it again on the same port after `down`
#   scripts/postgres.sh with DIR VAR COMMAND [ARGS…]
#                                       start, run COMMAND with VAR=<url> (and, with
#                                       POSTGRES_SSL=1, VAR_SSLROOTCERT=<CA file>) in its environment, stop
#                                       (also when COMMAND fails or is interrupted); exits with
#                                       COMMAND's status
#
# DIR is the caller's state directory (created when missing): it holds the URL, the port and the
# path of the cluster's own temporary directory, never the cluster itself. PostgreSQL refuses to
# run as root, so when this script runs as root the server runs as the `postgres` system user in
# a temporary directory of its own (mktemp -d as that user, mode 0700), which also holds the
# Unix socket and the server log; otherwise it runs as the calling user. The app connects over
# TCP on 127.0.0.1 as a password user (SCRAM-SHA-256); the superuser `postgres` has the Unix
# socket only (trust), for psql.
#
# POSTGRES_SSL=1 (for `start` and `with`) also turns TLS on, with a certificate made for the
# occasion by a throwaway CA (openssl): the server's names are localhost and 127.0.0.1 (subject
# alternative names), and the server also listens on 127.0.0.2, a name the certificate does not
# have (to test host-name checks). The CA's certificate is DIR/root.crt (`with` passes its path
# in VAR_SSLROOTCERT); the URL printed stays sslmode=disable, and plain connections are still
# accepted.
#
# Installs Debian's `postgresql` with apt-get when initdb is missing. PG_EXTRA_OPTS adds server
# options (e.g. "-c max_connections=300"). Every command the server runs with has its stdin,
# stdout and stderr redirected: the postmaster inherits the descriptors of `pg_ctl start`, and a
# caller's pipe (`url=$(scripts/postgres.sh start d)`) would otherwise stay open until it exits.
set -euo pipefail

APP_USER=empty_state
APP_DB=empty_state

die() {
    echo "postgres.sh: $*" >&2
    exit 1
}

# pg_bin: the bin directory of the newest PostgreSQL installed (Debian keeps them off PATH).
pg_bin() {
    local dir
    dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
    [ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

install_postgres() {
    echo "postgres.sh: initdb not found; installing postgresql with apt-get" >&2
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
}

# as_pg COMMAND…: runs COMMAND as the user the server runs as, from / (the caller's working
# directory may not be readable by that user), with no descriptor of ours.
as_pg() {
    if [ "$(id -u)" = 0 ]; then
        (cd / && runuser -u postgres -- "$@")
    else
        (cd / && "$@")
    fi
}

# free_port: a TCP port on 127.0.0.1 nobody listens on right now (the kernel's pick).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

state() { cat "$DIR/$1" 2>/dev/null; }

pg_ctl_start() {
    local bin=$1 cluster=$2 port=$3 listen=127.0.0.1
    [ -s "$DIR/root.crt" ] && listen=127.0.0.1,127.0.0.2 # POSTGRES_SSL=1: a name the certificate lacks
    as_pg "$bin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 \
        -o "-p $port -k $cluster -c listen_addresses=$listen ${PG_EXTRA_OPTS:-}" start \
        </dev/null >>"$DIR/pg_ctl.log" 2>&1
}

# make_certificates CLUSTER: a CA and a server certificate it signs, for localhost and 127.0.0.1;
# TLS on; 127.0.0.2 allowed in pg_hba.conf (the server listens there too, see pg_ctl_start). The
# keys stay in the cluster's directory, owned by the server's user; the CA's certificate is
# copied to DIR/root.crt for clients.
make_certificates() {
    local cluster=$1
    if ! command -v openssl >/dev/null; then  # Debian's postgresql pulls it in (ssl-cert); else:
        echo "postgres.sh: openssl not found; installing it with apt-get" >&2
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openssl; } >&2 ||
            { echo "postgres.sh: POSTGRES_SSL=1 needs openssl" >&2; return 1; }
    fi
    printf '%s\n' "subjectAltName = DNS:localhost, IP:127.0.0.1" "basicConstraints = critical, CA:FALSE" \
        "keyUsage = critical, digitalSignature, keyEncipherment" "extendedKeyUsage = serverAuth" |
        as_pg tee "$cluster/server.ext" >/dev/null
    {
        as_pg openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
            -subj "/CN=empty-state-service throwaway test CA" -keyout "$cluster/ca.key" -out "$cluster/ca.crt" \
            -addext "basicConstraints = critical, CA:TRUE" -addext "keyUsage = critical, keyCertSign, cRLSign" &&
            as_pg openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
                -subj "/CN=localhost" -keyout "$cluster/server.key" -out "$cluster/server.csr" &&
            as_pg openssl x509 -req -in "$cluster/server.csr" -CA "$cluster/ca.crt" -CAkey "$cluster/ca.key" \
                -CAcreateserial -days 7 -extfile "$cluster/server.ext" -out "$cluster/server.crt"
    } </dev/null >"$DIR/openssl.log" 2>&1 || { cat "$DIR/openssl.log" >&2; return 1; }
    as_pg chmod 600 "$cluster/server.key" "$cluster/ca.key"
    printf '%s\n' "ssl = on" "ssl_cert_file = '$cluster/server.crt'" "ssl_key_file = '$cluster/server.key'" |
        as_pg tee -a "$cluster/data/postgresql.conf" >/dev/null
    echo "host all all 127.0.0.2/32 scram-sha-256" | as_pg tee -a "$cluster/data/pg_hba.conf" >/dev/null
    as_pg cat "$cluster/ca.crt" >"$DIR/root.crt"
}

cmd_start() {
    mkdir -p "$DIR"
    if [ -s "$DIR/url" ] && cmd_status >/dev/null 2>&1; then
        cat "$DIR/url" # already running: starting twice is harmless
        return 0
    fi
    [ -e "$DIR/cluster" ] && cmd_stop # a half-started or dead one: clean it first
    mkdir -p "$DIR"

    local bin
    bin=$(pg_bin) || { install_postgres && bin=$(pg_bin); } || die "no initdb under /usr/lib/postgresql/*/bin after installing postgresql"
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        die "running as root, but there is no 'postgres' system user to run the server as"
    fi

    local cluster password port attempt
    cluster=$(as_pg mktemp -d /tmp/empty-state-pg.XXXXXX)
    echo "$cluster" >"$DIR/cluster"
    echo "$bin" >"$DIR/bin"
    password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    # The superuser authenticates over the socket only; the app's user over TCP with SCRAM.
    as_pg "$bin/initdb" -D "$cluster/data" -U postgres -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 </dev/null >"$DIR/initdb.log" 2>&1 ||
        { cat "$DIR/initdb.log" >&2; cmd_stop; die "initdb failed"; }
    # Three replicas' pools, their listeners, test helpers and psql fit with room to spare.
    # wal_init_zero: a new cluster has no WAL segments to recycle, so each 16 MB segment it needs
    # is first written full of zeros, holding the WAL write lock: every commit waits for it. On
    # this machine that put ~50 ms in the p99 of event ingestion, a stall a long-running server
    # (which recycles its segments) does not have. Off, a segment is created by writing its last
    # byte; fsync and synchronous_commit stay on, so nothing acknowledged can be lost.
    printf '%s\n' "max_connections = 200" "wal_init_zero = off" |
        as_pg tee -a "$cluster/data/postgresql.conf" >/dev/null
    if [ "${POSTGRES_SSL:-0}" = 1 ]; then
        make_certificates "$cluster" || { cmd_stop; die "could not make the TLS certificates (openssl)"; }
    fi

    # The port is free when picked but could be taken before the server binds it: retry.
    for attempt in 1 2 3 4 5; do
        port=$(free_port)
        if pg_ctl_start "$bin" "$cluster" "$port"; then
            break
        fi
        port=""
        as_pg "$bin/pg_ctl" -D "$cluster/data" stop -m immediate </dev/null >/dev/null 2>&1 || true
    done
    if [ -z "$port" ]; then
        tail -n 20 "$cluster/server.log" >&2 2>/dev/null || true
        cmd_stop
        die "the server did not start (log above)"
    fi
    echo "$port" >"$DIR/port"

    "$bin/psql" -h "$cluster" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
        -c "CREATE ROLE $APP_USER LOGIN PASSWORD '$password'" \
        -c "CREATE DATABASE $APP_DB OWNER $APP_USER" </dev/null >/dev/null ||
        { cmd_stop; die "could not create the database"; }
    echo "$password" >"$DIR/password"
    chmod 600 "$DIR/password"
    # No TLS on loopback: sslmode=disable saves the client asking for it first.
    local url="postgres://$APP_USER:$password@127.0.0.1:$port/$APP_DB?sslmode=disable"
    (umask 077 && echo "$url" >"$DIR/url")
    echo "$url"
}

cmd_stop() {
    local cluster bin
    cluster=$(state cluster) || true
    bin=$(state bin) || bin=$(pg_bin) || true
    if [ -n "$cluster" ] && [ -d "$cluster" ]; then
        if [ -f "$cluster/data/postmaster.pid" ] && [ -n "$bin" ]; then
            as_pg "$bin/pg_ctl" -D "$cluster/data" stop -m fast -w -t 30 </dev/null >/dev/null 2>&1 ||
                as_pg "$bin/pg_ctl" -D "$cluster/data" stop -m immediate -w -t 30 </dev/null >/dev/null 2>&1 || true
        fi
        # Still there (pg_ctl missing or stuck): the postmaster's pid is the file's first line.
        local pid
        pid=$(head -n 1 "$cluster/data/postmaster.pid" 2>/dev/null) || true
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
            sleep 0.2
        fi
        rm -rf "$cluster"
    fi
    rm -f "$DIR"/{cluster,bin,port,url,password,initdb.log,pg_ctl.log,openssl.log,root.crt}
    rmdir "$DIR" 2>/dev/null || true
}

cmd_status() {
    local cluster bin
    cluster=$(state cluster) && bin=$(state bin) || { echo "not started"; return 1; }
    as_pg "$bin/pg_ctl" -D "$cluster/data" status </dev/null 2>&1
}

cmd_url() {
    state url || die "no server started in $DIR"
}

cmd_psql() {
    local cluster bin port
    cluster=$(state cluster) && bin=$(state bin) && port=$(state port) || die "no server started in $DIR"
    "$bin/psql" -h "$cluster" -p "$port" -U postgres -d "$APP_DB" -v ON_ERROR_STOP=1 -X "$@"
}

cmd_createdb() {
    local name=${1:?usage: postgres.sh createdb DIR NAME}
    [[ $name =~ ^[a-z_][a-z0-9_]*$ ]] || die "database names here are lower-case identifiers: $name"
    cmd_psql -q -c "CREATE DATABASE $name OWNER $APP_USER" </dev/null >/dev/null
    echo "postgres://$APP_USER:$(state password)@127.0.0.1:$(state port)/$name?sslmode=disable"
}

cmd_down() {
    local cluster bin
    cluster=$(state cluster) && bin=$(state bin) || die "no server started in $DIR"
    as_pg "$bin/pg_ctl" -D "$cluster/data" stop -m fast -w -t 30 </dev/null >>"$DIR/pg_ctl.log" 2>&1
}

cmd_up() {
    local cluster bin port
    cluster=$(state cluster) && bin=$(state bin) && port=$(state port) || die "no server started in $DIR"
    pg_ctl_start "$bin" "$cluster" "$port" || { tail -n 20 "$cluster/server.log" >&2; die "the server did not start again"; }
}

cmd_with() {
    local var=${1:?usage: postgres.sh with DIR VAR COMMAND [ARGS…]}
    shift
    [ $# -gt 0 ] || die "usage: postgres.sh with DIR VAR COMMAND [ARGS…]"
    local url status=0
    trap 'cmd_stop' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    url=$(cmd_start) || die "could not start PostgreSQL"
    echo "postgres.sh: PostgreSQL on 127.0.0.1:$(state port) for: $*" >&2
    if [ -s "$DIR/root.crt" ]; then
        env "$var=$url" "${var}_SSLROOTCERT=$DIR/root.crt" "$@" || status=$?
    else
        env "$var=$url" "$@" || status=$?
    fi
    exit "$status"
}

command=${1:-}
DIR=${2:-}
if [ -z "$command" ] || [ -z "$DIR" ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 64
fi
DIR=$(realpath -m "$DIR")
shift 2
case "$command" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    url) cmd_url ;;
    psql) cmd_psql "$@" ;;
    createdb) cmd_createdb "$@" ;;
    down) cmd_down ;;
    up) cmd_up ;;
    with) cmd_with "$@" ;;
    *) die "unknown command '$command' (start, stop, status, url, psql, createdb, down, up, with)" ;;
esac
