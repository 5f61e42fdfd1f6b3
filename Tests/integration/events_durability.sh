# Durability of acknowledged analytics events across kill -9: concurrent clients post batches of 50
# events with unique ids as fast as the server acknowledges them, the server is killed mid-stream,
# and after a restart on the same data directory the NDJSON export must hold every event of every
# batch that got a 202 (and no batch in part: a batch commits whole or not at all).
# Sourced by run.sh after admin_roles.sh: starts its own server (start_server from run.sh) on its
# own data directory, and stops it at the end.
echo "== events durability"

EVD_DATA="$WORK/events-data"
EVD_LOG="$WORK/events-durability.log"
EVD_CLIENTS=4
EVD_BATCH=50
DATA_DIR="$EVD_DATA" start_server "$EVD_LOG"
echo "events server at $BASE_URL (pid $SERVER_PID)"
EVD_URL="$BASE_URL/v1/events"

# Ids: 8-4-4-4-12 hex digits of this run, the client, the event's place in its batch and the batch:
#   RRRRRRRR-CCCC-4000-8000-IIIIBBBBBBBB
EVD_RUN=$(((RANDOM << 15) | RANDOM))
EVD_OCCURRED=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# evd_client N: posts batches until the server is gone; appends the ids of each acknowledged batch
# to $WORK/evd-acked.N and says why it stopped in $WORK/evd-end.N.
evd_client() {
    local client=$1 batch=0 i id body code
    local acked="$WORK/evd-acked.$client" end="$WORK/evd-end.$client" file="$WORK/evd-batch.$client.json"
    local ids="$WORK/evd-ids.$client" response="$WORK/evd-response.$client"
    local deadline=$((SECONDS + 30))
    while [ "$SECONDS" -lt "$deadline" ]; do
        batch=$((batch + 1))
        body='{"events":['
        : >"$ids"
        for ((i = 0; i < EVD_BATCH; i++)); do
            printf -v id '%08x-%04x-4000-8000-%04x%08x' "$EVD_RUN" "$client" "$i" "$batch"
            printf '%s\n' "$id" >>"$ids"
            [ "$i" -gt 0 ] && body+=','
            body+="{\"id\":\"$id\",\"type\":\"displayed\",\"templateId\":\"connectionRefused\",\"revision\":1,"
            body+="\"locale\":\"en\",\"platform\":\"ios\",\"appVersion\":\"9.9.$client\",\"occurredAt\":\"$EVD_OCCURRED\"}"
        done
        printf '%s]}' "$body" >"$file"
        code=$(curl -s -o "$response" -w '%{http_code}' --max-time 10 -X POST -H 'Content-Type: application/json' \
            --data-binary @"$file" "$EVD_URL")
        case "$code" in
            202)
                if [ "$(cat "$response")" != "{\"accepted\":$EVD_BATCH,\"duplicates\":0,\"rejected\":[]}" ]; then
                    echo "batch $batch: 202 with $(head -c 300 "$response")" >"$end"
                    return 1
                fi
                cat "$ids" >>"$acked"
                ;;
            000)
                echo "connection failed" >"$end"
                return 0
                ;;
            *)
                echo "batch $batch: unexpected status $code: $(head -c 300 "$response")" >"$end"
                return 1
                ;;
        esac
    done
    echo "still acknowledged after 30 s" >"$end"
}

evd_pids=()
for evd_client_n in $(seq 1 "$EVD_CLIENTS"); do
    : >"$WORK/evd-acked.$evd_client_n"
    : >"$WORK/evd-end.$evd_client_n"
    evd_client "$evd_client_n" &
    evd_pids+=("$!")
done
# evd_acked_batches: how many batches have been acknowledged so far, by all clients.
evd_acked_batches() { echo $(($(cat "$WORK"/evd-acked.* | wc -l) / EVD_BATCH)); }
# ~3 s of posts; on a loaded machine, up to 20 s more until at least 10 batches are acknowledged.
sleep 3
for _ in $(seq 1 100); do
    [ "$(evd_acked_batches)" -ge 10 ] && break
    sleep 0.2
done
evd_running=0
for evd_pid in "${evd_pids[@]}"; do kill -0 "$evd_pid" 2>/dev/null && evd_running=$((evd_running + 1)); done
expect_eq "events durability: all $EVD_CLIENTS clients are mid-stream when the server is killed" "$EVD_CLIENTS" "$evd_running"
{ kill -9 "$SERVER_PID"; wait "$SERVER_PID"; } 2>/dev/null # (no "Killed" job notice)
expect_eq "events durability: the server died of SIGKILL" 137 "$?"
SERVER_PID=""
evd_ends=""
for evd_i in "${!evd_pids[@]}"; do
    wait "${evd_pids[$evd_i]}"
    evd_ends="$evd_ends$(cat "$WORK/evd-end.$((evd_i + 1))");"
done
expect_eq "events durability: every client stopped because the server was gone" \
    "$(printf 'connection failed;%.0s' $(seq 1 "$EVD_CLIENTS"))" "$evd_ends"
evd_acked="$WORK/evd-acked.txt"
sort "$WORK"/evd-acked.[0-9]* >"$evd_acked"
evd_batches=$(($(wc -l <"$evd_acked") / EVD_BATCH))
if [ "$evd_batches" -ge 10 ]; then
    pass "events durability: $evd_batches batches ($(wc -l <"$evd_acked" | tr -d ' ') events) acknowledged before the kill"
