# Idle keep-alive connections outlast --header-timeout (a load balancer's pooled connections stay
# usable), and a request head that stops half-way is closed after it. Against the suite's server
# (default timeouts) and a second one with short ones (Tests/integration/keepalive.py).

short_log="$WORK/keepalive-short.log"
"$BIN" --host 127.0.0.1 --port 0 --header-timeout 1 --idle-timeout 3 --data-dir "$WORK/keepalive-data" \
    >"$short_log" 2>&1 &
short_server=$!
short_port=""
for _ in $(seq 100); do
    short_port=$(grep -oE 'http\.port=[0-9]+' "$short_log" | head -n 1 | cut -d= -f2)
    [ -n "$short_port" ] && break
    sleep 0.1
done
while IFS= read -r line; do
    case "$line" in
    ok\ *) pass "${line#ok }" ;;
    *) fail "${line#FAIL }" ;;
    esac
done < <(python3 "$HERE/keepalive.py" "${BASE_URL#http://}" "127.0.0.1:$short_port" 2>&1)
kill -TERM "$short_server" && wait "$short_server"
expect_match "--help documents --idle-timeout" 'EMPTY_STATE_IDLE_TIMEOUT' "$("$BIN" --help 2>&1)"
"$BIN" --idle-timeout 0 >"$WORK/bad-idle.log" 2>&1
expect_eq "bad --idle-timeout: usage error (exit 64)" 64 "$?"
expect_match "bad --idle-timeout: says the range" 'idle-timeout must be between 1 and 3600' "$(cat "$WORK/bad-idle.log")"
# The former name is still read (a value out of range is refused, as for the new one).
EMPTY_STATE_CONNECTION_TIMEOUT=0 "$BIN" >"$WORK/bad-legacy-idle.log" 2>&1
expect_eq "bad EMPTY_STATE_CONNECTION_TIMEOUT (the former name): usage error (exit 64)" 64 "$?"
expect_match "bad EMPTY_STATE_CONNECTION_TIMEOUT: says the range" 'idle-timeout must be between 1 and 3600' \
    "$(cat "$WORK/bad-legacy-idle.log")"
