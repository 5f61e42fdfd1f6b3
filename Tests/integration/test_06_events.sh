# Analytics events end to end: POST /v1/events (good, duplicate and bad events in one batch, then
# the same batch again), the summary (totals, groupBy=action, groupBy=locale) and the NDJSON export
# paged with X-Next-Cursor. Other test files may post events too: the summary reads a window of
# time only these events fall in (two days ago), and the export starts at the cursor it had before.

EV_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
EV_EXPORT="$BASE_URL/v1/admin/analytics/events"
EV_SUMMARY="$BASE_URL/v1/admin/analytics/summary"

# ev_time SECONDS: RFC 3339 UTC of a Unix time.
ev_time() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
ev_uuid() { cat /proc/sys/kernel/random/uuid; }

# The export's end before this file posts anything: page until an empty page.
ev_start=0
for _ in $(seq 1 100); do
    fetch -H "$EV_AUTH" "$EV_EXPORT?after=$ev_start&limit=10000"
    if [ "$STATUS" != 200 ] || [ ! -s "$BODY" ]; then break; fi
    ev_start=$(header X-Next-Cursor)
done
expect_eq "events: the export answers 200 before anything is posted" 200 "$STATUS"

# The start of an hour two days ago: the summary window (summaries count whole hours).
ev_t0=$(($(date +%s) / 3600 * 3600 - 2 * 86400))
ev_id_a=$(ev_uuid)
ev_id_b=$(ev_uuid)
ev_id_c=$(ev_uuid)
ev_id_d=$(ev_uuid)
ev_id_e=$(ev_uuid)
ev_batch="$WORK/events-batch.json"
jq -n --arg a "$ev_id_a" --arg b "$ev_id_b" --arg c "$ev_id_c" --arg d "$ev_id_d" --arg e "$ev_id_e" \
    --arg t1 "$(ev_time $((ev_t0 + 1)))" --arg t2 "$(ev_time $((ev_t0 + 2)))" --arg t3 "$(ev_time $((ev_t0 + 3)))" \
    --arg t4 "$(ev_time $((ev_t0 + 4)))" --arg t5 "$(ev_time $((ev_t0 + 5)))" '
    def ev($id; $type; $template; $locale; $platform; $t):
        {id: $id, type: $type, templateId: $template, revision: 1, locale: $locale, platform: $platform,
         appVersion: "6.0.0", sessionId: "integration", occurredAt: $t};
    {events: [
        ev($a; "displayed"; "connectionRefused"; "en"; "ios"; $t1),
        ev($b; "displayed"; "connectionRefused"; "fr"; "android"; $t2),
        ev($c; "actionTapped"; "connectionRefused"; "en"; "ios"; $t3) + {actionId: "retry"},
        (ev($d; "actionTapped"; "connectionRefused"; "fr"; "web"; $t4) + {actionId: "back", etag: "\"abc\""} | del(.revision)),
        ev($a; "displayed"; "connectionRefused"; "en"; "ios"; $t1),
        ev("0b9c7f1e-5d7e-4c1a-9a53-1f0e2d3c4b5a"; "displayed"; "nope"; "en"; "ios"; $t1),
        ev($e; "actionTapped"; "noResults"; "de"; "web"; $t5) + {actionId: "clearFilters"},
        ev("6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1c"; "displayed"; "connectionRefused"; "en"; "tv"; $t1),
        ev($c | ascii_upcase; "actionTapped"; "connectionRefused"; "en"; "ios"; $t3) + {actionId: "retry"}
    ]}' >"$ev_batch"
ev_rejected='[{"index":5,"reason":"/events/5/templateId: unknown template \"nope\""},{"index":7,"reason":"/events/7/platform: must be ios, android or web"}]'

ev_request="events-test06-$RANDOM$RANDOM"
fetch -X POST -H 'Content-Type: application/json' -H "X-Request-ID: $ev_request" --data-binary @"$ev_batch" "$BASE_URL/v1/events"
expect_eq "events: a batch is 202" 202 "$STATUS"
expect_eq "events: 202 body counts new, duplicates (within the batch) and rejections" \
    "{\"accepted\":5,\"duplicates\":2,\"rejected\":$ev_rejected}" "$(cat "$BODY")"
