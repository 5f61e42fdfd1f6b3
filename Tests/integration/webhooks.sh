# Signed webhooks against real receivers (webhooks.py: Python servers verifying every delivery with
# the `standardwebhooks` package), on SQLite and again on a throwaway PostgreSQL: the SSRF guard
# without the operator's permission, every event type, retries after a 500, a hanging receiver,
# a redirect not followed, the delivery log, redelivery, rotation, kill -9 between commit and
# delivery, and (PostgreSQL) three replicas delivering each event once. Sourced by run.sh;
# webhooks.py starts servers of its own.
for wh_store in sqlite postgres; do
    echo "== webhooks ($wh_store)"
    wh_log="$WORK/webhooks-$wh_store.log"
    if [ "$wh_store" = sqlite ]; then
        python3 "$HERE/webhooks.py" --binary "$BIN" --root "$ROOT" >"$wh_log" 2>&1
    else
        bash "$ROOT/scripts/postgres.sh" with "$WORK/webhooks-postgres" WH_DATABASE_URL \
            bash -c 'python3 "$1" --binary "$2" --root "$3" --database-url "$WH_DATABASE_URL"' _ \
            "$HERE/webhooks.py" "$BIN" "$ROOT" >"$wh_log" 2>&1
    fi
    wh_status=$?
    if [ "$wh_status" -eq 0 ]; then
        pass "webhooks on $wh_store ($(tail -n 1 "$wh_log"))"
    else
        grep -E '^FAIL|Traceback|Error' "$wh_log" | head -n 20
        fail "webhooks on $wh_store" "$(tail -n 1 "$wh_log")"
    fi
done
