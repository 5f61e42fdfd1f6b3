# Translators' files over HTTP, played as a translator's round trip against the suite's server:
# export French for the strings it lacks, fill them with a script, import a dry run (the report
# checked), apply it, the client API serves it, import it again (no change), change an English
# source (the French string is stale in coverage, /metrics and the next export). Then the other
# formats (a String Catalog, an Android res/ tree as a ZIP) and what an import refuses: bad files
# (line and column), a 50 MB file, an XML bomb, a form, no token.

TR_API="$BASE_URL/v1/admin"
TR_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
TR_ID=xlateDemo
TR_DIR="$WORK/translations"
mkdir -p "$TR_DIR"

# tr_import FILE QUERY: POSTs FILE to the import route with QUERY; sets STATUS, HEADERS, BODY.
tr_import() {
    fetch -X POST -H "$TR_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary "@$1" \
        "$TR_API/translations/import?$2"
}

# A template in English and German only: French is missing, with placeholders to keep.
jq --arg id "$TR_ID" '.id = $id | del(.aliases) | .strings = {en: .strings.en, de: .strings.de}' \
    "$ROOT/config/templates/verifyIdentity.json" >"$TR_DIR/template.json"
fetch -X PUT -H "$TR_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
    --data-binary "@$TR_DIR/template.json" "$TR_API/templates/$TR_ID"
expect_eq "translations: a template without French is created" 201 "$STATUS"
TR_KEYS=$(jq -r '.strings.en | keys | length' "$TR_DIR/template.json")

# --- Export French, only what is missing or stale -------------------------------------------------

fetch -H "$TR_AUTH" "$TR_API/translations/export?format=xliff2&locale=fr&onlyMissingOrStale=true"
expect_eq "export: 200" 200 "$STATUS"
expect_eq "export: XLIFF media type" "application/xliff+xml" "$(header Content-Type)"
expect_eq "export: named for tools" 'attachment; filename="fr.xlf"' "$(header Content-Disposition)"
expect_eq "export: only the missing strings" "$TR_KEYS" "$(header X-Translation-Units)"
cp "$BODY" "$TR_DIR/fr.xlf"
expect_eq "export: every unit is the new template's, in state initial" "$TR_KEYS $TR_KEYS" \
    "$(grep -c "<unit id=\"$TR_ID\." "$TR_DIR/fr.xlf") $(grep -c 'state="initial"' "$TR_DIR/fr.xlf")"
expect_match "export: placeholders as <ph>, not braces" '<ph id="provider"' "$(cat "$TR_DIR/fr.xlf")"
expect_match "export: notes say the copy rule" '<note>title, at most 2 lines' "$(cat "$TR_DIR/fr.xlf")"
fetch -H "$TR_AUTH" "$TR_API/translations/export?format=xliff2&locale=fr&onlyMissingOrStale=true&ids=nope"
expect_eq "export: an unknown id is 400" "400 ids" "$STATUS $(json '.errors[0].parameter')"

# --- Fill it with a script ---------------------------------------------------------------------------

python3 - "$TR_DIR/fr.xlf" "$TR_DIR/fr.filled.xlf" "$TR_DIR/fr.broken.xlf" <<'PY'
import copy, sys
import xml.etree.ElementTree as ET
NS = "urn:oasis:names:tc:xliff:document:2.0"
ET.register_namespace("", NS)
ET.register_namespace("mda", "urn:oasis:names:tc:xliff:metadata:2.0")
tree = ET.parse(sys.argv[1])
for segment in tree.iter(f"{{{NS}}}segment"):
    source = segment.find(f"{{{NS}}}source")
    target = copy.deepcopy(source)
    target.tag = f"{{{NS}}}target"
    target.text = "Traduit : " + (target.text or "")
    segment.append(target)
    segment.set("state", "translated")
tree.write(sys.argv[2], encoding="UTF-8", xml_declaration=True)
# The same file with the placeholder of the message's translation dropped.
for unit in tree.iter(f"{{{NS}}}unit"):
    if unit.get("id").endswith(".message"):
        target = unit.find(f"{{{NS}}}segment/{{{NS}}}target")
        for child in list(target):
            target.remove(child)
        target.text = "Traduit sans le fournisseur."
