# Change requests and review rules end to end (issue 34): an admin sets the rules, an editor
# proposes edits of two templates, a direct write is refused while a rule asks for approvals,
# the author cannot approve their own request, an edit resets approvals, a viewer cannot act, a
# reviewer approves, a request whose base moved answers 409 naming the targets and fields,
# publication serves both templates at once, the audit names every action, and a rollback request
# undoes the publication; scheduled publishes (on time, due while the server was down, cancelled).
# Sourced by run.sh: starts its own server (start_server from run.sh) with
# one token per role on its own data directory, and stops it at the end.
echo "== change requests and review rules"

CR_DATA="$WORK/cr-data"
CR_LOG="$WORK/cr.log"
CR_FLAGS=(
    --admin-token "ed:editor:cr-editor-secret-0123456789"
    --admin-token "ed2:editor:cr-editor2-secret-012345678"
    --admin-token "rv:reviewer:cr-reviewer-secret-01234567"
    --admin-token "ad:admin:cr-admin-secret-0123456789"
    --admin-token "vw:viewer:cr-viewer-secret-0123456789"
)
CR_ED="Authorization: Bearer cr-editor-secret-0123456789"
CR_ED2="Authorization: Bearer cr-editor2-secret-012345678"
CR_RV="Authorization: Bearer cr-reviewer-secret-01234567"
CR_AD="Authorization: Bearer cr-admin-secret-0123456789"
CR_VW="Authorization: Bearer cr-viewer-secret-0123456789"
DATA_DIR="$CR_DATA" start_server "$CR_LOG" "${CR_FLAGS[@]}"
echo "change-requests server at $BASE_URL (pid $SERVER_PID)"
CR_API="$BASE_URL/v1/admin"
JSON='Content-Type: application/json'

