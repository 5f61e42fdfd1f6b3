# The admin API, played as an ops workflow against the suite's server (started without
# --admin-token, so it generated an admin token into the data directory): authentication, create,
# preconditions, validation, translation, client cache invalidation, rollback, history, delete and
# restore, audit, locales, paging. Roles (viewer 403) and durability are in admin_roles.sh.

ADM_API="$BASE_URL/v1/admin"
ADM_ID=promoEnded
ADM_TOKEN_FILE="$WORK/data/admin-token"

# expect_admin_problem NAME STATUS SLUG: the last response is that problem+json.
expect_admin_problem() {
    expect_eq "$1: status $2" "$2" "$STATUS"
    expect_eq "$1: problem+json" "application/problem+json" "$(header Content-Type)"
    expect_eq "$1: type $3" "urn:empty-state:problem:$3" "$(json .type)"
    expect_eq "$1: body status agrees" "$2" "$(json .status)"
}

# --- The generated token -------------------------------------------------------------------------

if [ -s "$ADM_TOKEN_FILE" ]; then pass "admin token: generated into the data directory"; else fail "admin token: generated into the data directory" "no $ADM_TOKEN_FILE"; fi
expect_eq "admin token: file mode 0600" 600 "$(stat -c '%a' "$ADM_TOKEN_FILE" 2>/dev/null)"
ADM_TOKEN=$(tr -d '[:space:]' <"$ADM_TOKEN_FILE" 2>/dev/null)
expect_match "admin token: long random hex" '^[0-9a-f]{32,}$' "$ADM_TOKEN"
expect_match "admin token: the log names the file" "admin.token_file=$ADM_TOKEN_FILE" "$(cat "$SERVER_LOG")"
if [ -n "$ADM_TOKEN" ] && ! grep -qF -- "$ADM_TOKEN" "$SERVER_LOG"; then
    pass "admin token: the token itself is not in the log"
else
    fail "admin token: the token itself is not in the log"
fi
ADM_AUTH="Authorization: Bearer $ADM_TOKEN"

# --- 401 ---------------------------------------------------------------------------------------

fetch "$ADM_API/templates"
expect_admin_problem "no token" 401 unauthorized
expect_eq "no token: WWW-Authenticate" 'Bearer realm="empty-state-admin"' "$(header WWW-Authenticate)"
expect_eq "no token: not cached" no-store "$(header Cache-Control)"
fetch -H "Authorization: Bearer ${ADM_TOKEN}x" "$ADM_API/templates"
expect_admin_problem "wrong token" 401 unauthorized
expect_match "wrong token: WWW-Authenticate" '^Bearer ' "$(header WWW-Authenticate)"
fetch -H "Authorization: Basic $(printf 'admin:%s' "$ADM_TOKEN" | base64 -w0)" "$ADM_API/templates"
expect_admin_problem "Basic instead of Bearer" 401 unauthorized
fetch -X PUT -H 'Content-Type: application/json' -H 'If-None-Match: *' --data-binary @"$ROOT/config/templates/noDocuments.json" \
    "$ADM_API/templates/noDocuments"
expect_admin_problem "write without a token" 401 unauthorized
expect_match "write without a token: WWW-Authenticate" '^Bearer ' "$(header WWW-Authenticate)"
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID"
expect_admin_problem "the token works; $ADM_ID does not exist yet" 404 unknown-template

# --- Create ------------------------------------------------------------------------------------

ADM_DOC="$WORK/$ADM_ID.json"
jq --arg id "$ADM_ID" '.id = $id | del(.aliases)' "$ROOT/config/templates/noDocuments.json" >"$ADM_DOC"
ADM_R1_FR=$(jq -r '.strings.fr.title' "$ADM_DOC")
fetch "$BASE_URL/v1/templates/connectionRefused?locale=fr"
adm_other_etag=$(header ETag)

fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' --data-binary @"$ADM_DOC" \
    "$ADM_API/templates/$ADM_ID"
expect_eq "create: 201" 201 "$STATUS"
expect_eq "create: ETag r1" '"r1"' "$(header ETag)"
expect_eq "create: Location" "/v1/admin/templates/$ADM_ID" "$(header Location)"
expect_eq "create: revision 1 in the body" 1 "$(json .revision)"
expect_eq "create: author is the token's name" admin "$(json .updatedBy)"
expect_eq "create: the document is echoed" "$(jq -cS . "$ADM_DOC")" "$(jq -cS .template "$BODY")"

