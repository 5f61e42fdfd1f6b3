# Admin tokens through the admin API (issue 37; docs/security.md, "Rotating tokens through the
# admin API"), on the suite's server (SQLite; replicas.sh runs the PostgreSQL side with two
# replicas): admins only; the secret once, never listed, never logged; names never reused; bad
# input named; a revoked or expired token refused at once with 401, its console sessions ended;
# revoking one's own token; each change in the audit trail; last use recorded.
# Sourced by run.sh (uses BASE_URL, WORK, SERVER_LOG and lib.sh).

T18_ADMIN="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
T18_URL="$BASE_URL/v1/admin/tokens"

# t18_create JSON: POSTs JSON as the admin; sets STATUS, BODY.
t18_create() {
    fetch -X POST -H "$T18_ADMIN" -H 'Content-Type: application/json' -d "$1" "$T18_URL"
}
# t18_status SECRET: the status of an admin read with that token.
t18_status() {
    curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" "$BASE_URL/v1/admin/templates?pageSize=1"
}

fetch "$T18_URL"
expect_eq "tokens api: no credentials → 401" 401 "$STATUS"
fetch -H "$T18_ADMIN" "$T18_URL"
expect_eq "tokens api: the admin lists the tokens" 200 "$STATUS"
expect_eq "tokens api: the generated token is listed, not revocable here" "generated false" \
    "$(json '.items[] | select(.name == "admin") | "\(.source) \(.revocable)"')"

t18_create "{\"name\":\"t18-ci-$$\",\"role\":\"editor\"}"
expect_eq "tokens api: create → 201" 201 "$STATUS"
T18_CI_ID=$(json .id)
T18_CI=$(json .secret)
expect_match "tokens api: … with an id and its Location" "^/v1/admin/tokens/tok_[0-9a-f]{16}$" "$(header Location)"
expect_match "tokens api: … and the secret, once" '^est_[0-9a-f]{64}$' "$T18_CI"
expect_eq "tokens api: … made by the admin, from the api, revocable" "admin api true editor" \
    "$(json '"\(.createdBy) \(.source) \(.revocable) \(.role)"')"
expect_eq "tokens api: the new token works at once" 200 "$(t18_status "$T18_CI")"
fetch -H "Authorization: Bearer $T18_CI" "$T18_URL"
expect_eq "tokens api: an editor may not list tokens → 403" 403 "$STATUS"
fetch -H "$T18_ADMIN" "$T18_URL"
if grep -qF -e "$T18_CI" -e "secret" -e "sha256" "$BODY"; then
    fail "tokens api: the list holds no secret, no hash" "$(cat "$BODY")"
else
    pass "tokens api: the list holds no secret, no hash"
fi
expect_match "tokens api: … and says when the new one was last used" '^20[0-9]{2}-' \
    "$(json ".items[] | select(.id == \"$T18_CI_ID\") | .lastUsedAt")"

t18_create "{\"name\":\"t18-ci-$$\",\"role\":\"viewer\"}"
expect_eq "tokens api: the same name again → 409" "409 token-name-taken /name" \
    "$STATUS $(json '.type | split(":") | last') $(json '.errors[0].pointer')"
t18_create '{"name":"admin","role":"viewer"}'
expect_eq "tokens api: the name of a configured token → 409" 409 "$STATUS"
t18_create '{"name":"t18-x","role":"superuser"}'
expect_eq "tokens api: an unknown role → 422 naming /role" "422 /role" "$STATUS $(json '.errors[0].pointer')"
t18_create '{"name":"a:b","role":"viewer","expiresAt":"2001-01-01T00:00:00Z","colour":1}'
expect_eq "tokens api: a bad name, a past expiry, an unknown member → 422 naming each" \
    "422 /colour,/expiresAt,/name" "$STATUS $(json '[.errors[].pointer] | sort | join(",")')"
fetch -X POST -H "Authorization: Bearer $T18_CI" -H 'Content-Type: application/json' \
    -d '{"name":"t18-escalate","role":"admin"}' "$T18_URL"