tree.write(sys.argv[3], encoding="UTF-8", xml_declaration=True)
PY

# --- Dry run ---------------------------------------------------------------------------------------

TR_REVISION=$(curl -s -H "$TR_AUTH" "$TR_API/templates/$TR_ID" | jq -r .revision)
tr_import "$TR_DIR/fr.filled.xlf" "fileName=fr.xlf"
expect_eq "dry run: 200 JSON" "200 application/json; charset=utf-8" "$STATUS $(header Content-Type)"
expect_eq "dry run: by default" true "$(json .dryRun)"
expect_eq "dry run: the format told from the file" xliff2 "$(json .format)"
expect_eq "dry run: every string new, nothing else" "$TR_KEYS 0 0 0 0" \
    "$(json '[.summary.new, .summary.changed, .summary.unchanged, .summary.rejected, .summary.revisionsWritten] | map(tostring) | join(" ")')"
expect_eq "dry run: one template would change, at the revision read" "1 $TR_ID changed $TR_REVISION" \
    "$(json '[.summary.templatesChanged, .templates[0].templateId, .templates[0].result, .templates[0].baseRevision] | map(tostring) | join(" ")')"
expect_eq "dry run: per string, locale, key, outcome and value" "fr title new Traduit : Verify your identity" \
    "$(json '.templates[0].strings[] | select(.key == "title") | "\(.locale) \(.key) \(.outcome) \(.value)"')"
expect_eq "dry run: the file's locales" "en fr" "$(json '.documents[0] | "\(.sourceLocale) \(.targetLocale)"')"
fetch -H "$TR_AUTH" "$TR_API/templates/$TR_ID"
expect_eq "dry run: nothing written" "$TR_REVISION null" "$(json '[.revision, .template.strings.fr] | map(tostring) | join(" ")')"

tr_import "$TR_DIR/fr.broken.xlf" "fileName=fr.xlf"
expect_eq "dry run: a dropped placeholder is rejected, with the API's reason and pointer" \
    "placeholders /strings/fr/message" \
    "$(json '.templates[0].strings[] | select(.key == "message") | .reasons[0] | "\(.reason) \(.pointer)"')"
# A new locale arrives complete or not at all: without the message, French would lack a key.
expect_eq "dry run: the rest of the new locale is held back by the copy rule" "$TR_KEYS rejected copyRule" \
    "$(json '[.summary.rejected, .templates[0].result, (.templates[0].strings[] | select(.key == "title") | .reasons[0].reason)] | map(tostring) | join(" ")')"

# --- Apply -----------------------------------------------------------------------------------------

tr_import "$TR_DIR/fr.filled.xlf" "fileName=fr.xlf&dryRun=false"
expect_eq "apply: one revision written" "200 false 1 1" \
    "$STATUS $(json '[.dryRun, .summary.revisionsWritten, .summary.templatesChanged] | map(tostring) | join(" ")')"
expect_eq "apply: the revision after the one read" "$((TR_REVISION + 1))" "$(json '.templates[0].revision')"
fetch -H "$TR_AUTH" "$TR_API/templates/$TR_ID/revisions"
expect_eq "apply: the revision says where it came from" "strings imported from fr.xlf" \
    "$(json '.items[0] | "\(.action) \(.note)"')"
expect_eq "apply: earlier revisions have no note" null "$(json '.items[1].note')"
fetch -H "$TR_AUTH" "$TR_API/audit?templateId=$TR_ID"
expect_eq "apply: the audit trail shows the note" "imported from fr.xlf" "$(json '.items[0].note')"
fetch "$BASE_URL/v1/templates/$TR_ID?locale=fr"
expect_eq "apply: the client API serves the French copy" "fr Traduit : Verify your identity" \
    "$(json '"\(.locale) \(.title)"')"

tr_import "$TR_DIR/fr.filled.xlf" "fileName=fr.xlf&dryRun=false"
expect_eq "again: the same file changes nothing" "$TR_KEYS 0 0 0" \
    "$(json '[.summary.unchanged, .summary.new, .summary.changed, .summary.revisionsWritten] | map(tostring) | join(" ")')"