else
    fail "events durability: at least 10 batches acknowledged before the kill" "$evd_batches"
fi
expect_eq "events durability: every acknowledged id is distinct" 0 "$(uniq -d "$evd_acked" | wc -l | tr -d ' ')"

EVD_LOG2="$WORK/events-durability-restart.log"
DATA_DIR="$EVD_DATA" start_server "$EVD_LOG2"
echo "events server restarted at $BASE_URL (pid $SERVER_PID)"
if grep -Eq ' (error|critical|warning) ' "$EVD_LOG2"; then
    fail "events restart: no errors or warnings logged" "$(grep -E ' (error|critical|warning) ' "$EVD_LOG2" | head -n 3)"
else
    pass "events restart: no errors or warnings logged"
fi
expect_eq "events restart: integrity_check" ok "$(python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(db.execute("PRAGMA integrity_check").fetchone()[0])' "$EVD_DATA/events.sqlite" 2>&1)"

# Everything stored, through the export, paged with X-Next-Cursor until an empty page.
EVD_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$EVD_DATA/admin-token")"
evd_exported="$WORK/evd-exported.txt"
: >"$evd_exported"
evd_after=0
evd_export_end=""
for _ in $(seq 1 200); do
    fetch -H "$EVD_AUTH" "$BASE_URL/v1/admin/analytics/events?after=$evd_after&limit=10000"
    if [ "$STATUS" != 200 ]; then
        evd_export_end="status $STATUS: $(head -c 300 "$BODY")"
        break
    fi
    if [ ! -s "$BODY" ]; then
        evd_export_end="empty page"
        break
    fi
    jq -r .id "$BODY" >>"$evd_exported"
    evd_after=$(header X-Next-Cursor)
done
expect_eq "events restart: the export pages to an empty page" "empty page" "$evd_export_end"
sort -o "$evd_exported" "$evd_exported"
evd_missing=$(comm -23 "$evd_acked" "$evd_exported" | wc -l | tr -d ' ')
expect_eq "events restart: every acknowledged event is exported ($(wc -l <"$evd_acked" | tr -d ' ') of $evd_batches batches)" \
    0 "$evd_missing"
expect_eq "events restart: no event is exported twice" 0 "$(uniq -d "$evd_exported" | wc -l | tr -d ' ')"
# Batches are whole: every batch in the export (acknowledged or in flight at the kill) has all its
# events; at most one batch per client was committed without being acknowledged.
expect_eq "events restart: every exported batch is whole" "" \
    "$(awk -v n="$EVD_BATCH" '{ count[substr($0, 10, 4) "-" substr($0, 29, 8)]++ } END { for (b in count) if (count[b] != n) print b ":" count[b] }' "$evd_exported")"
evd_extra=$(comm -13 "$evd_acked" "$evd_exported" | wc -l | tr -d ' ')
if [ "$evd_extra" -le $((EVD_CLIENTS * EVD_BATCH)) ] && [ $((evd_extra % EVD_BATCH)) -eq 0 ]; then
    pass "events restart: batches committed but not acknowledged: $((evd_extra / EVD_BATCH)) (at most one per client)"
else
    fail "events restart: at most one batch per client committed but not acknowledged" "$evd_extra extra events"
fi
# What is counted is what was stored: the rollups, written in each batch's transaction, hold the
# exported events exactly, per app version (one per client), across the kill.
fetch -H "$EVD_AUTH" "$BASE_URL/v1/admin/analytics/summary?groupBy=appVersion&from=$(date -u -d "$EVD_OCCURRED - 1 hour" +%Y-%m-%dT%H:%M:%SZ)"
expect_eq "events restart: the summary counts exactly the stored events, per client" \
    "$(awk '{ count[substr($0, 10, 4) + 0]++ } END { for (c in count) printf "9.9.%d:%d\n", c, count[c] }' "$evd_exported" | sort | paste -sd' ')" \
    "$(jq -r '.groups[] | "\(.key):\(.displays)"' "$BODY" | sort | paste -sd' ')"
expect_eq "events restart: the summary is complete" null "$(jq -c .partial "$BODY")"

# The store takes events again; an acknowledged batch sent again is all duplicates.
evd_events() { # [FILTER]: the ids on stdin as a batch
    jq -R . | jq -sc --arg t "$EVD_OCCURRED" '{events: map({id: ., type: "displayed", templateId: "connectionRefused",
        revision: 1, locale: "en", platform: "ios", appVersion: "9.9.9", occurredAt: $t})}'
}
fetch -X POST -H 'Content-Type: application/json' -d "$(head -n "$EVD_BATCH" "$WORK/evd-acked.1" | evd_events)" "$BASE_URL/v1/events"
expect_eq "events restart: an acknowledged batch again is all duplicates" \
    "202 {\"accepted\":0,\"duplicates\":$EVD_BATCH,\"rejected\":[]}" "$STATUS $(cat "$BODY")"
fetch -X POST -H 'Content-Type: application/json' \
    -d "$(for _ in $(seq 1 3); do cat /proc/sys/kernel/random/uuid; done | evd_events)" "$BASE_URL/v1/events"
expect_eq "events restart: new events are accepted" '202 {"accepted":3,"duplicates":0,"rejected":[]}' "$STATUS $(cat "$BODY")"

stop_server
expect_eq "events server: SIGTERM exits 0" "0" "${STOP_STATUS:-still running after 15 s}"