expect_eq "tokens api: an editor may not create tokens → 403" 403 "$STATUS"

# A console session opened with the token ends when it is revoked.
fetch -X POST -H 'Content-Type: application/json' -d "{\"token\":\"$T18_CI\"}" "$BASE_URL/v1/admin/session"
T18_COOKIE=$(header Set-Cookie | cut -d';' -f1)
expect_match "tokens api: a console session opened with the new token" '^(__Host-)?es_console=' "$T18_COOKIE"
fetch -X DELETE -H "$T18_ADMIN" "$T18_URL/$T18_CI_ID"
expect_eq "tokens api: revoke → 204" 204 "$STATUS"
expect_eq "tokens api: the revoked token is refused at once" 401 "$(t18_status "$T18_CI")"
fetch -H "Cookie: $T18_COOKIE" "$BASE_URL/v1/admin/session"
expect_eq "tokens api: … and its console session has ended" 401 "$STATUS"
fetch -X DELETE -H "$T18_ADMIN" "$T18_URL/$T18_CI_ID"
expect_eq "tokens api: revoking it again changes nothing → 204" 204 "$STATUS"
fetch -X DELETE -H "$T18_ADMIN" "$T18_URL/tok_0000000000000000"
expect_eq "tokens api: an unknown id → 404 unknown-token" "404 unknown-token" \
    "$STATUS $(json '.type | split(":") | last')"
fetch -H "$T18_ADMIN" "$T18_URL"
expect_eq "tokens api: a revoked token stays listed, with when and by whom" "admin false" \
    "$(json ".items[] | select(.id == \"$T18_CI_ID\") | \"\(.revokedBy) \(.revocable)\"")"

# An admin token made here revokes itself: the answer is its last.
t18_create "{\"name\":\"t18-self-$$\",\"role\":\"admin\"}"
T18_SELF=$(json .secret)
fetch -X DELETE -H "Authorization: Bearer $T18_SELF" "$T18_URL/$(json .id)"
expect_eq "tokens api: a token may revoke itself → 204" 204 "$STATUS"
expect_eq "tokens api: … and is refused from then on" 401 "$(t18_status "$T18_SELF")"

# An expiry: in force until then, refused after.
t18_create "{\"name\":\"t18-short-$$\",\"role\":\"viewer\",\"expiresAt\":\"$(date -u -d '+3 seconds' +%Y-%m-%dT%H:%M:%S.%3NZ)\"}"
T18_SHORT=$(json .secret)
expect_eq "tokens api: a token with an expiry works before it" 200 "$(t18_status "$T18_SHORT")"
sleep 3.5
expect_eq "tokens api: … and is refused after it" 401 "$(t18_status "$T18_SHORT")"

fetch -H "$T18_ADMIN" "$BASE_URL/v1/admin/audit?pageSize=100"
expect_eq "tokens api: the audit trail has the creation and the revocation, by the admin" "create admin replace admin" \
    "$(json "[.items[] | select(.adminToken == \"$T18_CI_ID\")] | reverse | map(\"\(.action) \(.createdBy)\") | join(\" \")")"
fetch -H "$T18_ADMIN" "$BASE_URL/v1/admin/audit?kind=adminToken&pageSize=100"
expect_eq "tokens api: kind=adminToken selects the tokens' revisions only" 0 \
    "$(json '[.items[] | select(has("adminToken") | not)] | length')"
expect_eq "tokens api: … this token's among them" 2 \
    "$(json "[.items[] | select(.adminToken == \"$T18_CI_ID\")] | length")"
if grep -qF -e "$T18_CI" -e "$T18_SELF" -e "$T18_SHORT" "$SERVER_LOG"; then
    fail "tokens api: no secret in the log"
else
    pass "tokens api: no secret in the log"
fi
expect_match "tokens api: the log says who created and revoked tokens" 'admin token revoked' "$(cat "$SERVER_LOG")"
