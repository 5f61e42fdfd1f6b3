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
