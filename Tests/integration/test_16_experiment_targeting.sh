# Targeting and QA overrides through the real binary: an experiment on noFavorites targets iOS in
# en or fr from app 5.0, with one QA device forced to b. Bad targeting and overrides are 422 at
# their fields; 200 installs inside the target get exactly the variant GrowthBook's hashing
# assigns them (recomputed here in Python), and none outside it (another platform, locale, an
# older or missing app version) gets any; the QA device gets b on the web. Events of the
# override and of an outsider are excluded by reason; the target is frozen while running, the
# overrides are not, and changing them moves nobody else.

XT_API="$BASE_URL/v1/admin/experiments"
XT_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
XT_URL="$BASE_URL/v1/templates/noFavorites"

XT_TARGETING='{"platforms": ["ios"], "locales": ["en", "fr"], "appVersion": {"min": "5.0"}}'
XT_OVERRIDES='[{"installId": "qa-web-1", "variant": "b"}]'

# xt_doc STATUS [TARGETING [OVERRIDES]]: the experiment document (by default XT_TARGETING and
# XT_OVERRIDES).
xt_doc() {
    local targeting=${2:-$XT_TARGETING} overrides=${3:-$XT_OVERRIDES}
    jq -cn --arg status "$1" --argjson targeting "$targeting" --argjson overrides "$overrides" '{
        id: "target-copy", templateId: "noFavorites", status: $status,
        primaryMetric: {type: "tap", action: "findContacts"},
        variants: [{key: "control", weight: 0.5}, {key: "b", weight: 0.5, strings: {en: {title: "Nothing starred yet"}}}],
        targeting: $targeting, overrides: $overrides}'
}

xt_put() { # PRECONDITION-HEADER JSON
    fetch -X PUT -H "$XT_AUTH" -H 'Content-Type: application/json' -H "$1" --data-binary "$2" "$XT_API/target-copy"
}

xt_put 'If-None-Match: *' \
    "$(xt_doc draft '{"platforms": ["ios", "windows"], "appVersion": {"min": "7.0", "max": "6.0"}}')"
expect_eq "targeting: bad targeting is 422" 422 "$STATUS"
expect_eq "targeting: … naming each field" "/targeting/appVersion/min /targeting/platforms/1" \
    "$(json '[.errors[].pointer] | sort | join(" ")')"
xt_put 'If-None-Match: *' "$(xt_doc draft '{"locales": ["en", "xx"]}')"
expect_eq "targeting: a locale the template lacks is 422 at its index" "422 /targeting/locales/1" \
    "$STATUS $(json '[.errors[].pointer] | join(" ")')"
xt_put 'If-None-Match: *' "$(xt_doc draft '{}' '[{"installId": "qa 1", "variant": "z"}]')"
expect_eq "targeting: a bad override is 422 at its fields" "422 /overrides/0/installId /overrides/0/variant" \
    "$STATUS $(json '[.errors[].pointer] | sort | join(" ")')"

xt_put 'If-None-Match: *' "$(xt_doc draft)"
expect_eq "targeting: the experiment is created" 201 "$STATUS"
expect_eq "targeting: … its targeting and overrides as sent" \
    '{"appVersion":{"min":"5.0.0"},"locales":["en","fr"],"platforms":["ios"]} [{"installId":"qa-web-1","variant":"b"}]' \
    "$(jq -cS .experiment.targeting "$BODY") $(jq -c .experiment.overrides "$BODY")"
xt_put 'If-Match: "r1"' "$(xt_doc running)"
expect_eq "targeting: the experiment starts" 200 "$STATUS"

# xt_served QUERY [HEADER…]: for xt-1 … xt-200, one curl over one connection: "install variant"
# per line ("null" when none).
xt_served() {
    local query=$1 config="$WORK/xt-curl.conf" n extra
    shift
    : >"$config"
    for n in $(seq 1 200); do
        [ "$n" -gt 1 ] && echo next >>"$config"
        printf 'url = "%s"\nwrite-out = "\\n"\nheader = "X-Install-ID: xt-%s"\n' "$XT_URL?$query" "$n" >>"$config"
        for extra in "$@"; do printf 'header = "%s"\n' "$extra" >>"$config"; done
    done
    paste -d' ' <(seq 1 200 | sed 's/^/xt-/') <(curl -s -K "$config" | jq -r '.experiment.variant // "null"')
}

XT_INSIDE="$WORK/xt-inside.txt"
xt_served 'locale=en&platform=ios' 'X-App-Version: 5.2.0' >"$XT_INSIDE"
xt_report=$(
    python3 - "$XT_INSIDE" <<'PYTHON'
import sys

def fnv1a32(text):
    h = 0x811C9DC5
    for ch in text:
        h ^= ord(ch)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h

def expected(install):  # GrowthBook v2 hash, 50/50, full coverage
    n = (fnv1a32(str(fnv1a32("target-copy" + install))) % 10000) / 10000
    return "control" if n < 0.5 else "b"

lines = [line.split() for line in open(sys.argv[1])]
wrong = sum(1 for install, served in lines if served != expected(install))
print(len(lines), wrong, sum(1 for _, served in lines if served == "b"))
PYTHON
)
read -r xt_count xt_wrong xt_b <<<"$xt_report"
expect_eq "targeting: 200 installs inside the target each got the variant GrowthBook assigns ($xt_b in b)" \
    "200 0" "$xt_count $xt_wrong"

