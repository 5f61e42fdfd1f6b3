# App-status gates end to end: ops set the iOS and Android policies; old, current, blocked and
# old-OS clients ask GET /v1/app-status in three locales (state, template, store URL, 304
# revalidation); a policy change is answered on the next request; the policy's history, rollback
# and audit; the analytics summary counts the update states' displays per app version.
# (openapi_check.py uses the web platform's policy, so this file keeps to ios and android.)

AS_API="$BASE_URL/v1/admin/app-policies"
AS_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
AS_STORE_IOS="https://apps.apple.com/app/id123456789"
AS_STORE_ANDROID="https://play.google.com/store/apps/details?id=com.example.app"

# as_put PLATFORM PRECONDITION-HEADER JSON [QUERY]: PUT a policy.
as_put() {
    fetch -X PUT -H "$AS_AUTH" -H 'Content-Type: application/json' -H "$2" --data-binary "$3" "$AS_API/$1${4:-}"
}

# as_ask QUERY [curl args…]: GET /v1/app-status?QUERY.
as_ask() {
    local query=$1
    shift
    fetch "$@" "$BASE_URL/v1/app-status?$query"
}

# --- No policy yet --------------------------------------------------------------------------

as_ask 'platform=ios&appVersion=1.0'
expect_eq "app-status: without a policy, 200" 200 "$STATUS"
expect_eq "app-status: without a policy, ok" ok "$(json .state)"
expect_eq "app-status: without a policy, no template" null "$(json .template)"
fetch -H "$AS_AUTH" "$AS_API/ios"
expect_eq "app policy: none yet is 404" 404 "$STATUS"
expect_eq "app policy: none yet is unknown-app-policy" "urn:empty-state:problem:unknown-app-policy" "$(json .type)"

# --- Ops set the policies -------------------------------------------------------------------

as_ios_policy=$(jq -cn --arg url "$AS_STORE_IOS" '{minimumVersion: "5.0", latestVersion: "5.10.0",
    minimumOSVersion: "16.0", blockedVersions: ["5.9.1"], storeUrl: $url, askAgainAfterSeconds: 3600}')
as_put ios 'If-Match: "r1"' "$as_ios_policy"
expect_eq "app policy: If-Match on a policy that does not exist is 404" 404 "$STATUS"
as_put ios 'X-None: 1' "$as_ios_policy"
expect_eq "app policy: no precondition is 428" 428 "$STATUS"
as_put ios 'X-None: 1' "$(jq -c '.minimumVersion = "6" | .storeUrl = "http://insecure.example"' <<<"$as_ios_policy")" '?validateOnly=true'
expect_eq "app policy: minimum above latest and http store URL are 422" 422 "$STATUS"
expect_eq "app policy: 422 points at both" "/minimumVersion /storeUrl" "$(json '[.errors[].pointer] | join(" ")')"
as_put ios 'X-None: 1' "$as_ios_policy" '?validateOnly=true'
expect_eq "app policy: validateOnly is 200" 200 "$STATUS"
expect_eq "app policy: validateOnly writes defaults out" 100 "$(json .policy.rolloutPercentage)"
as_put ios 'If-None-Match: *' "$as_ios_policy"
expect_eq "app policy: create is 201" 201 "$STATUS"
expect_eq "app policy: create ETag" '"r1"' "$(header ETag)"
expect_eq "app policy: create Location" "/v1/admin/app-policies/ios" "$(header Location)"
as_put android 'If-None-Match: *' "$(jq -cn --arg url "$AS_STORE_ANDROID" '{platform: "android", minimumVersion: "40",
    latestVersion: "42.1", minimumOSVersion: "10", storeUrl: $url, rolloutPercentage: 0}')"
expect_eq "app policy: android created" 201 "$STATUS"
as_put android 'If-None-Match: *' '{"minimumVersion":"1","latestVersion":"2","storeUrl":"https://x.example"}'
expect_eq "app policy: creating twice is 412" 412 "$STATUS"