fetch "$BASE_URL/v1/templates/$ADM_ID?locale=de"
expect_eq "create: served to clients at once" 200 "$STATUS"
expect_eq "create: clients get its copy" "$(jq -r '.strings.de.title' "$ADM_DOC")" "$(json .title)"
fetch "$BASE_URL/v1/templates?locale=en"
expect_eq "create: in the bundle" 1 "$(json "[.templates[] | select(.id == \"$ADM_ID\")] | length")"
fetch "$BASE_URL/v1/templates/connectionRefused?locale=fr"
expect_eq "create: other templates keep their ETag" "$adm_other_etag" "$(header ETag)"

fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' --data-binary @"$ADM_DOC" \
    "$ADM_API/templates/$ADM_ID"
expect_admin_problem "create again" 412 precondition-failed
expect_eq "create again: current ETag" '"r1"' "$(header ETag)"
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' --data-binary @"$ADM_DOC" "$ADM_API/templates/$ADM_ID"
expect_admin_problem "replace without a precondition" 428 precondition-required
expect_eq "replace without a precondition: names If-Match" If-Match "$(json '.errors[0].header')"

# --- Validate only -----------------------------------------------------------------------------

ADM_BROKEN="$WORK/$ADM_ID-broken.json"
jq '.category = "nope" | .style = "loud" | .strings.fr["actions.create"] = "OK" | del(.strings.de.title)
    | .strings.fr.title = "Cassé"' "$ADM_DOC" >"$ADM_BROKEN"
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' --data-binary @"$ADM_BROKEN" \
    "$ADM_API/templates/$ADM_ID?validateOnly=true"
expect_admin_problem "validateOnly, broken document" 422 validation-failed
expect_eq "validateOnly: every broken rule listed" 4 "$(json '.errors | length')"
expect_eq "validateOnly: JSON pointers" "/category /strings/de/title /strings/fr/actions.create /style" \
    "$(json '[.errors[].pointer] | sort | join(" ")')"
expect_match "validateOnly: each with a reason" 'descriptive' "$(json '.errors[] | select(.pointer == "/strings/fr/actions.create") | .detail')"
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID"
expect_eq "validateOnly: nothing written (still r1)" '"r1" 1' "$(header ETag) $(json .revision)"
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' --data-binary @"$ADM_DOC" \
    "$ADM_API/templates/$ADM_ID?validateOnly=true"
expect_eq "validateOnly, valid document: 200" 200 "$STATUS"
expect_eq "validateOnly, valid document: valid" true "$(json .valid)"
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID/revisions"
expect_eq "validateOnly: still one revision" 1 "$(json .total)"

# --- Translate ---------------------------------------------------------------------------------

fetch "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_eq "client fr: 200" 200 "$STATUS"
expect_eq "client fr: revision 1's title" "$ADM_R1_FR" "$(json .title)"
ADM_CLIENT_ETAG=$(header ETag)
fetch -H "If-None-Match: $ADM_CLIENT_ETAG" "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_eq "client fr: 304 while unchanged" 304 "$STATUS"
# adm_memo_entries: how many client answers the server remembers now (from /metrics).
adm_memo_entries() {
    curl -s "$BASE_URL/metrics" | awk '$1 == "http_memo_entries" { printf "%.0f", $2 }'
}
ADM_MEMO_BEFORE=$(adm_memo_entries)
expect_match "memo: the client answers above are remembered" '^[1-9][0-9]*$' "$ADM_MEMO_BEFORE"
# An answer made from another template, which the publication below must not forget.
fetch "$BASE_URL/v1/templates/connectionRefused?locale=ja"
fetch "$BASE_URL/v1/templates/connectionRefused?locale=ja"
ADM_MEMO_BEFORE=$(adm_memo_entries)

ADM_R2_FR="Plus aucun document"
adm_fr_strings() { # TITLE LABEL
    jq -cn --arg t "$1" --arg l "$2" '{"title": $t, "message": "Créez votre premier document pour commencer.", "actions.create": $l}'
}
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    -d "$(adm_fr_strings "$ADM_R2_FR" "Créer un document")" "$ADM_API/templates/$ADM_ID/strings/fr"
expect_eq "strings fr: 200" 200 "$STATUS"
expect_eq "strings fr: ETag r2" '"r2"' "$(header ETag)"
expect_eq "strings fr: new title in the document" "$ADM_R2_FR" "$(json .template.strings.fr.title)"
expect_eq "strings fr: other locales untouched" "$(jq -r '.strings.de.title' "$ADM_DOC")" "$(json .template.strings.de.title)"
ADM_MEMO_AFTER=$(adm_memo_entries)
expect_eq "memo: the publication forgot the answers made from $ADM_ID (and the bundles')" yes \
    "$([ "$ADM_MEMO_AFTER" -lt "$ADM_MEMO_BEFORE" ] && echo yes || echo "no: $ADM_MEMO_BEFORE -> $ADM_MEMO_AFTER")"
expect_eq "memo: answers made from other templates are kept" yes \
    "$([ "$ADM_MEMO_AFTER" -ge 1 ] && echo yes || echo "no: $ADM_MEMO_AFTER")"

fetch -H "If-None-Match: $ADM_CLIENT_ETAG" "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_eq "client fr: old ETag now gets 200, not 304" 200 "$STATUS"
expect_eq "client fr: the new title" "$ADM_R2_FR" "$(json .title)"
if [ "$(header ETag)" != "$ADM_CLIENT_ETAG" ]; then pass "client fr: a new ETag"; else fail "client fr: a new ETag"; fi
fetch "$BASE_URL/v1/templates/$ADM_ID?locale=de"
expect_eq "client de: unchanged copy" "$(jq -r '.strings.de.title' "$ADM_DOC")" "$(json .title)"

fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    -d "$(adm_fr_strings "Titre perdu" "Créer un document")" "$ADM_API/templates/$ADM_ID/strings/fr"
expect_admin_problem "stale If-Match" 412 precondition-failed
expect_eq "stale If-Match: the current ETag" '"r2"' "$(header ETag)"
expect_match "stale If-Match: the reason names it" 'r2' "$(json '.errors[0].detail')"
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: text/plain' -H 'If-Match: "r2"' \
    -d "$(adm_fr_strings "Titre perdu" "Créer un document")" "$ADM_API/templates/$ADM_ID/strings/fr"
expect_admin_problem "text/plain body" 415 unsupported-media-type
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r2"' \
    -d '{"title": "Titre perdu",' "$ADM_API/templates/$ADM_ID/strings/fr"
expect_admin_problem "a body that is not JSON" 400 invalid-json
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r2"' \
    -d "$(adm_fr_strings "Titre perdu" "OK")" "$ADM_API/templates/$ADM_ID/strings/fr"
expect_admin_problem "vague label" 422 validation-failed
expect_eq "vague label: pointer into the body" "/actions.create" "$(json '[.errors[].pointer] | join(" ")')"
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -d "$(adm_fr_strings "Titre perdu" "Créer")" \
    "$ADM_API/templates/$ADM_ID/strings/fr"
expect_admin_problem "strings without If-Match" 428 precondition-required
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID"
expect_eq "refused writes changed nothing (still r2)" "\"r2\" 2 $ADM_R2_FR" "$(header ETag) $(json .revision) $(json .template.strings.fr.title)"
expect_eq "admin GET: who changed the French title" admin \
    "$(json '.stringUpdates[] | select(.locale == "fr" and .key == "title") | .updatedBy')"
fetch "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_eq "refused writes: clients still get r2's title" "$ADM_R2_FR" "$(json .title)"

# --- Roll back ---------------------------------------------------------------------------------

fetch -X POST -H "$ADM_AUTH" -H 'Content-Type: application/json' -d '{"revision": 1}' "$ADM_API/templates/$ADM_ID/rollback"
expect_eq "rollback to 1: 200" 200 "$STATUS"
expect_eq "rollback to 1: a new revision 3" '"r3" 3' "$(header ETag) $(json .revision)"
expect_eq "rollback to 1: revision 1's content" "$ADM_R1_FR" "$(json .template.strings.fr.title)"
fetch "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_eq "rollback to 1: clients get the old title" "$ADM_R1_FR" "$(json .title)"
# The body names the revision it comes from, so revision 1's copy served as revision 3 is a new
# representation: a client holding revision 1's ETag downloads it again.
expect_eq "rollback to 1: the body names revision 3" 3 "$(json .revision)"
if [ "$(header ETag)" != "$ADM_CLIENT_ETAG" ]; then pass "rollback to 1: a new ETag"; else fail "rollback to 1: a new ETag"; fi

fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID/revisions"
expect_eq "revisions: 200" 200 "$STATUS"
expect_eq "revisions: 3, newest first" "3 2 1" "$(json '[.items[].revision] | join(" ")')"
expect_eq "revisions: total" 3 "$(json .total)"
expect_eq "revisions: actions" "rollback strings create" "$(json '[.items[].action] | join(" ")')"
expect_eq "revisions: changedFields" '[["/strings/fr/title"],["/strings/fr/title"],["/"]]' \
    "$(jq -c '[.items[].changedFields]' "$BODY")"
expect_eq "revisions: authors" "admin admin admin" "$(json '[.items[].createdBy] | join(" ")')"
expect_eq "revisions: listings carry no documents" 0 "$(json '[.items[] | select(has("template"))] | length')"
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID/revisions/2"
expect_eq "revision 2: 200" 200 "$STATUS"
expect_eq "revision 2: number and action" "2 strings" "$(json '"\(.revision) \(.action)"')"
expect_eq "revision 2: the template document" "$(jq -c --arg t "$ADM_R2_FR" '.strings.fr.title = $t' "$ADM_DOC" | jq -cS .)" \
    "$(jq -cS .template "$BODY")"
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID/revisions/9"
expect_admin_problem "revision 9" 404 unknown-revision
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID/revisions/zero"
expect_admin_problem "revision zero" 400 invalid-parameter

# --- Delete and restore ------------------------------------------------------------------------

fetch -X DELETE -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID"
expect_admin_problem "delete without If-Match" 428 precondition-required
fetch -X DELETE -H "$ADM_AUTH" -H 'If-Match: "r2"' "$ADM_API/templates/$ADM_ID"
expect_admin_problem "delete with a stale If-Match" 412 precondition-failed
fetch -X DELETE -H "$ADM_AUTH" -H 'If-Match: W/"r3"' "$ADM_API/templates/$ADM_ID"
expect_admin_problem "delete with an If-Match that is not an ETag of this API" 412 precondition-failed
# An unknown id is 404 whatever If-Match holds (RFC 9110 §13.2.1), as for a well-formed one.
for tag in '"r1"' 'W/"r1"' '*'; do
    fetch -X DELETE -H "$ADM_AUTH" -H "If-Match: $tag" "$ADM_API/templates/noSuchTemplateEver"
    expect_admin_problem "delete an unknown id, If-Match: $tag" 404 unknown-template
done
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-Match: *' -d '{"title": "x"}' \
    "$ADM_API/templates/noSuchTemplateEver/strings/fr"
expect_admin_problem "strings of an unknown id, If-Match: *" 404 unknown-template
fetch -X POST -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-Match: junk' -d '{"revision": 1}' \
    "$ADM_API/templates/noSuchTemplateEver/rollback"
expect_admin_problem "rollback of an unknown id, If-Match: junk" 404 unknown-template
fetch "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_eq "refused delete: clients still served" 200 "$STATUS"
fetch -X DELETE -H "$ADM_AUTH" -H 'If-Match: "r3"' "$ADM_API/templates/$ADM_ID"
expect_eq "delete: 204" 204 "$STATUS"
expect_eq "delete: no body" 0 "$(wc -c <"$BODY" | tr -d ' ')"
expect_eq "delete: ETag of the deletion" '"r4"' "$(header ETag)"
fetch "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_admin_problem "client after delete" 404 unknown-template
fetch -H "If-None-Match: $ADM_CLIENT_ETAG" "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_eq "client after delete: a cached ETag gets 404, not 304" 404 "$STATUS"
fetch "$BASE_URL/v1/templates?locale=en"
expect_eq "client after delete: not in the bundle" 0 "$(json "[.templates[] | select(.id == \"$ADM_ID\")] | length")"
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID"
expect_admin_problem "admin GET after delete" 404 template-deleted
expect_eq "admin GET after delete: ETag of the deletion" '"r4"' "$(header ETag)"
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID/revisions/3"
expect_eq "after delete: the history stays" "200 3" "$STATUS $(json .revision)"
fetch -X PUT -H "$ADM_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r4"' \
    -d "$(adm_fr_strings "Titre perdu" "Créer un document")" "$ADM_API/templates/$ADM_ID/strings/fr"
expect_admin_problem "strings on a deleted template" 404 template-deleted

fetch -X POST -H "$ADM_AUTH" -H 'Content-Type: application/json' -d '{"revision": 4}' "$ADM_API/templates/$ADM_ID/rollback"
expect_admin_problem "rollback to the deletion itself" 422 validation-failed
expect_eq "rollback to the deletion itself: pointer" /revision "$(json '.errors[0].pointer')"
fetch -X POST -H "$ADM_AUTH" -H 'Content-Type: application/json' -d '{"revision": "2"}' "$ADM_API/templates/$ADM_ID/rollback"
expect_admin_problem "rollback without a numeric revision" 422 validation-failed
expect_eq "rollback without a numeric revision: pointer" /revision "$(json '.errors[0].pointer')"
fetch -X POST -H "$ADM_AUTH" -H 'Content-Type: application/json' -d '{"revision": 2}' "$ADM_API/templates/$ADM_ID/rollback"
expect_eq "restore (rollback to 2): 200" 200 "$STATUS"
expect_eq "restore: revision 5" '"r5" 5' "$(header ETag) $(json .revision)"
fetch "$BASE_URL/v1/templates/$ADM_ID?locale=fr"
expect_eq "restore: clients get 200 again" 200 "$STATUS"
expect_eq "restore: with revision 2's title" "$ADM_R2_FR" "$(json .title)"
fetch -H "$ADM_AUTH" "$ADM_API/templates/$ADM_ID"
expect_eq "restore: admin GET 200 at r5" '200 "r5"' "$STATUS $(header ETag)"
fetch -H "$ADM_AUTH" -H 'If-None-Match: "r5"' "$ADM_API/templates/$ADM_ID"
expect_eq "admin GET: 304 on the current ETag" 304 "$STATUS"

# --- Audit, locales, listing ---------------------------------------------------------------------

fetch -H "$ADM_AUTH" "$ADM_API/audit?templateId=$ADM_ID"
expect_eq "audit: 200" 200 "$STATUS"
expect_eq "audit: every change of $ADM_ID, newest first" "5:rollback 4:delete 3:rollback 2:strings 1:create" \
    "$(json '[.items[] | "\(.revision):\(.action)"] | join(" ")')"
expect_eq "audit: createdBy admin" admin "$(json '[.items[].createdBy] | unique | join(",")')"
expect_eq "audit: only $ADM_ID" "$ADM_ID" "$(json '[.items[].templateId] | unique | join(",")')"
expect_eq "audit: changed fields of the translation" '["/strings/fr/title"]' \
    "$(jq -c '.items[] | select(.revision == 2) | .changedFields' "$BODY")"
expect_match "audit: timestamps" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' "$(json '.items[0].createdAt')"
fetch -H "$ADM_AUTH" "$ADM_API/audit?pageSize=5"
expect_eq "audit, every template: newest first is ours" "$ADM_ID 5" "$(json '"\(.items[0].templateId) \(.items[0].revision)"')"
expect_eq "audit, every template: built-in imports counted too" $((15 + 5)) "$(json .total)"

fetch -H "$ADM_AUTH" "$ADM_API/locales"
expect_eq "locales: 200" 200 "$STATUS"
expect_eq "locales: fr is complete" 1 "$(json '.locales[] | select(.locale == "fr") | .completeness')"
expect_eq "locales: fr counts $ADM_ID" "16 16" "$(json '.locales[] | select(.locale == "fr") | "\(.templates) \(.completeTemplates)"')"
expect_eq "locales: no pseudo-locales" 0 "$(json '[.locales[] | select(.locale == "en-XA" or .locale == "ar-XB")] | length')"

fetch -H "$ADM_AUTH" "$ADM_API/templates?pageSize=2&page=2"
expect_eq "list page 2: 200" 200 "$STATUS"
expect_eq "list page 2: paging echoed" "2 2 16" "$(json '"\(.page) \(.pageSize) \(.total)"')"
adm_ids=$(for f in "$ROOT"/config/templates/*.json "$ADM_ID.json"; do basename "$f" .json; done | LC_ALL=C sort)
expect_eq "list page 2: the 3rd and 4th ids" "$(printf '%s\n' "$adm_ids" | sed -n '3,4p' | paste -sd' ')" \
    "$(json '[.items[].id] | join(" ")')"
fetch -H "$ADM_AUTH" "$ADM_API/templates?pageSize=200"
expect_eq "list: $ADM_ID at revision 5 by admin" "5 admin" "$(json ".items[] | select(.id == \"$ADM_ID\") | \"\(.revision) \(.updatedBy)\"")"
fetch -H "$ADM_AUTH" "$ADM_API/templates?pageSize=0"
expect_admin_problem "pageSize=0" 400 invalid-parameter
expect_eq "pageSize=0: names the parameter" pageSize "$(json '.errors[0].parameter')"
fetch -H "$ADM_AUTH" "$ADM_API/templates?page=0&pageSize=201"
expect_eq "page=0 and pageSize=201: both listed" "page pageSize" "$(json '[.errors[].parameter] | join(" ")')"
