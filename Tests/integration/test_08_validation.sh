# Input hardening (issue 11): control characters in copy, NUL and other control characters in
# analytics events, and the places where the contract and the server used to disagree.

VAL_API="$BASE_URL/v1/admin"
VAL_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
VAL_DOC="$WORK/validation-noDocuments.json"

# --- Control characters in copy ----------------------------------------------------------------

jq '.id = "valControl" | del(.aliases)' "$ROOT/config/templates/noDocuments.json" >"$VAL_DOC"
for control in '\u001b' '\n' '\u0000' '\u0085' '\u2028'; do
    jq --arg c "$control" '.strings.en.title = ("Nothing" + ($c | "\"" + . + "\"" | fromjson) + "here")' \
        "$VAL_DOC" >"$VAL_DOC.bad"
    fetch -X PUT -H "$VAL_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
        --data-binary @"$VAL_DOC.bad" "$VAL_API/templates/valControl"
    expect_eq "copy with $control: 422 validation-failed" "422 urn:empty-state:problem:validation-failed" \
        "$STATUS $(json .type)"
    expect_eq "copy with $control: the pointer" /strings/en/title "$(json '.errors[0].pointer')"
    expect_match "copy with $control: the reason" '^contains the control character U\+' "$(json '.errors[0].detail')"
done
fetch -X PUT -H "$VAL_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
    --data-binary @"$VAL_DOC" "$VAL_API/templates/valControl"
expect_eq "copy without control characters: created" 201 "$STATUS"
VAL_STRINGS=$(jq -c '.strings.fr | .title = "Rien\tici"' "$VAL_DOC")
fetch -X PUT -H "$VAL_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    -d "$VAL_STRINGS" "$VAL_API/templates/valControl/strings/fr"
expect_eq "strings with a tab: 422, pointer relative to the body" "422 /title" "$STATUS $(json '.errors[0].pointer')"
fetch -X DELETE -H "$VAL_AUTH" -H 'If-Match: "r1"' "$VAL_API/templates/valControl"
expect_eq "scratch template deleted" 204 "$STATUS"

# --- NUL and other control characters in events ------------------------------------------------

val_event() { # SESSION_ID_JSON: one displayed event of connectionRefused with that sessionId
    jq -cn --arg id "$(cat /proc/sys/kernel/random/uuid)" --arg now "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        --argjson session "$1" '{id: $id, type: "displayed", templateId: "connectionRefused", revision: 1,
          locale: "fr", platform: "ios", appVersion: "5.2.0", sessionId: $session, occurredAt: $now}'
}
VAL_NUL_EVENT=$(val_event '"abc\u0000def"')
VAL_NUL_ID=$(jq -r .id <<<"$VAL_NUL_EVENT")
fetch -X POST -H 'Content-Type: application/json' -d "$VAL_NUL_EVENT" "$BASE_URL/v1/events"
expect_eq "NUL in sessionId: nothing accepted" "202 0" "$STATUS $(json .accepted)"
expect_eq "NUL in sessionId: rejected with the pointer" \
    "/sessionId: must not contain control characters (found U+0000)" "$(json '.rejected[0].reason')"
VAL_WHOLE=$(val_event '"session-kept-whole"')
fetch -X POST -H 'Content-Type: application/json' -d "{\"events\": [$VAL_WHOLE, $(val_event '"a\u001b[2Jb"')]}" \
    "$BASE_URL/v1/events"
expect_eq "batch with ESC in a sessionId: one accepted, /events/1 rejected" \
    "1 /events/1/sessionId: must not contain control characters (found U+001B)" \
    "$(json .accepted) $(json '.rejected[0].reason')"
fetch -H "$VAL_AUTH" "$BASE_URL/v1/admin/analytics/events?limit=10000"
if grep -q "$VAL_NUL_ID" "$BODY"; then
    fail "NUL in sessionId: not exported"
else
    pass "NUL in sessionId: not exported"
fi
expect_eq "a sessionId is exported whole" "session-kept-whole" \
    "$(jq -r --arg id "$(jq -r .id <<<"$VAL_WHOLE")" 'select(.id == $id) | .sessionId' "$BODY")"

# --- The contract and the server accept the same values ------------------------------------------
# param.<name> names, locale tags (query and the strings path) and the audit's templateId.

if python3 "$HERE/contract_drift.py" --base-url "$BASE_URL" --spec "$ROOT/openapi.yaml" \
    --admin-token-file "$WORK/data/admin-token" >"$WORK/contract_drift.log" 2>&1; then
    pass "contract and server agree value by value ($(tail -n 1 "$WORK/contract_drift.log"))"
else
    grep -E '^FAIL' "$WORK/contract_drift.log" | head -n 20
    fail "contract and server agree value by value" "$(tail -n 1 "$WORK/contract_drift.log")"
fi
