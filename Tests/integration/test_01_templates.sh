# One template and the bundle: localization, fallback, RTL, pseudo-locales, placeholders, aliases.

fetch "$BASE_URL/v1/templates/connectionRefused?locale=fr&platform=ios"
expect_eq "template: 200" 200 "$STATUS"
expect_eq "template: JSON content type" "application/json; charset=utf-8" "$(header Content-Type)"
expect_eq "template: Content-Language fr" fr "$(header Content-Language)"
expect_eq "template: body says fr" fr "$(json .locale)"
expect_eq "template: ltr" ltr "$(json .direction)"
expect_eq "template: SF Symbol for ios" "wifi.slash" "$(json .visual.name)"
expect_eq "template: icon is decorative" true "$(json .visual.decorative)"
expect_eq "template: exactly one primary action" 1 "$(json '[.actions[] | select(.role == "primary")] | length')"
expect_eq "template: Vary without Accept-Language when ?locale= is given" "Accept-Encoding" "$(header Vary)"
expect_match "template: strong ETag" '^"[0-9a-f]{16}"$' "$(header ETag)"
expect_match "template: cacheable, stale on error" 'max-age=[0-9]+.*stale-if-error=' "$(header Cache-Control)"

fetch "$BASE_URL/v1/templates/connectionRefused?platform=android"
expect_eq "template: Material icon for android" "wifi_off" "$(json .visual.name)"
fetch "$BASE_URL/v1/templates/connectionRefused"
expect_eq "template: default platform is web" web "$(json .platform)"
expect_eq "template: default locale without preferences" en "$(json .locale)"
expect_eq "template: Vary names Accept-Language when it could apply" "Accept-Language, Accept-Encoding" "$(header Vary)"

fetch -H 'Accept-Language: it;q=1, de-CH;q=0.9, fr;q=0.5' "$BASE_URL/v1/templates/connectionRefused"
expect_eq "Accept-Language: q-values honoured, de-CH falls back to de" de "$(json .locale)"
fetch -H 'Accept-Language: fr;q=0.2, ja;q=0.8' "$BASE_URL/v1/templates/connectionRefused"
expect_eq "Accept-Language: highest q wins regardless of order" ja "$(json .locale)"
fetch -H 'Accept-Language: ;;;, ja' "$BASE_URL/v1/templates/connectionRefused"
expect_eq "Accept-Language: malformed ranges are skipped" ja "$(json .locale)"
fetch "$BASE_URL/v1/templates/connectionRefused?locale=pt"
expect_eq "fallback: pt finds pt-BR" pt-BR "$(json .locale)"
fetch "$BASE_URL/v1/templates/connectionRefused?locale=pt-PT"
expect_eq "fallback: pt-PT → pt → pt-BR" pt-BR "$(json .locale)"
fetch "$BASE_URL/v1/templates/connectionRefused?locale=sw-KE"
expect_eq "fallback: unknown locale ends at the template's default" en "$(json .locale)"
expect_eq "fallback: Content-Language says what was served" en "$(header Content-Language)"

fetch "$BASE_URL/v1/templates/somethingWentWrong?locale=ar"
expect_eq "RTL: Arabic is rtl" rtl "$(json .direction)"
ar_title=$(json .title)
fetch "$BASE_URL/v1/templates/somethingWentWrong?locale=en"
if [ -n "$ar_title" ] && [ "$ar_title" != "$(json .title)" ]; then pass "RTL: Arabic copy"; else fail "RTL: Arabic copy"; fi
fetch "$BASE_URL/v1/templates/somethingWentWrong?locale=he"
expect_eq "RTL: a locale the template lacks falls back (en, ltr)" ltr "$(json .direction)"

fetch "$BASE_URL/v1/templates/connectionRefused?locale=en-XA"
expect_eq "pseudo: en-XA served" en-XA "$(json .locale)"
expect_match "pseudo: en-XA bracketed and accented" '^\[.*[åéîöû].*\]$' "$(json .title)"
fetch "$BASE_URL/v1/templates/connectionRefused?locale=ar-XB"
expect_eq "pseudo: ar-XB is rtl" rtl "$(json .direction)"
expect_match "pseudo: ar-XB uses RTL overrides" $'\u202e' "$(json .title)"

fetch "$BASE_URL/v1/templates/verifyIdentity?locale=de"
expect_eq "placeholders: unfilled ones are listed" '["provider"]' "$(json -c .placeholders 2>/dev/null || jq -c .placeholders "$BODY")"
expect_match "placeholders: unfilled ones stay visible" '\{provider\}' "$(jq -c . "$BODY")"
fetch "$BASE_URL/v1/templates/verifyIdentity?locale=de&param.provider=BankID"
expect_eq "placeholders: filled ones are not listed" '[]' "$(jq -c .placeholders "$BODY")"
expect_match "placeholders: value inserted" 'BankID' "$(jq -c .actions "$BODY")"
expect_match "placeholders: filled response has its own ETag" '^"[0-9a-f]{16}"$' "$(header ETag)"

for alias in noInternetConnection noNetwork; do
    fetch "$BASE_URL/v1/templates/$alias"
    expect_eq "alias: $alias → connectionRefused" connectionRefused "$(json .id)"
done
for alias in loadingFailure failToLoad; do
    fetch "$BASE_URL/v1/templates/$alias"
    expect_eq "alias: $alias → somethingWentWrong" somethingWentWrong "$(json .id)"
done
fetch "$BASE_URL/v1/templates/noResults"
expect_eq "alias: noResults → noSearchResults" noSearchResults "$(json .id)"

fetch "$BASE_URL/v1/templates?locale=ja&platform=ios"
expect_eq "bundle: 200" 200 "$STATUS"
expect_eq "bundle: every template" 15 "$(json '.templates | length')"
expect_eq "bundle: each in the asked locale" ja "$(json '[.templates[].locale] | unique | join(",")')"
expect_eq "bundle: aliases listed" connectionRefused "$(json .aliases.noNetwork)"

fetch -H 'X-Request-ID: trace-abc.123' "$BASE_URL/healthz"
expect_eq "request id: a sane client id is echoed" trace-abc.123 "$(header X-Request-ID)"
expect_match "request id: and on the request's access-log line" \
    '^[0-9T:.-]+Z access request\.id=trace-abc\.123 http\.method=GET http\.path="/healthz" http\.query="" http\.status=200 http\.response_bytes=15 http\.duration_ms=[0-9]+\.[0-9]{3} client\.address=127\.0\.0\.1 http\.user_agent="curl/[^"]*"$' \
    "$(wait_for_log "$SERVER_LOG" 'request\.id=trace-abc\.123 ')"
fetch -H 'X-Request-ID: bad id with spaces' "$BASE_URL/healthz"
expect_match "request id: an unsafe one is replaced" '^[0-9a-f]{16}$' "$(header X-Request-ID)"

fetch "$BASE_URL/healthz"
expect_eq "healthz: 200" 200 "$STATUS"
fetch "$BASE_URL/readyz"
expect_eq "readyz: ready with 15 templates" "ready 15" "$(json '"\(.status) \(.templates)"')"
fetch "$BASE_URL/openapi.yaml"
expect_eq "openapi.yaml: served" 200 "$STATUS"
expect_match "openapi.yaml: is the contract" '^openapi: 3\.1' "$(head -n 5 "$BODY")"
