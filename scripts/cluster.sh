#!/usr/bin/env bash
# Three replicas on one throwaway PostgreSQL behind nginx, on loopback: what `make cluster` runs.
#
#   scripts/cluster.sh start path/to/empty-state-server
#   scripts/cluster.sh status
#   scripts/cluster.sh stop
#
# Everything lives under $CLUSTER_DIR (default .cluster/ in the repository): PostgreSQL's state
# (scripts/postgres.sh), one data directory and log per replica (r1/ r2/ r3/, r1.log …), nginx's
# configuration and logs (nginx/), and admin-token. Ports: nginx on $CLUSTER_PORT (default 8090),
# the replicas on the next three. Replica 1 starts first: against the empty database it creates
# the schema and, since no token is configured, the first admin token (its SHA-256 in the
# database, the secret in r1/admin-token); replicas 2 and 3 then start together. The database
# URL reaches the replicas through EMPTY_STATE_DATABASE_URL, not a flag, so its password is not
# in /proc/<pid>/cmdline. `stop` ends all of it and removes the directory; it is idempotent.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
STATE=$(realpath -m "${CLUSTER_DIR:-$ROOT/.cluster}")
BASE_PORT=${CLUSTER_PORT:-8090}
REPLICAS=3

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

port_of() { echo $((BASE_PORT + $1)); } # 0: nginx, 1…3: the replicas

port_free() {
    python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try: s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError: sys.exit(1)' "$1"
}

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# wait_ready URL SECONDS PIDFILE: until URL/readyz answers 200 (or the process is gone).
wait_ready() {
    local deadline=$((SECONDS + $2))
    while [ "$SECONDS" -lt "$deadline" ]; do
        [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1/readyz")" = 200 ] && return 0
        [ -n "${3:-}" ] && ! alive "$3" && return 1
        sleep 0.2
    done
    return 1
}

start_replica() {
    local n=$1 bin=$2 url=$3
    mkdir -p "$STATE/r$n"
    # setsid and no inherited descriptor: `make cluster` returns while the replicas run on.
    EMPTY_STATE_DATABASE_URL="$url" setsid "$bin" --host 127.0.0.1 --port "$(port_of "$n")" \
        --data-dir "$STATE/r$n" --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
        </dev/null >>"$STATE/r$n.log" 2>&1 &
    echo $! >"$STATE/r$n.pid"
}

replica_failed() {
    echo "cluster.sh: replica $1 did not become ready; the end of $STATE/r$1.log:" >&2
    tail -n 20 "$STATE/r$1.log" >&2 || true
    cmd_stop
    exit 1
}

write_nginx_conf() {
    local conf=$STATE/nginx/nginx.conf servers="" n
    mkdir -p "$STATE/nginx/tmp"
    for n in $(seq 1 $REPLICAS); do
        servers+="        server 127.0.0.1:$(port_of "$n") max_fails=1 fail_timeout=2s;"$'\n'
    done
    cat >"$conf" <<EOF
# Written by scripts/cluster.sh for a loopback cluster; a starting point, not a production config.
worker_processes 1;
pid $STATE/nginx/nginx.pid;
error_log $STATE/nginx/error.log notice;
events { worker_connections 1024; }
http {
    access_log $STATE/nginx/access.log;
    # Bodies and answers are kept in memory (the service caps bodies at 1 MiB): the worker, an
    # unprivileged user, never needs a temporary file.
    client_body_temp_path $STATE/nginx/tmp/body;
    proxy_temp_path $STATE/nginx/tmp/proxy;
    fastcgi_temp_path $STATE/nginx/tmp/fastcgi;
    uwsgi_temp_path $STATE/nginx/tmp/uwsgi;
    scgi_temp_path $STATE/nginx/tmp/scgi;
    client_max_body_size 1m;
    client_body_buffer_size 1m;
    proxy_max_temp_file_size 0;

    upstream empty_state {
$servers        # Kept-alive connections to the replicas, closed by nginx after 8 s idle: below the
        # replicas' --idle-timeout (75 s), so nginx never sends on a connection a replica closes.
        keepalive 32;
        keepalive_timeout 8s;
    }

    server {
        listen 127.0.0.1:$(port_of 0);
        # Which replica answered, for trying the cluster out.
        add_header X-Upstream \$upstream_addr always;
        location / {
            proxy_pass http://empty_state;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            # GET and HEAD go to the next replica when one is down; writes are never sent twice.
            proxy_next_upstream error timeout;
            proxy_connect_timeout 1s;
        }
        # For the scrape network only (docs/observability.md, Metrics).
        location = /metrics { return 404; }
    }
}
EOF
}