for xt_case in 'locale=en&platform=web|X-App-Version: 5.2.0' 'locale=en&platform=android|X-App-Version: 5.2.0' \
    'locale=de&platform=ios|X-App-Version: 5.2.0' 'locale=en&platform=ios|X-App-Version: 4.9.9' \
    'locale=en&platform=ios|X-Request-ID: no-version'; do
    xt_outside=$(xt_served "${xt_case%%|*}" "${xt_case#*|}" | awk '$2 != "null"' | wc -l)
    expect_eq "targeting: outside the target ($xt_case): no install is assigned" 0 "$xt_outside"
done
fetch -H 'X-Install-ID: xt-1' -H 'X-App-Version: 5.2.0' "$XT_URL?locale=en&platform=web"
expect_eq "targeting: … and is served the base copy, privately" "No favorites added private" \
    "$(json .title) $(header Cache-Control | cut -d, -f1)"

fetch -H 'X-Install-ID: xt-1' -H 'X-App-Version: five' "$XT_URL?locale=en&platform=ios"
expect_eq "targeting: a malformed X-App-Version is 400 naming the header" \
    "400 urn:empty-state:problem:invalid-install-attributes X-App-Version" \
    "$STATUS $(json .type) $(json '.errors[0].header')"

fetch -H 'X-Install-ID: qa-web-1' "$XT_URL?locale=en&platform=web"
expect_eq "overrides: the QA device gets b on the web, outside the target" "b Nothing starred yet" \
    "$(json .experiment.variant) $(json .title)"

# Events: one install inside the target in its variant, the QA device, and an install reporting
# from Android (outside the target).
xt_event() { # INSTALL VARIANT PLATFORM
    jq -cn --arg id "$(python3 -c 'import uuid; print(uuid.uuid4())')" --arg at "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        --arg install "$1" --arg variant "$2" --arg platform "$3" '{id: $id, type: "displayed",
        templateId: "noFavorites", revision: 1, locale: "en", platform: $platform, appVersion: "5.2.0",
        occurredAt: $at, experimentId: "target-copy", variant: $variant, installId: $install}'
}
xt_in_variant=$(awk '$1 == "xt-1" { print $2 }' "$XT_INSIDE")
xt_other_variant=$(awk '$1 == "xt-2" { print $2 }' "$XT_INSIDE")
fetch -X POST -H 'Content-Type: application/json' --data-binary "{\"events\": [$(xt_event xt-1 "$xt_in_variant" ios),
    $(xt_event qa-web-1 b web), $(xt_event xt-2 "$xt_other_variant" android)]}" "$BASE_URL/v1/events"
expect_eq "targeting: the events are accepted" "202 3" "$STATUS $(json .accepted)"
fetch -H "$XT_AUTH" "$XT_API/target-copy/results"
expect_eq "targeting: results count the install inside, exclude the override and the outsider by reason" \
    "1 2 1 1" \
    "$(json '[([.variants[].installs] | add), .excludedInstalls, .excluded.override, .excluded.outsideTarget] | join(" ")')"

xt_put 'If-Match: "r2"' "$(xt_doc running '{"platforms": ["ios", "android"], "locales": ["en", "fr"], "appVersion": {"min": "5.0"}}')"
expect_eq "targeting: frozen while running (409 split-frozen at /targeting)" "409 /targeting" \
    "$STATUS $(json '.errors[0].pointer')"
xt_put 'If-Match: "r2"' "$(xt_doc running '' '[{"installId": "qa-web-1", "variant": "control"}, {"installId": "xt-3", "variant": "b"}]')"
expect_eq "overrides: editable while running" 200 "$STATUS"
fetch -H 'X-Install-ID: qa-web-1' "$XT_URL?locale=en&platform=web"
expect_eq "overrides: the QA device now gets control" control "$(json .experiment.variant)"
xt_served 'locale=en&platform=ios' 'X-App-Version: 5.2.0' >"$WORK/xt-after.txt"
expect_eq "overrides: changing them moved nobody else" \
    "$(grep -v '^xt-3 ' "$XT_INSIDE")" "$(grep -v '^xt-3 ' "$WORK/xt-after.txt")"
expect_eq "overrides: … and xt-3 is forced to b" "xt-3 b" "$(grep '^xt-3 ' "$WORK/xt-after.txt")"

fetch -H "$XT_AUTH" "$XT_API/target-copy"
fetch -X PUT -H "$XT_AUTH" -H 'Content-Type: application/json' -H "If-Match: $(header ETag)" \
    --data-binary "$(jq -c '.experiment | .status = "stopped" | del(.stoppedAt)' "$BODY")" "$XT_API/target-copy"
expect_eq "targeting: the experiment stops (no experiment left running for the checks after)" 200 "$STATUS"