# cr_send METHOD PATH AUTH [BODY] [extra curl args…]
cr_send() {
    local method=$1 path=$2 auth=$3 body=${4:-}
    shift 3
    [ $# -gt 0 ] && shift
    if [ -n "$body" ]; then
        fetch -X "$method" -H "$auth" -H "$JSON" --data-binary "$body" "$@" "$CR_API$path"
    else
        fetch -X "$method" -H "$auth" "$@" "$CR_API$path"
    fi
}

# --- Review rules: default 0, viewer reads, only an admin sets ----------------------------------

cr_send GET /review-rules "$CR_VW"
expect_eq "rules: a viewer reads them" 200 "$STATUS"
expect_eq "rules: the default asks for no approvals" 0 "$(json .requiredApprovals)"
expect_eq "rules: never set, revision 0" '"r0"' "$(header ETag)"
cr_send PUT /review-rules "$CR_RV" '{"requiredApprovals":1}' -H 'If-Match: "r0"'
expect_eq "rules: a reviewer may not set them" 403 "$STATUS"
cr_send PUT /review-rules "$CR_AD" '{"requiredApprovals":1,"categories":{"nope":2},"extra":1}' -H 'If-Match: "r0"'
expect_eq "rules: bad rules are 422" 422 "$STATUS"
expect_eq "rules: 422 names each member" "/categories/nope /extra" "$(json '[.errors[].pointer] | sort | join(" ")')"
cr_send PUT /review-rules "$CR_AD" '{"requiredApprovals":1}'
expect_eq "rules: without If-Match 428" 428 "$STATUS"
cr_send PUT /review-rules "$CR_AD" '{"requiredApprovals":1,"allowEmergencyRollback":true}' -H 'If-Match: "r0"'
expect_eq "rules: an admin sets them" 200 "$STATUS"
expect_eq "rules: revision 1" '"r1"' "$(header ETag)"
cr_send PUT /review-rules "$CR_AD" '{"requiredApprovals":2}' -H 'If-Match: "r0"'
expect_eq "rules: a stale If-Match is 412" 412 "$STATUS"

# --- A direct write is refused while a rule asks for approvals ---------------------------------

fetch -H "$CR_ED" "$CR_API/templates/noDocuments"
cr_nodocs=$(jq -c .template "$BODY")
cr_nodocs_rev=$(header ETag)
fetch -H "$CR_ED" "$CR_API/templates/noFavorites"
cr_noresults=$(jq -c .template "$BODY")
fetch -X PUT -H "$CR_ED" -H "$JSON" -H "If-Match: $cr_nodocs_rev" \
    --data-binary "$(jq -c '.strings.en.title = "Direct"' <<<"$cr_nodocs")" "$CR_API/templates/noDocuments"
expect_eq "direct write: refused with 409" 409 "$STATUS"
expect_eq "direct write: review-required problem" "urn:empty-state:problem:review-required" "$(json .type)"
expect_eq "direct write: names the rule" "/requiredApprovals" "$(json .rule)"

# --- An editor proposes two templates ----------------------------------------------------------

cr_body=$(jq -cn --argjson a "$(jq -c '.strings.en.title = "Nothing here yet (reviewed)"' <<<"$cr_nodocs")" \
    --argjson b "$(jq -c '.strings.en.title = "No favourites (reviewed)"' <<<"$cr_noresults")" \
    '{title: "Friendlier empty titles", description: "Two titles at once",
      changes: [{kind: "template", id: "noDocuments", document: $a}, {kind: "template", id: "noFavorites", document: $b}]}')
cr_send POST /change-requests "$CR_VW" "$cr_body"
expect_eq "propose: a viewer may not" 403 "$STATUS"
cr_send POST /change-requests "$CR_ED" '{"title":"x","changes":[{"kind":"widget","id":"a"},{"kind":"template","id":"noDocuments","document":{"id":"noDocuments"}}]}'
expect_eq "propose: bad changes are 422" 422 "$STATUS"
expect_match "propose: 422 points into the body" '/changes/0/kind' "$(json '[.errors[].pointer] | join(" ")')"
expect_match "propose: 422 points into a document" '/changes/1/document' "$(json '[.errors[].pointer] | join(" ")')"
cr_send POST /change-requests "$CR_ED" "$cr_body"
expect_eq "propose: 201" 201 "$STATUS"
cr_id=$(json .id)
expect_eq "propose: Location" "/v1/admin/change-requests/$cr_id" "$(header Location)"
expect_eq "propose: open" open "$(json .state)"
expect_eq "propose: needs one approval" 1 "$(json .approvals.required)"
expect_eq "propose: the diff names the changed string" "/strings/en/title" "$(json '.changes[0].fields[0].pointer')"
expect_eq "propose: based on live" "${cr_nodocs_rev//[\"r]/}" "$(json '.changes[0].baseRevision')"
fetch "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "propose: nothing of it is served yet" false "$(jq -r '.title | test("reviewed")' "$BODY")"

# --- Approvals: never the author's, reset by an edit; a viewer cannot approve ------------------

cr_send POST "/change-requests/$cr_id/approve" "$CR_ED" '{"version":1}'
expect_eq "approve: an editor may not" 403 "$STATUS"
cr_send POST "/change-requests/$cr_id/approve" "$CR_VW" '{"version":1}'
expect_eq "approve: a viewer may not" 403 "$STATUS"
cr_send POST "/change-requests/$cr_id/approve" "$CR_AD" '{}'
expect_eq "approve: without a version 422" 422 "$STATUS"
expect_eq "approve: 422 names /version" /version "$(json '.errors[0].pointer')"
cr_send POST "/change-requests/$cr_id/approve" "$CR_RV" '{"version":1,"comment":"looks good"}'
expect_eq "approve: a reviewer approves" 200 "$STATUS"
expect_eq "approve: approved" approved "$(json .state)"
cr_etag=$(header ETag)
cr_send PATCH "/change-requests/$cr_id" "$CR_RV" '{"description":"Two titles, reworded"}' -H "If-Match: $cr_etag"
expect_eq "edit: the reviewer edits it" 200 "$STATUS"
expect_eq "edit: version 2" 2 "$(json .version)"
expect_eq "edit: the approval no longer counts" open "$(json .state)"
cr_etag=$(header ETag)
cr_send POST "/change-requests/$cr_id/approve" "$CR_RV" '{"version":2}'
expect_eq "approve: a contributor may not approve (own change)" 403 "$STATUS"
expect_eq "approve: own-change problem" "urn:empty-state:problem:own-change" "$(json .type)"
cr_send POST "/change-requests/$cr_id/approve" "$CR_AD" '{"version":1}'
expect_eq "approve: a stale version is 409" 409 "$STATUS"
expect_eq "approve: names /version" /version "$(json '.errors[0].pointer')"
cr_send POST "/change-requests/$cr_id/publish" "$CR_ED" '' -H "If-Match: $cr_etag"
expect_eq "publish: without its approvals 409" 409 "$STATUS"
expect_eq "publish: approvals-missing" "urn:empty-state:problem:approvals-missing" "$(json .type)"
cr_send POST "/change-requests/$cr_id/comments" "$CR_ED" '{"text":"@ad could you look?"}'
expect_eq "comment: 201" 201 "$STATUS"
cr_send POST "/change-requests/$cr_id/approve" "$CR_AD" '{"version":2}'
expect_eq "approve: the admin approves version 2" 200 "$STATUS"
expect_eq "approve: approved again" approved "$(json .state)"
expect_eq "reviews: approval, comment, approval in order" "approval comment approval" \
    "$(json '[.reviews[].kind] | join(" ")')"
cr_etag=$(header ETag)

# --- Conflict: live moved under one of the changes ---------------------------------------------

cr_send PUT /review-rules "$CR_AD" '{"requiredApprovals":0,"allowEmergencyRollback":true}' -H 'If-Match: "r1"'
fetch -H "$CR_ED2" "$CR_API/templates/noFavorites"
fetch -X PUT -H "$CR_ED2" -H "$JSON" -H "If-Match: $(header ETag)" \
    --data-binary "$(jq -c '.template | .strings.en.message = "Someone else was here"' "$BODY")" "$CR_API/templates/noFavorites"
expect_eq "conflict: another editor writes noFavorites directly (rules at 0)" 200 "$STATUS"
cr_send PUT /review-rules "$CR_AD" '{"requiredApprovals":1,"allowEmergencyRollback":true}' -H 'If-Match: "r2"'
cr_send POST "/change-requests/$cr_id/publish" "$CR_ED" '' -H "If-Match: $cr_etag"
expect_eq "conflict: publish is 409" 409 "$STATUS"
expect_eq "conflict: change-request-conflict" "urn:empty-state:problem:change-request-conflict" "$(json .type)"
expect_eq "conflict: names the target" "template:noFavorites" "$(json '.conflicts[0].target')"
expect_eq "conflict: names the field" "/strings/en/message" "$(json '.conflicts[0].fields | join(" ")')"
fetch "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "conflict: nothing was published" false "$(jq -r '.title | test("reviewed")' "$BODY")"
cr_send GET "/change-requests/$cr_id" "$CR_VW"
expect_eq "conflict: GET shows it" "template:noFavorites" "$(json '.conflicts[0].target')"
cr_send POST "/change-requests/$cr_id/rebase" "$CR_ED" '' -H "If-Match: $cr_etag"
expect_eq "rebase: 200" 200 "$STATUS"
expect_eq "rebase: no conflicts left" 0 "$(json '.conflicts | length')"
expect_eq "rebase: approvals reset" open "$(json .state)"
cr_version=$(json .version)
cr_send POST "/change-requests/$cr_id/approve" "$CR_RV" "{\"version\":$cr_version}"
expect_eq "rebase: the reviewer edited it earlier, so still may not approve" 403 "$STATUS"
cr_send POST "/change-requests/$cr_id/approve" "$CR_AD" "{\"version\":$cr_version}"
expect_eq "approve after rebase" 200 "$STATUS"
cr_etag=$(header ETag)

# --- Publish: both templates at once -----------------------------------------------------------

cr_send POST "/change-requests/$cr_id/publish" "$CR_ED" '' -H "If-Match: $cr_etag"
expect_eq "publish: 200" 200 "$STATUS"
expect_eq "publish: published" published "$(json .state)"
expect_eq "publish: two documents written" 2 "$(json '.publication.revisions | length')"
cr_etag=$(header ETag)
fetch "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "publish: noDocuments served" "Nothing here yet (reviewed)" "$(json .title)"
fetch "$BASE_URL/v1/templates/noFavorites?locale=en"
expect_eq "publish: noFavorites served" "No favourites (reviewed)" "$(json .title)"
cr_send PATCH "/change-requests/$cr_id" "$CR_ED" '{"title":"again"}' -H "If-Match: $cr_etag"
expect_eq "edit: a published request no longer changes" 409 "$STATUS"
cr_send GET "/change-requests?state=published" "$CR_VW"
expect_eq "list: the published request" "$cr_id" "$(json '.items[0].id')"
cr_send GET "/change-requests?state=approved" "$CR_VW"
expect_eq "list: a bad state is 400" 400 "$STATUS"
cr_send GET "/audit?templateId=noDocuments" "$CR_VW"
expect_match "audit: the template's revision names the request" "change request #$cr_id" "$(json '[.items[].note] | join(" ")')"

# --- Roll back: a new request, emergency allowed ----------------------------------------------

cr_send POST "/change-requests/$cr_id/rollback" "$CR_ED2" ''
expect_eq "rollback: opens a request" 201 "$STATUS"
cr_rb=$(json .id)
expect_eq "rollback: names what it rolls back" "$cr_id" "$(json .rollbackOf)"
cr_send POST "/change-requests/$cr_rb/publish" "$CR_ED2" '' -H "If-Match: $(header ETag)"
expect_eq "rollback: unapproved, 409 says emergency is allowed" true "$(json .emergencyAllowed)"
cr_send GET "/change-requests/$cr_rb" "$CR_VW"
cr_send POST "/change-requests/$cr_rb/publish" "$CR_ED2" '{"emergency":true}' -H "If-Match: $(header ETag)"
expect_eq "rollback: an emergency publish" 200 "$STATUS"
expect_eq "rollback: recorded as emergency" true "$(json .publication.emergency)"
fetch "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "rollback: noDocuments is back" false "$(jq -r '.title | test("reviewed")' "$BODY")"
cr_send GET "/change-requests/$cr_id" "$CR_VW"
expect_eq "rollback: the original says who undid it" "$cr_rb" "$(json .rolledBackBy)"
cr_send POST "/change-requests/$cr_id/rollback" "$CR_ED2" ''
expect_eq "rollback: twice is 409" 409 "$STATUS"

# --- Withdraw ---------------------------------------------------------------------------------

cr_send POST /change-requests "$CR_ED" "$(jq -cn --argjson a "$cr_nodocs" '{title: "to withdraw", changes: [{kind: "templateStrings", id: "noDocuments", locale: "en", strings: $a.strings.en}]}')"
expect_eq "withdraw: proposed a strings change" 201 "$STATUS"
cr_w=$(json .id)
cr_wtag=$(header ETag)
cr_send POST "/change-requests/$cr_w/withdraw" "$CR_ED2" '' -H "If-Match: $cr_wtag"
expect_eq "withdraw: another editor may not" 403 "$STATUS"
cr_send POST "/change-requests/$cr_w/withdraw" "$CR_ED" '' -H "If-Match: $cr_wtag"
expect_eq "withdraw: the author may" 200 "$STATUS"
cr_send POST "/change-requests/$cr_w/approve" "$CR_RV" '{"version":1}'
expect_eq "withdraw: a withdrawn request is closed" 409 "$STATUS"
cr_send GET /change-requests/999999 "$CR_VW"
expect_eq "unknown request 404" 404 "$STATUS"
expect_eq "unknown request names id" id "$(json '.errors[0].parameter')"

# --- Scheduled publishes: on time; due while the server was down; cancelled ----------------------

# cr_at SECONDS: the RFC 3339 instant SECONDS from now (whole seconds, UTC).
cr_at() { date -u -d "@$(($(date +%s) + $1))" +%Y-%m-%dT%H:%M:%SZ; }
# cr_approved TITLE TEMPLATE TITLE-TEXT: opens (editor) and approves (reviewer) a request
# retitling TEMPLATE in French; sets cr_sid and cr_stag.
cr_approved() {
    fetch -H "$CR_ED" "$CR_API/templates/$2"
    cr_send POST /change-requests "$CR_ED" "$(jq -c --arg t "$1" --arg x "$3" \
        '{title: $t, changes: [{kind: "templateStrings", id: .id, locale: "fr", strings: (.template.strings.fr | .title = $x)}]}' "$BODY")"
    cr_sid=$(json .id)
    cr_send POST "/change-requests/$cr_sid/approve" "$CR_RV" '{"version":1}'
    cr_stag=$(header ETag)
}
# cr_wait_published ID SECONDS: until request ID is published; returns 1 if not in time.
cr_wait_published() {
    local deadline=$((SECONDS + $2))
    while [ "$SECONDS" -le "$deadline" ]; do
        cr_send GET "/change-requests/$1" "$CR_VW"
        [ "$(json .state)" = published ] && return 0
        sleep 0.1
    done
    return 1
}

cr_approved "Scheduled" noTransactions "Programmé à l’heure"
expect_eq "schedule: the request is approved" approved "$(json .state)"
cr_send PUT "/change-requests/$cr_sid/schedule" "$CR_ED" "{\"at\":\"$(cr_at -60)\"}" -H "If-Match: $cr_stag"
expect_eq "schedule: a time in the past is 422" 422 "$STATUS"
expect_eq "schedule: the 422 names /at" /at "$(json '.errors[0].pointer')"
cr_send PUT "/change-requests/$cr_sid/schedule" "$CR_ED" '{"at":"tomorrow at nine"}' -H "If-Match: $cr_stag"
expect_eq "schedule: not a date-time is 422 naming /at" "422 /at" "$STATUS $(json '.errors[0].pointer')"
cr_send PUT "/change-requests/$cr_sid/schedule" "$CR_ED" "{\"at\":\"$(cr_at 3)\"}"
expect_eq "schedule: without If-Match 428" 428 "$STATUS"
cr_send PUT "/change-requests/$cr_sid/schedule" "$CR_VW" "{\"at\":\"$(cr_at 3)\"}" -H "If-Match: $cr_stag"
expect_eq "schedule: a viewer may not" 403 "$STATUS"
cr_when=$(cr_at 3)
cr_send PUT "/change-requests/$cr_sid/schedule" "$CR_ED" "{\"at\":\"$cr_when\"}" -H "If-Match: $cr_stag"
expect_eq "schedule: set" 200 "$STATUS"
expect_eq "schedule: shown in UTC" "$cr_when" "$(json .schedule.at | sed 's/\.000Z$/Z/')"
cr_send GET "/change-requests?scheduled=true" "$CR_VW"
expect_eq "schedule: listed as scheduled" "$cr_sid" "$(json '.items[0].id')"
if cr_wait_published "$cr_sid" 8; then pass "schedule: published by the scheduler"; else fail "schedule: published by the scheduler" "not within 8 s"; fi
expect_eq "schedule: published by the scheduler, on time (under a second late)" "scheduler true" \
    "$(json '"\(.publication.by) \(.publication.lateMilliseconds < 1000)"')"
fetch "$BASE_URL/v1/templates/noTransactions?locale=fr"
expect_eq "schedule: the copy is served" "Programmé à l’heure" "$(json .title)"

# Due while the server is down: published at the next start, and said to be late.
cr_approved "Scheduled, server down" noTransactions "Programmé en retard"
cr_send PUT "/change-requests/$cr_sid/schedule" "$CR_ED" "{\"at\":\"$(cr_at 2)\"}" -H "If-Match: $cr_stag"
expect_eq "schedule while up: set" 200 "$STATUS"
stop_server
sleep 3
DATA_DIR="$CR_DATA" start_server "$CR_LOG.2" "${CR_FLAGS[@]}"
CR_API="$BASE_URL/v1/admin"
if cr_wait_published "$cr_sid" 8; then pass "schedule: due while down, published at the next start"; else
    fail "schedule: due while down, published at the next start" "not within 8 s"; fi
expect_eq "schedule: recorded as late" true "$(json '.publication.lateMilliseconds >= 1000')"
if wait_for_log "$CR_LOG.2" 'scheduled change request published late' >/dev/null; then pass "schedule: the log says it was late"; else
    fail "schedule: the log says it was late"; fi

# Cancelled until then.
cr_approved "Scheduled, cancelled" noTransactions "Jamais"
cr_send PUT "/change-requests/$cr_sid/schedule" "$CR_ED" "{\"at\":\"$(cr_at 3600)\"}" -H "If-Match: $cr_stag"
cr_send DELETE "/change-requests/$cr_sid/schedule" "$CR_ED" '' -H "If-Match: $(header ETag)"
expect_eq "unschedule: 200" 200 "$STATUS"
expect_eq "unschedule: no schedule left" null "$(json .schedule)"
cr_send DELETE "/change-requests/$cr_sid/schedule" "$CR_ED" '' -H "If-Match: $(header ETag)"
expect_eq "unschedule: twice is 409 not-scheduled" "409 urn:empty-state:problem:not-scheduled" "$STATUS $(json .type)"

stop_server
expect_eq "change-requests server: SIGTERM exits 0" "0" "${STOP_STATUS:-still running after 15 s}"