expect_eq "events: 202 is JSON" "application/json; charset=utf-8" "$(header Content-Type)"
expect_eq "events: 202 not cached" no-store "$(header Cache-Control)"
fetch -X POST -H 'Content-Type: application/json' -H "X-Request-ID: $ev_request" --data-binary @"$ev_batch" "$BASE_URL/v1/events"
expect_eq "events: the same batch again: every valid event a duplicate" \
    "202 {\"accepted\":0,\"duplicates\":7,\"rejected\":$ev_rejected}" "$STATUS $(cat "$BODY")"
# The rejected events are quarantined with the reason, the event as sent and the request id; the
# accepted ones carry the request id (neither is in the API: read from the database).
ev_db() { # SQL: rows of the event database, fields separated by |
    python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute(sys.argv[2], sys.argv[3:]): print("|".join(str(field) for field in row))' "$WORK/data/events.sqlite" "$@" 2>&1
}
expect_eq "events: rejected events are quarantined (twice: both posts)" \
    "/templateId: unknown template \"nope\"|0b9c7f1e-5d7e-4c1a-9a53-1f0e2d3c4b5a
/platform: must be ios, android or web|6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1c
/templateId: unknown template \"nope\"|0b9c7f1e-5d7e-4c1a-9a53-1f0e2d3c4b5a
/platform: must be ios, android or web|6f1d2c3b-4a59-4e8f-9d7c-6b5a4f3e2d1c" \
    "$(ev_db "SELECT reason, json_extract(payload, '$.id') FROM quarantine WHERE request_id = ? ORDER BY seq" "$ev_request")"
expect_eq "events: accepted events carry the request id" 5 \
    "$(ev_db "SELECT COUNT(*) FROM event WHERE request_id = ?" "$ev_request")"
fetch -X POST -H 'Content-Type: text/plain' --data-binary @"$ev_batch" "$BASE_URL/v1/events"
expect_eq "events: not application/json is 415" 415 "$STATUS"

# --- Summary ----------------------------------------------------------------------------------------

ev_window="from=$(ev_time "$ev_t0")&to=$(ev_time $((ev_t0 + 3600)))"
fetch "$EV_SUMMARY?$ev_window"
expect_eq "summary: needs a token" 401 "$STATUS"
fetch -H "$EV_AUTH" "$EV_SUMMARY?$ev_window"
expect_eq "summary: 200" 200 "$STATUS"
expect_eq "summary: the window is echoed" "$(date -u -d "@$ev_t0" +%Y-%m-%dT%H:%M:%S.000Z) null null null" \
    "$(json '"\(.from) \(.templateId) \(.groupBy) \(.partial)"')"
# Members compared in sorted order: JSON objects are unordered (the server sorts its keys).
expect_eq "summary: totals (2 displays, 3 taps, rate 1.5)" '{"displays":2,"tapThroughRate":1.5,"taps":3,"tapsByAction":{"back":1,"clearFilters":1,"retry":1}}' \
    "$(jq -cS .totals "$BODY")"
expect_eq "summary: no groups without groupBy" 0 "$(json '.groups | length')"
fetch -H "$EV_AUTH" "$EV_SUMMARY?$ev_window&groupBy=action"
expect_eq "summary by action: tapsByAction of the totals" '{"back":1,"clearFilters":1,"retry":1}' "$(jq -c .totals.tapsByAction "$BODY")"
expect_eq "summary by action: one group per action, rates against all displays" \
    'back:0:1:0.5 clearFilters:0:1:0.5 retry:0:1:0.5' \
    "$(json '[.groups[] | "\(.key):\(.displays):\(.taps):\(.tapThroughRate)"] | join(" ")')"
fetch -H "$EV_AUTH" "$EV_SUMMARY?$ev_window&groupBy=locale"
expect_eq "summary by locale" 'de:0:1:0 en:1:1:1 fr:1:1:1' \
    "$(json '[.groups[] | "\(.key):\(.displays):\(.taps):\(.tapThroughRate)"] | join(" ")')"