expect_eq "again: no revision" "$((TR_REVISION + 1))" "$(curl -s -H "$TR_AUTH" "$TR_API/templates/$TR_ID" | jq -r .revision)"

# A file over the server's --max-body-size (64 KiB here) but under the import route's own limit.
{ cat "$TR_DIR/fr.filled.xlf"; printf '<!-- %s -->\n' "$(head -c 100000 /dev/zero | tr '\0' x)"; } >"$TR_DIR/fr.large.xlf"
tr_import "$TR_DIR/fr.large.xlf" "fileName=fr.xlf"
expect_eq "limit: a 100 KB file is taken by the import route (64 KiB elsewhere)" "200 $TR_KEYS" \
    "$STATUS $(json .summary.unchanged)"

# --- Stale -----------------------------------------------------------------------------------------

tr_stale_metric() {
    curl -s "$BASE_URL/metrics" | awk '$1 == "translation_stale_strings{locale=\"fr\"}" {print int($2)}'
}
for _ in $(seq 50); do [ -n "$(tr_stale_metric)" ] && break; sleep 0.1; done  # the first count
TR_STALE_BEFORE=$(tr_stale_metric)
fetch -H "$TR_AUTH" "$TR_API/templates/$TR_ID"
TR_ETAG=$(header ETag)
json '.template.strings.en | .title = "Confirm who you are"' >"$TR_DIR/en.json"
fetch -X PUT -H "$TR_AUTH" -H 'Content-Type: application/json' -H "If-Match: $TR_ETAG" \
    --data-binary "@$TR_DIR/en.json" "$TR_API/templates/$TR_ID/strings/en"
expect_eq "stale: the English title changes" 200 "$STATUS"
fetch -H "$TR_AUTH" "$TR_API/locales"
expect_eq "stale: coverage lists the French title" "title" \
    "$(json '.locales[] | select(.locale == "fr") | .stale[] | select(.templateId == "'$TR_ID'") | .keys | join(",")')"
expect_eq "stale: English itself is never stale" "0" "$(json '.locales[] | select(.locale == "en") | .staleStrings')"
# The gauge is counted in the background after a change (a scrape never waits for the store).
TR_STALE_WANT=$((${TR_STALE_BEFORE:-0} + 1))
for _ in $(seq 50); do [ "$(tr_stale_metric)" = "$TR_STALE_WANT" ] && break; sleep 0.1; done
expect_eq "stale: /metrics counts it (within 5 s)" "$TR_STALE_WANT" "$(tr_stale_metric)"
fetch -H "$TR_AUTH" "$TR_API/translations/export?format=xliff2&locale=fr&onlyMissingOrStale=true"
expect_eq "stale: the next export has it alone" 1 "$(header X-Translation-Units)"
expect_match "stale: exported as initial, marked stale" \
    "state=\"initial\" subState=\"empty-state:stale\"" "$(cat "$BODY")"
fetch -H "$TR_AUTH" "$TR_API/translations/export?format=xcstrings&locale=fr&ids=$TR_ID"
expect_eq "stale: a String Catalog says needs_review" "needs_review" \
    "$(json '.strings["'$TR_ID'/title"].localizations.fr.stringUnit.state')"
expect_eq "String Catalog: JSON named Localizable.xcstrings" \
    'application/json attachment; filename="Localizable.xcstrings"' "$(header Content-Type) $(header Content-Disposition)"

# --- Several files: a ZIP ----------------------------------------------------------------------------

fetch -H "$TR_AUTH" "$TR_API/translations/export?format=android&locale=fr"
expect_eq "Android: a ZIP" "200 application/zip" "$STATUS $(header Content-Type)"
expect_eq "Android: res/ folders tools expect, CRCs right" "values-fr/strings.xml values/strings.xml ok" \
    "$(python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(" ".join(sorted(z.namelist())), "ok" if z.testzip() is None else "bad")' "$BODY")"
fetch -H "$TR_AUTH" "$TR_API/translations/export?format=xliff12"
expect_eq "XLIFF 1.2, every locale: a ZIP of .xliff files" "fr.xliff" \
    "$(python3 -c 'import sys, zipfile; print(" ".join(n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n == "fr.xliff"))' "$BODY")"