# --- Clients ask: old, current, blocked, old OS; three locales ------------------------------

# as_expect NAME QUERY LOCALE STATE TEMPLATE STORE-URL
as_expect() {
    as_ask "$2&locale=$3"
    expect_eq "$1 ($3): 200" 200 "$STATUS"
    expect_eq "$1 ($3): state" "$4" "$(json .state)"
    expect_eq "$1 ($3): template" "$5" "$(json '.template.id // "none"')"
    expect_eq "$1 ($3): locale" "$([ "$5" = none ] && echo none || echo "$3")" "$(json '.template.locale // "none"')"
    expect_eq "$1 ($3): store URL" "$6" "$(json '.storeUrl // "none"')"
    if [ "$6" != none ]; then
        expect_eq "$1 ($3): the update action opens the store" "$6" \
            "$(json '.template.actions[] | select(.type == "openStore") | .target')"
    fi
    local etag
    etag=$(header ETag)
    as_ask "$2&locale=$3" -H "If-None-Match: $etag"
    expect_eq "$1 ($3): revalidation is 304" 304 "$STATUS"
}

for as_locale in fr ja pt-BR; do
    as_expect "old iOS app" 'platform=ios&appVersion=4.9.3&osVersion=17.4' "$as_locale" updateRequired appUpdateRequired "$AS_STORE_IOS"
    as_expect "iOS app below latest" 'platform=ios&appVersion=5.9&osVersion=17.4' "$as_locale" updateAvailable optionalUpdateAvailable "$AS_STORE_IOS"
    as_expect "current iOS app" 'platform=ios&appVersion=5.10.0&osVersion=17.4' "$as_locale" ok none none
    as_expect "blocked iOS app" 'platform=ios&appVersion=5.9.1&osVersion=17.4' "$as_locale" updateRequired appUpdateRequired "$AS_STORE_IOS"
    as_expect "old iOS" 'platform=ios&appVersion=5.10.0&osVersion=15.8' "$as_locale" osUpdateRequired osUpdateRequired none
    as_expect "old Android app" 'platform=android&appVersion=39.9&osVersion=14' "$as_locale" updateRequired appUpdateRequired "$AS_STORE_ANDROID"
done

as_ask 'platform=ios&appVersion=5.9&osVersion=17.4&locale=fr'
expect_eq "app-status: 1.10 > 1.9 (5.9 < 5.10.0) asks again after the policy's pause" 3600 "$(json .askAgainAfterSeconds)"
as_ask 'platform=ios&appVersion=5.9' -H 'Accept-Language: de-CH, de;q=0.9'
expect_eq "app-status: Accept-Language negotiates the template" de "$(json .template.locale)"
expect_match "app-status: Vary names Accept-Language" 'Accept-Language' "$(header Vary)"
expect_eq "app-status: Content-Language" de "$(header Content-Language)"
as_ask 'platform=android&appVersion=41.0&instanceId=device-1'
expect_eq "app-status: a 0 % rollout offers nothing" ok "$(json .state)"
as_ask 'platform=ios&appVersion=5.x'
expect_eq "app-status: a malformed version is 400" 400 "$STATUS"
expect_eq "app-status: 400 names appVersion" appVersion "$(json '.errors[0].parameter')"
expect_eq "app-status: 400 is problem+json" "application/problem+json" "$(header Content-Type)"
as_ask 'appVersion=5'
expect_eq "app-status: platform is required" platform "$(json '.errors[0].parameter')"

# --- A policy change is answered on the next request ----------------------------------------

