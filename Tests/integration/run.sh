#!/usr/bin/env bash
# Runs the curl integration suite against the built binary:
#   bash Tests/integration/run.sh .build/debug/empty-state-server
# (`make test-libmicrohttpd-debian13` runs it again on Debian 13's libmicrohttpd, through
# LD_LIBRARY_PATH, with EMPTY_STATE_EXPECT_LIBMICROHTTPD naming the version the server must report.)
# Starts the server on a free port with a scratch data directory, runs every test_*.sh in this
# folder against it, checks live responses against openapi.yaml, then the start-up and shutdown
# behaviour, then admin roles and durability on a second server (admin_roles.sh), change requests
# and review rules with a token per role (change_requests.sh), the preview channel
# (preview_tokens.sh), three replicas
# on a throwaway PostgreSQL (replicas.sh), the hostile clients, signed webhooks to real receivers on
# SQLite and PostgreSQL (webhooks.sh), schemathesis's generated requests
# on a server of their own (schemathesis.sh), and the client openapi-python-client generates,
# driven through every operation (python_client.sh). Prints "N passed, M failed" and exits 1 on
# any failure.
set -uo pipefail

BIN=${1:?usage: run.sh path/to/empty-state-server}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill -9 "$SERVER_PID" 2>/dev/null
    # replicas.sh's replicas and PostgreSQL, when it was interrupted
    declare -F rep_cleanup >/dev/null && rep_cleanup
    # test_17's server on PostgreSQL and its PostgreSQL, when it was interrupted
    declare -F tr17_cleanup >/dev/null && tr17_cleanup
    rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=Tests/integration/lib.sh
source "$HERE/lib.sh"

# start_server LOGFILE [extra flags…]: starts the binary on port 0 with the data directory
# $DATA_DIR (default "$WORK/data"); sets SERVER_PID and BASE_URL.
start_server() {
    local log=$1
    shift
    "$BIN" --host 127.0.0.1 --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
        --data-dir "${DATA_DIR:-$WORK/data}" --log-level info "$@" 2>"$log" &
    SERVER_PID=$!
    local port=""
    for _ in $(seq 1 100); do
        port=$(grep -o 'http.port=[0-9]*' "$log" | head -n 1 | cut -d= -f2)
        [ -n "$port" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "the server did not start; its log:" >&2
        cat "$log" >&2
        echo "0 passed, 1 failed"
        exit 1
    fi
    BASE_URL="http://127.0.0.1:$port"
}

# stop_server: SIGTERM the server, wait up to 15 s; sets STOP_STATUS to its exit status (empty if
# it is still running).
stop_server() {
    kill -TERM "$SERVER_PID"
    wait_server_exit 15
}

# wait_server_exit SECONDS: waits for the server to exit (someone else signalled it); sets
# STOP_STATUS to its exit status (empty if it is still running).
wait_server_exit() {
    STOP_STATUS=""
    for _ in $(seq 1 $(($1 * 10))); do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            wait "$SERVER_PID"
            STOP_STATUS=$?
            break
        fi
        sleep 0.1
    done
    SERVER_PID=""
}

SERVER_LOG="$WORK/server.log"
start_server "$SERVER_LOG" --max-body-size 65536
LIBMICROHTTPD=$(grep -o 'http.libmicrohttpd=[^ ]*' "$SERVER_LOG" | head -n 1 | cut -d= -f2)
echo "server at $BASE_URL (pid $SERVER_PID), libmicrohttpd ${LIBMICROHTTPD:-unknown}"
# EMPTY_STATE_EXPECT_LIBMICROHTTPD (make test-libmicrohttpd-debian13): the suite runs on that version,
# not on whatever the dynamic linker found first.
if [ -n "${EMPTY_STATE_EXPECT_LIBMICROHTTPD:-}" ]; then
    expect_eq "the server runs on libmicrohttpd $EMPTY_STATE_EXPECT_LIBMICROHTTPD" \
        "$EMPTY_STATE_EXPECT_LIBMICROHTTPD" "$LIBMICROHTTPD"
fi

for test in "$HERE"/test_*.sh; do
    echo "== $(basename "$test")"
    # shellcheck disable=SC1090
    source "$test"
done

echo "== openapi_check.py (live responses against openapi.yaml)"
if python3 "$HERE/openapi_check.py" --base-url "$BASE_URL" --spec "$ROOT/openapi.yaml" --body-limit 65536 --admin-token-file "$WORK/data/admin-token" >"$WORK/contract.log" 2>&1; then
    pass "live responses match openapi.yaml ($(tail -n 1 "$WORK/contract.log"))"
else
    grep -E '^FAIL' "$WORK/contract.log" | head -n 20
    fail "live responses match openapi.yaml" "$(tail -n 1 "$WORK/contract.log")"
fi

echo "== shutdown"
stop_server
expect_eq "SIGTERM drains and exits 0" "0" "${STOP_STATUS:-still running after 15 s}"
expect_match "shutdown is logged" "shutting down" "$(cat "$SERVER_LOG")"

# shellcheck source=Tests/integration/startup.sh
source "$HERE/startup.sh"
# shellcheck source=Tests/integration/makefile_targets.sh
source "$HERE/makefile_targets.sh"
# shellcheck source=Tests/integration/admin_roles.sh
source "$HERE/admin_roles.sh"
# shellcheck source=Tests/integration/change_requests.sh
source "$HERE/change_requests.sh"
# shellcheck source=Tests/integration/preview_tokens.sh
source "$HERE/preview_tokens.sh"
source "$HERE/events_durability.sh"
# shellcheck source=Tests/integration/replicas.sh
source "$HERE/replicas.sh"
# shellcheck source=Tests/integration/hostile.sh
source "$HERE/hostile.sh"
# shellcheck source=Tests/integration/webhooks.sh
source "$HERE/webhooks.sh"
# shellcheck source=Tests/integration/schemathesis.sh
source "$HERE/schemathesis.sh"
# shellcheck source=Tests/integration/python_client.sh
source "$HERE/python_client.sh"

echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