# --- What an import refuses ------------------------------------------------------------------------------

printf '<?xml version="1.0" encoding="UTF-8"?>\n<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">\n  <file id="f"><unit id="%s.title">\n    <segment><source>Verify</source></segment></file>\n</xliff>\n' "$TR_ID" >"$TR_DIR/bad.xlf"
tr_import "$TR_DIR/bad.xlf" "fileName=bad.xlf"
expect_eq "bad file: 400 problem" "400 urn:empty-state:problem:invalid-translation-file" "$STATUS $(json .type)"
expect_eq "bad file: the line and column of the fault" "4 47" "$(json '"\(.errors[0].line) \(.errors[0].column)"')"
expect_match "bad file: the detail says where" "line 4, column 47" "$(json .detail)"

cat >"$TR_DIR/bomb.xlf" <<'XML'
<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr"><file id="f"><unit id="a.title"><segment><source>&lol9;&xxe;</source></segment></unit></file></xliff>
XML
tr_import "$TR_DIR/bomb.xlf" "fileName=bomb.xlf&format=xliff2"
expect_eq "XML bomb: 400 at the DOCTYPE, nothing expanded or loaded" "400 2 1" \
    "$STATUS $(json '"\(.errors[0].line) \(.errors[0].column)"')"
expect_match "XML bomb: the detail says why" "DOCTYPE is not accepted" "$(json .detail)"

head -c 52428800 /dev/zero | tr '\0' 'a' >"$TR_DIR/50mb.xlf"
TR_START=$(date +%s%N)
tr_import "$TR_DIR/50mb.xlf" "fileName=big.xlf"
TR_MS=$((($(date +%s%N) - TR_START) / 1000000))
expect_eq "50 MB: 413 with the route's limit, from its Content-Length" \
    "413 urn:empty-state:problem:payload-too-large Content-Length" "$STATUS $(json .type) $(json '.errors[0].header')"
expect_match "50 MB: the limit named" "41943040 bytes" "$(json .detail)"
if [ "$TR_MS" -lt 3000 ]; then pass "50 MB: refused before it is read (${TR_MS} ms)"; else fail "50 MB: refused before it is read" "${TR_MS} ms"; fi
fetch -X POST -H "$TR_AUTH" -H 'Content-Type: application/xliff+xml' -H 'Transfer-Encoding: chunked' \
    --data-binary "@$TR_DIR/50mb.xlf" "$TR_API/translations/import?fileName=big.xlf"
expect_eq "50 MB chunked: 413 once past the limit" "413 urn:empty-state:problem:payload-too-large" "$STATUS $(json .type)"
fetch -X POST -H 'Content-Type: application/xliff+xml' --data-binary "@$TR_DIR/50mb.xlf" \
    "$TR_API/translations/import?fileName=big.xlf"
expect_eq "no token: 401 with the head, the body never read" "401 Bearer" "$STATUS $(header WWW-Authenticate | cut -d' ' -f1)"
rm -f "$TR_DIR/50mb.xlf"
fetch "$BASE_URL/healthz"
expect_eq "after the refusals the server serves" 200 "$STATUS"

fetch -X POST -H "$TR_AUTH" --data-binary "@$TR_DIR/fr.filled.xlf" "$TR_API/translations/import"
expect_eq "a form (curl's default type) is 415" "415 Content-Type" "$STATUS $(json '.errors[0].header')"
fetch -X POST -H "$TR_AUTH" -H 'Content-Type: application/xml' --data-binary 'not a file' \
    "$TR_API/translations/import"
expect_eq "a body of no known format: 400 naming the parameter" "400 format" "$STATUS $(json '.errors[0].parameter')"
# curl sends nothing (and only warns) for a --data-binary @FILE it cannot read: say the body is empty.
fetch -X POST -H "$TR_AUTH" -H 'Content-Type: application/xml' --data-binary "@$TR_DIR/no-such-file.xml" \
    "$TR_API/translations/import?fileName=values-fr/strings.xml" 2>/dev/null
expect_eq "an empty body (a file curl could not read): 400 saying so" \
    "400 urn:empty-state:problem:invalid-translation-file The request has no body" \
    "$STATUS $(json .type) $(json .detail | cut -d: -f1)"
