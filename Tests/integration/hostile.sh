# Shutdown with requests suspended behind locked stores, and slow clients holding every
# connection. Sourced by run.sh after admin_roles.sh; each part starts its own server.
echo "== hostile: shutdown with suspended requests"

# --drain-timeout 0: shutdown reaches the suspended requests at once. Before the fix MHD aborted
# the process (exit 134) and these clients got no answer.
HOSTILE_DATA="$WORK/hostile-data"
DATA_DIR="$HOSTILE_DATA" start_server "$WORK/hostile-shutdown.log" --drain-timeout 0
if out=$(python3 "$HERE/hostile.py" shutdown --base-url "$BASE_URL" --data-dir "$HOSTILE_DATA" \
    --pid "$SERVER_PID" --token "$(cat "$HOSTILE_DATA/admin-token")" 2>&1); then
    pass "every suspended request is answered during shutdown ($out)"
else
    fail "every suspended request is answered during shutdown" "$out"
fi
wait_server_exit 60
expect_eq "shutdown with suspended requests exits 0" "0" "${STOP_STATUS:-still running after 60 s}"
expect_match "shutdown says what it did with them" "answering requests still waiting for a worker" \
    "$(cat "$WORK/hostile-shutdown.log")"

echo "== hostile: slow clients"
# 1,100 slow connections from 5 addresses (220 each, under the per-IP limit of 256) against the
# default 1,024 connections. The server needs a descriptor per connection.
ulimit -n 4096 2>/dev/null || true
DATA_DIR="$WORK/hostile-slow-data" start_server "$WORK/hostile-slow.log" --log-level notice
HOSTILE_PORT=${BASE_URL##*:}
if out=$(python3 "$HERE/hostile.py" slow-clients --port "$HOSTILE_PORT" 2>&1); then
    pass "slow clients do not lock out a normal one ($out)"
else
    fail "slow clients do not lock out a normal one" "$out"
fi
expect_match "closing slow connections is logged" "closed connections waiting for a request" \
    "$(cat "$WORK/hostile-slow.log")"
stop_server
expect_eq "the server under slow clients stops with 0" "0" "${STOP_STATUS:-still running after 15 s}"