as_ask 'platform=ios&appVersion=5.9&locale=fr'
as_before_etag=$(header ETag)
expect_eq "policy change: before, 5.9 may update" updateAvailable "$(json .state)"
as_put ios 'If-Match: "r1"' "$(jq -c '.minimumVersion = "5.9.5"' <<<"$as_ios_policy")"
expect_eq "policy change: replaced" 200 "$STATUS"
expect_eq "policy change: ETag r2" '"r2"' "$(header ETag)"
as_ask 'platform=ios&appVersion=5.9&locale=fr' -H "If-None-Match: $as_before_etag"
expect_eq "policy change: the old ETag no longer matches" 200 "$STATUS"
expect_eq "policy change: 5.9 must update now" updateRequired "$(json .state)"
as_put ios 'If-Match: "r1"' "$as_ios_policy"
expect_eq "policy change: a stale If-Match is 412" 412 "$STATUS"
expect_eq "policy change: 412 carries the current ETag" '"r2"' "$(header ETag)"

# --- History, rollback, audit -----------------------------------------------------------------

fetch -H "$AS_AUTH" "$AS_API/ios/revisions"
expect_eq "app policy: two revisions, newest first" "2 1" "$(json '[.items[].revision] | join(" ")')"
expect_eq "app policy: what changed" '/minimumVersion' "$(json '.items[0].changedFields | join(" ")')"
fetch -H "$AS_AUTH" "$AS_API/ios/revisions/1"
expect_eq "app policy: revision 1's document" 5.0.0 "$(json .policy.minimumVersion)"
fetch -X POST -H "$AS_AUTH" -H 'Content-Type: application/json' -d '{"revision": 1}' "$AS_API/ios/rollback"
expect_eq "app policy: rollback is 200" 200 "$STATUS"
expect_eq "app policy: rollback is revision 3" 3 "$(json .revision)"
as_ask 'platform=ios&appVersion=5.9&locale=fr'
expect_eq "app policy: after the rollback, 5.9 may update again" updateAvailable "$(json .state)"
fetch -H "$AS_AUTH" "$BASE_URL/v1/admin/audit?appPolicy=ios"
expect_eq "audit: the policy's changes" "rollback replace create" "$(json '[.items[].action] | join(" ")')"
expect_eq "audit: named by platform" ios "$(json '.items[0].appPolicy')"
fetch -H "$AS_AUTH" "$BASE_URL/v1/admin/templates?pageSize=200"
expect_eq "admin: policies are not templates" 0 "$(json '[.items[].id | select(startswith("app-policy"))] | length')"

# --- Analytics: displays of the update states per app version --------------------------------

as_now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
as_events=$(jq -cn --arg t "$as_now" --arg a "$(cat /proc/sys/kernel/random/uuid)" \
    --arg b "$(cat /proc/sys/kernel/random/uuid)" --arg c "$(cat /proc/sys/kernel/random/uuid)" '
    def ev($id; $template; $version): {id: $id, type: "displayed", templateId: $template, revision: 1,
        locale: "fr", platform: "ios", appVersion: $version, occurredAt: $t};
    {events: [ev($a; "appUpdateRequired"; "4.9.3-as"), ev($b; "appUpdateRequired"; "4.9.3-as"),
              ev($c; "optionalUpdateAvailable"; "5.9.0-as")]}')
fetch -X POST -H 'Content-Type: application/json' -d "$as_events" "$BASE_URL/v1/events"
expect_eq "analytics: update-state displays accepted" 3 "$(json .accepted)"
fetch -H "$AS_AUTH" "$BASE_URL/v1/admin/analytics/summary?include=updateStates"
expect_eq "analytics: blocked users per app version" 2 \
    "$(json '.updateStates[] | select(.appVersion == "4.9.3-as" and .state == "updateRequired") | .displays')"
expect_eq "analytics: offered users per app version" 1 \
    "$(json '.updateStates[] | select(.appVersion == "5.9.0-as") | .displays')"
fetch -H "$AS_AUTH" "$BASE_URL/v1/admin/analytics/summary"
expect_eq "analytics: without include, no updateStates" null "$(json .updateStates)"
