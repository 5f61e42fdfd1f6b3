# The web platform over HTTP: the SVG in web JSON, the HTML fragment and page served like the JSON
# (negotiation, ETag/304, gzip, Vary, CORS), the assets' two names, the gallery, the icon list,
# the web icon rule on writes, and CORS for the event sink only. (The rendering itself is checked
# in Chromium by Tests/browser/run.py.)

WEB_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"

fetch "$BASE_URL/v1/templates/connectionRefused?locale=fr&platform=web"
expect_match "web JSON: visual.svg is inline SVG" '^<svg xmlns="http://www.w3.org/2000/svg"' "$(json .visual.svg)"
expect_match "web JSON: the SVG is hidden and inert" 'aria-hidden="true" focusable="false"' "$(json .visual.svg)"
expect_eq "web JSON: any origin may read it" "*" "$(header Access-Control-Allow-Origin)"
fetch "$BASE_URL/v1/templates/connectionRefused?platform=android"
expect_eq "android JSON: no svg" null "$(json .visual.svg)"

fetch -H 'Accept-Language: de-CH, de;q=0.9' "$BASE_URL/v1/web/templates/noNetwork"
expect_eq "fragment: 200" 200 "$STATUS"
expect_eq "fragment: text/html" "text/html; charset=utf-8" "$(header Content-Type)"
expect_eq "fragment: negotiated German" de "$(header Content-Language)"
expect_eq "fragment: Vary" "Accept-Language, Accept-Encoding" "$(header Vary)"
expect_match "fragment: the heading is an h3" '<h3 class="es-title">Sie sind offline</h3>' "$(cat "$BODY")"
expect_match "fragment: CSP" "default-src 'none'" "$(header Content-Security-Policy)"
web_etag=$(header ETag)
fetch -H 'Accept-Language: de' -H "If-None-Match: $web_etag" "$BASE_URL/v1/web/templates/noNetwork"
expect_eq "fragment: 304 on its ETag" 304 "$STATUS"
fetch -H 'Accept-Encoding: gzip' "$BASE_URL/v1/web/templates/connectionRefused/page?locale=ar"
expect_eq "page: gzip" gzip "$(header Content-Encoding)"
expect_match "page: a right-to-left document" '<html lang="ar" dir="rtl">' "$(gzip -dc <"$BODY")"
fetch "$BASE_URL/v1/web/templates/connectionRefused?level=9"
expect_eq "fragment: level 9 is refused" 400 "$STATUS"

fetch "$BASE_URL/v1/web/assets/empty-state.css"
expect_eq "stylesheet: text/css" "text/css; charset=utf-8" "$(header Content-Type)"
css_hash=$(header ETag | tr -d '"')
fetch "$BASE_URL/v1/web/assets/empty-state.$css_hash.css"
expect_eq "stylesheet at its hashed name: immutable" "public, max-age=31536000, immutable" "$(header Cache-Control)"
fetch "$BASE_URL/v1/web/assets/empty-state.js"
expect_eq "component: a JavaScript module" "text/javascript; charset=utf-8" "$(header Content-Type)"
fetch "$BASE_URL/preview?locale=ja&size=200x150"
expect_eq "gallery: 200" 200 "$STATUS"
expect_match "gallery: every template" 'data-template="verifyIdentity"' "$(cat "$BODY")"

fetch -H "$WEB_AUTH" "$BASE_URL/v1/admin/icons?q=wifi%20off"
expect_eq "icons: wifi off finds wifi-off" wifi-off "$(json '.icons[0].name')"
fetch "$BASE_URL/v1/admin/icons"
expect_eq "icons: a token is needed" 401 "$STATUS"
jq '.id = "webIconCheck" | del(.aliases) | .visual.icon.web = "wifi-of"' "$ROOT/config/templates/connectionRefused.json" >"$WORK/web-icon.json"
fetch -X PUT -H "$WEB_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' --data-binary @"$WORK/web-icon.json" \
    "$BASE_URL/v1/admin/templates/webIconCheck"
expect_eq "an unknown web icon: 422" 422 "$STATUS"
expect_eq "an unknown web icon: its pointer" /visual/icon/web "$(json '.errors[0].pointer')"

fetch -X OPTIONS -H 'Origin: https://shop.example' -H 'Access-Control-Request-Method: POST' \
    -H 'Access-Control-Request-Headers: content-type' "$BASE_URL/v1/events"
expect_eq "events preflight: 204" 204 "$STATUS"
expect_eq "events preflight: any origin" "*" "$(header Access-Control-Allow-Origin)"
expect_eq "events preflight: JSON allowed (and a preview token)" "Content-Type, X-Preview-Token" "$(header Access-Control-Allow-Headers)"
fetch -X OPTIONS -H 'Origin: https://shop.example' -H 'Access-Control-Request-Method: PUT' \
    "$BASE_URL/v1/admin/templates/connectionRefused"
expect_eq "admin: no preflight (405)" 405 "$STATUS"
expect_eq "admin: no CORS header" "" "$(header Access-Control-Allow-Origin)"