expect_eq "summary by locale: taps by action per locale" '{"clearFilters":1} {"retry":1} {"back":1}' \
    "$(jq -c '.groups[].tapsByAction' "$BODY" | paste -sd' ')"
fetch -H "$EV_AUTH" "$EV_SUMMARY?$ev_window&groupBy=template&templateId=connectionRefused"
expect_eq "summary of one template (an alias was counted under its canonical id)" 'connectionRefused:2:2' \
    "$(json '[.groups[] | "\(.key):\(.displays):\(.taps)"] | join(" ")')"
fetch -H "$EV_AUTH" "$EV_SUMMARY?from=$(ev_time $((ev_t0 + 3)))&to=$(ev_time $((ev_t0 + 5)))"
expect_eq "summary: a window inside an hour counts the whole hour, and says so" \
    "$(ev_time "$ev_t0" | sed 's/Z$/.000Z/') $(ev_time $((ev_t0 + 3600)) | sed 's/Z$/.000Z/') 2 3" \
    "$(json '"\(.from) \(.to) \(.totals.displays) \(.totals.taps)"')"
fetch -H "$EV_AUTH" "$EV_SUMMARY?from=$(ev_time $(($(date +%s) - 200 * 86400)))"
expect_eq "summary: a window before the retention period is partial" '["retention"]' "$(jq -c .partial "$BODY")"

# --- NDJSON export --------------------------------------------------------------------------------

ev_lines="$WORK/events-export.ndjson"
: >"$ev_lines"
ev_after=$ev_start
ev_pages=""
ev_cursor_ok=yes
for _ in $(seq 1 20); do
    fetch -H "$EV_AUTH" "$EV_EXPORT?after=$ev_after&limit=2"
    [ "$STATUS" = 200 ] || break
    ev_count=$(grep -c '' "$BODY")
    ev_pages="$ev_pages $ev_count"
    ev_next=$(header X-Next-Cursor)
    if [ "$ev_count" -eq 0 ]; then
        [ "$ev_next" = "$ev_after" ] || ev_cursor_ok="the empty page moved the cursor from $ev_after to '$ev_next'"
        break
    fi
    [ "$ev_next" = "$(tail -n 1 "$BODY" | jq -r .cursor)" ] || ev_cursor_ok="X-Next-Cursor '$ev_next' is not the last line's cursor"
    cat "$BODY" >>"$ev_lines"
    ev_after=$ev_next
done
expect_eq "export: 200 application/x-ndjson" "200 application/x-ndjson; charset=utf-8" "$STATUS $(header Content-Type)"
expect_eq "export: pages of 2, 2, 1, then an empty page" " 2 2 1 0" "$ev_pages"
expect_eq "export: X-Next-Cursor is the last line's cursor, and stays on the empty page" yes "$ev_cursor_ok"
expect_eq "export: 5 lines" 5 "$(grep -c '' "$ev_lines")"
expect_eq "export: oldest first, each event once" "$ev_id_a $ev_id_b $ev_id_c $ev_id_d $ev_id_e" \
    "$(jq -r .id "$ev_lines" | paste -sd' ')"
expect_eq "export: cursors increase" "$(jq .cursor "$ev_lines" | sort -n | paste -sd' ')" "$(jq .cursor "$ev_lines" | paste -sd' ')"
expect_eq "export: an alias is exported as its template" noSearchResults "$(jq -r "select(.id == \"$ev_id_e\") | .templateId" "$ev_lines")"
expect_eq "export: the fields of one event" \
    "actionTapped connectionRefused null \"abc\" fr web back integration $(ev_time $((ev_t0 + 4)) | sed 's/Z$/.000Z/') 0" \
    "$(jq -r "select(.id == \"$ev_id_d\") | \"\(.type) \(.templateId) \(.revision) \(.etag) \(.locale) \(.platform) \(.actionId) \(.sessionId) \(.occurredAt) \(.clockSkewMs)\"" "$ev_lines")"
fetch -H "$EV_AUTH" "$EV_EXPORT?after=$ev_start"
expect_eq "export: the default limit takes all five" 5 "$(grep -c '' "$BODY")"
fetch -H "$EV_AUTH" "$EV_EXPORT?after=-1"
expect_eq "export: a negative cursor is 400" 400 "$STATUS"
