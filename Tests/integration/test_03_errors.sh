# Every error status, each as application/problem+json with a reason.

expect_problem() { # NAME STATUS SLUG
    expect_eq "$1: status" "$2" "$STATUS"
    expect_eq "$1: problem+json" "application/problem+json" "$(header Content-Type)"
    expect_eq "$1: type" "urn:empty-state:problem:$3" "$(json .type)"
    expect_eq "$1: requestId matches X-Request-ID" "$(header X-Request-ID)" "$(json .requestId)"
}

fetch "$BASE_URL/v1/templates/doesNotExist"
expect_problem "unknown template" 404 unknown-template
expect_eq "unknown template: reason names the parameter" id "$(json '.errors[0].parameter')"
if grep -q 'connectionRefused' "$BODY"; then fail "unknown template: lists nothing"; else pass "unknown template: lists nothing"; fi

fetch "$BASE_URL/v1/templates/connectionRefused?locale=not_a_locale!"
expect_problem "malformed locale" 400 invalid-parameter
expect_eq "malformed locale: field" locale "$(json '.errors[0].parameter')"
fetch "$BASE_URL/v1/templates?platform=tv"
expect_problem "unknown platform" 400 invalid-parameter
expect_eq "unknown platform: field" platform "$(json '.errors[0].parameter')"
fetch "$BASE_URL/v1/templates/connectionRefused?platform=tv&locale=%21"
expect_eq "several bad parameters: all listed" 2 "$(json '.errors | length')"
long=$(head -c 201 /dev/zero | tr '\0' 'x')
fetch "$BASE_URL/v1/templates/verifyIdentity?param.provider=$long"
expect_problem "placeholder value too long" 400 invalid-parameter
expect_eq "placeholder value too long: field" param.provider "$(json '.errors[0].parameter')"

fetch "$BASE_URL/v2/anything"
expect_problem "unknown path" 404 not-found
fetch -X DELETE "$BASE_URL/v1/templates/connectionRefused"
expect_problem "wrong method" 405 method-not-allowed
expect_eq "wrong method: Allow" "GET, HEAD" "$(header Allow)"

fetch "$BASE_URL/v1/templates/%E0%A4%A"
expect_problem "truncated escape in the path" 400 malformed-path
fetch "$BASE_URL/v1/templates/%C3%28"
expect_problem "invalid UTF-8 in the path" 400 malformed-path
fetch "$BASE_URL/v1/templates/a%00b"
expect_problem "NUL in the path" 400 malformed-path
fetch "$BASE_URL/v1/templates/connectionRefused?locale=%zz"
expect_problem "malformed escape in the query" 400 invalid-parameter

big=$(mktemp)
head -c 200000 /dev/zero >"$big"
out=$(curl -s -v -o "$BODY" -D "$HEADERS" -X POST --data-binary @"$big" -H 'Content-Type: application/json' \
    "$BASE_URL/v1/templates" 2>&1)
STATUS=$(head -n 1 "$HEADERS" | awk '{print $2}')
expect_problem "413 with Expect: 100-continue" 413 payload-too-large
if printf '%s' "$out" | grep -q '< HTTP/1.1 100'; then
    fail "413 with Expect: refused before 100 Continue"
else
    pass "413 with Expect: refused before 100 Continue"
fi
fetch -X POST -H 'Expect:' --data-binary @"$big" "$BASE_URL/v1/templates"
expect_problem "413 without Expect" 413 payload-too-large
expect_match "413: the limit is in the body" '65536' "$(json .detail)"
fetch -X POST -H 'Transfer-Encoding: chunked' --data-binary @"$big" "$BASE_URL/v1/templates"
expect_problem "413 for a chunked body past the limit" 413 payload-too-large
rm -f "$big"
fetch -X POST -d '{}' "$BASE_URL/v1/templates"
expect_problem "a small body on a GET-only route" 405 method-not-allowed
