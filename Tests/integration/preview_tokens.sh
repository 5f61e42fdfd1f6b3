# The preview channel end to end (issue 34): an editor proposes copy in a change request, makes a
# preview token for it (viewers may not; bad bodies are 422 naming the member), the token is shown
# once and listed without its secret; a client sending it in X-Preview-Token is served the
# request's copy on the JSON, bundle, HTML and app-status routes (private, no-store, never
# remembered, an ETag no live answer has, marked X-Preview) while everything else stays live;
# events sent with it are refused; unknown, revoked and finished-request tokens are 401 with
# WWW-Authenticate; every action is in the audit. Sourced by run.sh: starts its own server with
# a token per role on its own data directory, and stops it at the end.
echo "== preview tokens"

PV_DATA="$WORK/pv-data"
PV_LOG="$WORK/pv.log"
PV_FLAGS=(
    --admin-token "pved:editor:pv-editor-secret-0123456789"
    --admin-token "pvvw:viewer:pv-viewer-secret-0123456789"
)
PV_ED="Authorization: Bearer pv-editor-secret-0123456789"
PV_VW="Authorization: Bearer pv-viewer-secret-0123456789"
DATA_DIR="$PV_DATA" start_server "$PV_LOG" "${PV_FLAGS[@]}"
echo "preview server at $BASE_URL (pid $SERVER_PID)"
PV_API="$BASE_URL/v1/admin"

# pv_send METHOD PATH AUTH [BODY] [extra curl args…]
pv_send() {
    local method=$1 path=$2 auth=$3 body=${4:-}
    shift 3
    [ $# -gt 0 ] && shift
    if [ -n "$body" ]; then
        fetch -X "$method" -H "$auth" -H 'Content-Type: application/json' --data-binary "$body" "$@" "$PV_API$path"
    else
        fetch -X "$method" -H "$auth" "$@" "$PV_API$path"
    fi
}

# --- Live copy, and a request proposing new copy for two templates and an app policy ------------

fetch "$BASE_URL/v1/templates/noDocuments?locale=en"
pv_live_title=$(json .title)
pv_live_etag=$(header ETag)
fetch -H "$PV_ED" "$PV_API/templates/noDocuments"
pv_nodocs=$(jq -c .template "$BODY")
fetch -H "$PV_ED" "$PV_API/templates/noFavorites"
pv_nofav_en=$(jq -c '.template.strings.en | .title = "Nothing starred (preview)"' "$BODY")
pv_body=$(jq -cn --argjson a "$(jq -c '.strings.en.title = "Nothing here yet (preview)"' <<<"$pv_nodocs")" \
    --argjson b "$pv_nofav_en" \
    '{title: "Preview me", changes: [{kind: "template", id: "noDocuments", document: $a},
      {kind: "templateStrings", id: "noFavorites", locale: "en", strings: $b},
      {kind: "appPolicy", platform: "ios", document: {platform: "ios", minimumVersion: "9.0.0",
        latestVersion: "9.0.0", storeUrl: "https://apps.apple.com/app/id123456789"}}]}')
pv_send POST /change-requests "$PV_ED" "$pv_body"
expect_eq "request: proposed" 201 "$STATUS"
pv_id=$(json .id)

# --- Creating a token: roles and bad input -----------------------------------------------------

pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_VW" '{"label":"QA iPhone"}'
expect_eq "create: a viewer may not (403)" 403 "$STATUS"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" '{"lifetimeHours":0}'
expect_eq "create: lifetime 0 is 422 naming /lifetimeHours" "422 /lifetimeHours" "$STATUS $(json '.errors[0].pointer')"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" '{"lifetimeHours":721}'
expect_eq "create: lifetime over 30 days is 422" "422 /lifetimeHours" "$STATUS $(json '.errors[0].pointer')"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" '{"lifetimeHours":1.5}'
expect_eq "create: a fractional lifetime is 422" "422 /lifetimeHours" "$STATUS $(json '.errors[0].pointer')"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" '{"label":7}'
expect_eq "create: a label that is no string is 422 naming /label" "422 /label" "$STATUS $(json '.errors[0].pointer')"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" "{\"label\":\"$(printf 'x%.0s' $(seq 101))\"}"
expect_eq "create: a label over 100 characters is 422" "422 /label" "$STATUS $(json '.errors[0].pointer')"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" '{"scope":"all"}'
expect_eq "create: an unknown member is 422 naming it" "422 /scope" "$STATUS $(json '.errors[0].pointer')"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" '[1]'
expect_eq "create: a body that is no object is 400" 400 "$STATUS"
pv_send POST "/change-requests/99999/preview-tokens" "$PV_ED" '{}'
expect_eq "create: an unknown request is 404" "404 id" "$STATUS $(json '.errors[0].parameter')"

pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" '{"label":"QA iPhone","lifetimeHours":2}'
expect_eq "create: 201" 201 "$STATUS"
expect_eq "create: Location names the token" "/v1/admin/change-requests/$pv_id/preview-tokens/$(json .id)" "$(header Location)"
expect_eq "create: not cached" no-store "$(header Cache-Control)"
pv_token=$(json .token)
pv_token_id=$(json .id)
expect_match "create: the secret is shown once, esp_ and 43 base64url characters" '^esp_[A-Za-z0-9_-]{43}$' "$pv_token"
expect_eq "create: label, creator, header, active" "QA iPhone pved X-Preview-Token true" \
    "$(json '[.label, .createdBy, .header, .active] | join(" ")')"
pv_hours=$(json '((.expiresAt | sub("\\.[0-9]+";"") | fromdateiso8601) - (.createdAt | sub("\\.[0-9]+";"") | fromdateiso8601)) / 3600 | round')
expect_eq "create: valid for the lifetime asked" 2 "$pv_hours"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" ''
expect_eq "create: without a body, the defaults" "201 Preview" "$STATUS $(json .label)"
pv_hours=$(json '((.expiresAt | sub("\\.[0-9]+";"") | fromdateiso8601) - (.createdAt | sub("\\.[0-9]+";"") | fromdateiso8601)) / 3600 | round')
expect_eq "create: the default lifetime is 7 days" 168 "$pv_hours"
pv_token2=$(json .token)

pv_send GET "/change-requests/$pv_id/preview-tokens" "$PV_ED"
expect_eq "list: both tokens, oldest first" "2 $pv_token_id" "$(json '[(.items | length), .items[0].id] | join(" ")')"
expect_eq "list: never the secret" false "$(json '[.items[] | has("token")] | any')"
expect_eq "list: revokedAt is null while not revoked" null "$(json '.items[0].revokedAt')"
pv_send GET "/change-requests/$pv_id/preview-tokens" "$PV_VW"
expect_eq "list: a viewer may not (403)" 403 "$STATUS"
expect_eq "list: the secrets are stored as 64 hex digits, never in clear" "2|2|0" \
    "$(sqlite3 "$PV_DATA/store.sqlite" "SELECT count(*), sum(length(secret_sha256) = 64 AND secret_sha256 NOT GLOB '*[^0-9a-f]*'), sum(secret_sha256 LIKE 'esp_%') FROM preview_token" 2>&1)"
expect_eq "list: the stored hash is the secret's SHA-256" 1 \
    "$(sqlite3 "$PV_DATA/store.sqlite" "SELECT count(*) FROM preview_token WHERE secret_sha256 = '$(printf %s "$pv_token" | sha256sum | cut -d' ' -f1)'" 2>/dev/null)"

# --- The client API with the token ------------------------------------------------------------

PV_TOKEN="X-Preview-Token: $pv_token"
fetch -H "$PV_TOKEN" "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "template: the request's copy" "200 Nothing here yet (preview)" "$STATUS $(json .title)"
expect_eq "template: private, no-store" "private, no-store" "$(header Cache-Control)"
expect_eq "template: marked as a preview" "change-request=$pv_id; version=1" "$(header X-Preview)"
expect_match "template: an ETag no live answer has" '^"preview-' "$(header ETag)"
expect_match "template: Vary names the token header" 'X-Preview-Token' "$(header Vary)"
pv_preview_etag=$(header ETag)
fetch -H "$PV_TOKEN" -H "If-None-Match: $pv_preview_etag" "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "template: its own ETag revalidates (304)" 304 "$STATUS"
fetch -H "$PV_TOKEN" -H "If-None-Match: $pv_live_etag" "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "template: a live ETag never matches a preview (200)" 200 "$STATUS"
fetch -H "$PV_TOKEN" "$BASE_URL/v1/templates/noFavorites?locale=en"
expect_eq "template: a strings change is previewed" "Nothing starred (preview)" "$(json .title)"
fetch "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "template: without the token, live copy" "$pv_live_title" "$(json .title)"
expect_eq "template: without the token, the live ETag" "$pv_live_etag" "$(header ETag)"
expect_eq "template: without the token, no preview mark" "" "$(header X-Preview)"
# Remembered live answers never answer a token, and preview answers are never remembered.
fetch -H "$PV_TOKEN" "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "template: the token after a remembered live answer still previews" "Nothing here yet (preview)" "$(json .title)"
fetch "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "template: a live answer after a preview is live" "$pv_live_title" "$(json .title)"
fetch -H "$PV_TOKEN" "$BASE_URL/v1/templates/connectionRefused?locale=en"
pv_cr_title=$(json .title)
fetch "$BASE_URL/v1/templates/connectionRefused?locale=en"
expect_eq "template: one the request does not touch is live copy" "$pv_cr_title" "$(json .title)"
fetch -H "$PV_TOKEN" "$BASE_URL/v1/templates/noSuchTemplate"
expect_eq "template: an unknown template is still 404, marked" "404 change-request=$pv_id; version=1" "$STATUS $(header X-Preview)"

fetch -H "$PV_TOKEN" "$BASE_URL/v1/templates?locale=en"
expect_eq "bundle: the request's copy" "Nothing here yet (preview)" \
    "$(json '.templates[] | select(.id == "noDocuments") | .title')"
expect_eq "bundle: private, no-store" "private, no-store" "$(header Cache-Control)"
fetch "$BASE_URL/v1/templates?locale=en"
expect_eq "bundle: without the token, live copy" "$pv_live_title" \
    "$(json '.templates[] | select(.id == "noDocuments") | .title')"

fetch -H "$PV_TOKEN" "$BASE_URL/v1/web/templates/noDocuments?locale=en"
expect_match "html: the request's copy" 'Nothing here yet \(preview\)' "$(cat "$BODY")"
expect_eq "html: private, no-store, marked" "private, no-store change-request=$pv_id; version=1" \
    "$(header Cache-Control) $(header X-Preview)"
fetch "$BASE_URL/v1/web/templates/noDocuments?locale=en"
expect_eq "html: without the token, live copy" 0 "$(grep -c 'Nothing here yet (preview)' "$BODY")"

fetch -H "$PV_TOKEN" "$BASE_URL/v1/app-status?platform=ios&appVersion=5.0.0"
expect_eq "app status: the request's policy" "200 updateRequired" "$STATUS $(json .state)"
expect_eq "app status: private, no-store" "private, no-store" "$(header Cache-Control)"
fetch "$BASE_URL/v1/app-status?platform=ios&appVersion=5.0.0"
expect_eq "app status: without the token, live (no iOS policy yet)" ok "$(json .state)"

fetch -X OPTIONS -H 'Origin: https://app.example' -H 'Access-Control-Request-Headers: x-preview-token' \
    "$BASE_URL/v1/templates/noDocuments"
expect_match "cors: a page may send the token header" 'X-Preview-Token' "$(header Access-Control-Allow-Headers)"

# --- Events sent with the token are not counted --------------------------------------------------

pv_event=$(jq -cn '{events: [{id: "8c1b7a52-5d5e-4b0e-9a57-1f6f1f0e4c11", type: "shown", templateId: "noDocuments", locale: "en", platform: "ios", occurredAt: (now | todate)}]}')
fetch -X POST -H "$PV_TOKEN" -H 'Content-Type: application/json' --data-binary "$pv_event" "$BASE_URL/v1/events"
expect_eq "events: 202, none accepted" "202 0" "$STATUS $(json .accepted)"
expect_match "events: each refused, with the reason" 'preview traffic is not counted' "$(json '.rejected[0].reason')"

# --- Tokens that do not work --------------------------------------------------------------------

fetch -H "X-Preview-Token: esp_not-a-token" "$BASE_URL/v1/templates/noDocuments"
expect_eq "unknown token: 401 problem" "401 urn:empty-state:problem:invalid-preview-token" "$STATUS $(json .type)"
expect_eq "unknown token: names the header" X-Preview-Token "$(json '.errors[0].header')"
expect_match "unknown token: WWW-Authenticate" '^PreviewToken ' "$(header WWW-Authenticate)"
expect_match "unknown token: problem+json, not cached" "application/problem\+json no-store" \
    "$(header Content-Type) $(header Cache-Control)"

pv_send DELETE "/change-requests/$pv_id/preview-tokens/$pv_token_id" "$PV_VW"
expect_eq "revoke: a viewer may not (403)" 403 "$STATUS"
pv_send DELETE "/change-requests/$pv_id/preview-tokens/9999" "$PV_ED"
expect_eq "revoke: an unknown token is 404 naming it" "404 token" "$STATUS $(json '.errors[0].parameter')"
pv_send DELETE "/change-requests/$pv_id/preview-tokens/$pv_token_id" "$PV_ED"
expect_eq "revoke: 204" 204 "$STATUS"
fetch -H "$PV_TOKEN" "$BASE_URL/v1/templates/noDocuments"
expect_eq "revoked token: 401 at once" "401 revoked" "$STATUS $(json '.errors[0].detail')"
pv_send DELETE "/change-requests/$pv_id/preview-tokens/$pv_token_id" "$PV_ED"
expect_eq "revoke: again is 204 (nothing changes)" 204 "$STATUS"
pv_send GET "/change-requests/$pv_id/preview-tokens" "$PV_ED"
expect_eq "list: the revoked token says by whom and is inactive" "pved false" \
    "$(json ".items[] | select(.id == $pv_token_id) | [.revokedBy, .active] | join(\" \")")"

fetch -H "X-Preview-Token: $pv_token2" "$BASE_URL/v1/templates/noDocuments?locale=en"
expect_eq "second token: still works" "Nothing here yet (preview)" "$(json .title)"
fetch -H "$PV_ED" "$PV_API/change-requests/$pv_id"
pv_send POST "/change-requests/$pv_id/withdraw" "$PV_ED" '' -H "If-Match: $(header ETag)"
expect_eq "withdraw: 200" 200 "$STATUS"
fetch -H "X-Preview-Token: $pv_token2" "$BASE_URL/v1/templates/noDocuments"
expect_eq "withdrawn request: its tokens are 401" "401 change request #$pv_id is withdrawn" \
    "$STATUS $(json '.errors[0].detail')"
pv_send POST "/change-requests/$pv_id/preview-tokens" "$PV_ED" '{}'
expect_eq "withdrawn request: no new token (409)" "409 urn:empty-state:problem:change-request-closed" "$STATUS $(json .type)"

# --- The audit names each action -----------------------------------------------------------------

pv_send GET "/audit?actor=pved" "$PV_ED"
pv_notes=$(json '[.items[].note] | join(" | ")')
expect_match "audit: the creation" "preview token $pv_token_id \(QA iPhone\) created" "$pv_notes"
expect_match "audit: the revocation" "preview token $pv_token_id \(QA iPhone\) revoked" "$pv_notes"

stop_server
expect_eq "preview server: SIGTERM exits 0" "0" "${STOP_STATUS:-still running after 15 s}"