print_info() {
    local n
    echo "cluster up, state in $STATE"
    echo "  nginx        http://127.0.0.1:$(port_of 0)   (round robin over the replicas; X-Upstream says which answered)"
    for n in $(seq 1 $REPLICAS); do
        echo "  replica $n    http://127.0.0.1:$(port_of "$n")   (pid $(cat "$STATE/r$n.pid"), log $STATE/r$n.log)"
    done
    echo "  PostgreSQL   $(sed 's#//\([^:]*\):[^@]*@#//\1:***@#' "$STATE/postgres/url")   (URL in $STATE/postgres/url;"
    echo "               psql: bash scripts/postgres.sh psql $STATE/postgres)"
    if [ -s "$STATE/admin-token" ]; then
        echo "  admin token  $(cat "$STATE/admin-token")   (editor; in $STATE/admin-token, valid on every replica)"
    else
        echo "  admin token  none found: look for admin-token in $STATE/r*/ and the replicas' logs"
    fi
    echo "stop it with: make cluster-stop"
}

cmd_start() {
    local bin=${1:?usage: cluster.sh start path/to/empty-state-server} n url
    [ -x "$bin" ] || die "not an executable: $bin"
    bin=$(realpath "$bin")
    if alive "$STATE/r1.pid" || alive "$STATE/nginx/nginx.pid"; then
        echo "cluster.sh: already running (make cluster-stop first to start afresh)" >&2
        print_info
        return 0
    fi
    [ -e "$STATE" ] && cmd_stop # leftovers of a cluster that died
    for n in $(seq 0 $REPLICAS); do
        port_free "$(port_of "$n")" || die "port $(port_of "$n") is in use (CLUSTER_PORT=N picks another base)"
    done
    if ! command -v nginx >/dev/null; then
        echo "cluster.sh: installing nginx with apt-get" >&2
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx >/dev/null
    fi
    mkdir -p "$STATE"
    trap 'echo "cluster.sh: failed; stopping what was started" >&2; cmd_stop' ERR

    url=$(bash "$HERE/postgres.sh" start "$STATE/postgres")
    start_replica 1 "$bin" "$url"
    wait_ready "http://127.0.0.1:$(port_of 1)" 60 "$STATE/r1.pid" || replica_failed 1
    for n in $(seq 2 $REPLICAS); do start_replica "$n" "$bin" "$url"; done
    for n in $(seq 2 $REPLICAS); do
        wait_ready "http://127.0.0.1:$(port_of "$n")" 60 "$STATE/r$n.pid" || replica_failed "$n"
    done
    for n in $(seq 1 $REPLICAS); do
        if [ -s "$STATE/r$n/admin-token" ]; then
            (umask 077 && cp "$STATE/r$n/admin-token" "$STATE/admin-token")
            break
        fi
    done

    write_nginx_conf
    nginx -t -q -p "$STATE/nginx" -c "$STATE/nginx/nginx.conf" </dev/null >>"$STATE/nginx/error.log" 2>&1 ||
        { cat "$STATE/nginx/error.log" >&2; cmd_stop; die "nginx refused its configuration"; }
    nginx -p "$STATE/nginx" -c "$STATE/nginx/nginx.conf" </dev/null >>"$STATE/nginx/error.log" 2>&1
    wait_ready "http://127.0.0.1:$(port_of 0)" 10 || { tail -n 20 "$STATE/nginx/error.log" >&2; cmd_stop; die "nginx did not answer"; }
    trap - ERR
    print_info
}

# stop_pid FILE SIGNAL: signals the process, waits up to 15 s, then kills it.
stop_pid() {
    local pid
    pid=$(cat "$1" 2>/dev/null) || return 0
    [ -n "$pid" ] && kill "-$2" "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 150); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
}

cmd_stop() {
    local n
    [ -d "$STATE" ] || { echo "cluster.sh: no cluster in $STATE"; return 0; }
    stop_pid "$STATE/nginx/nginx.pid" QUIT
    for n in $(seq 1 $REPLICAS); do stop_pid "$STATE/r$n.pid" TERM & done
    wait
    bash "$HERE/postgres.sh" stop "$STATE/postgres"
    rm -rf "$STATE"
    echo "cluster.sh: stopped; $STATE removed"
}

cmd_status() {
    local n
    [ -d "$STATE" ] || { echo "no cluster in $STATE"; return 1; }
    for n in $(seq 1 $REPLICAS); do
        echo "replica $n: $(alive "$STATE/r$n.pid" && echo running || echo stopped)," \
            "readyz $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$(port_of "$n")/readyz")"
    done
    echo "nginx: $(alive "$STATE/nginx/nginx.pid" && echo running || echo stopped)"
    echo "PostgreSQL: $(bash "$HERE/postgres.sh" status "$STATE/postgres" | head -n 1)"
}

case "${1:-}" in
    start) cmd_start "${2:-}" ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    *)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
        exit 64
        ;;
esac
