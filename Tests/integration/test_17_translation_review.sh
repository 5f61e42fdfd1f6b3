# Translator files without silent surprises (issue 36), as a localization manager meets them, on
# both stores: the suite's server (SQLite), then a server of its own on a throwaway PostgreSQL
# (scripts/postgres.sh). Each run, on a template of its own:
# - an older String Catalog, even re-saved in Xcode's layout, does not undo a newer edit;
# - a file's locale is matched with the catalogue's (fr-FR → fr, fre → fr, iw → he), the dry run
#   says how; a locale it does not have is refused with 422 naming it, or created when asked;
# - strict=true fails a file with one refused string as a whole (422 with the report), nothing
#   written; without it the accepted strings are written, as before;
# - a stale translation confirmed in a file (XLIFF 2.0 `final`, text unchanged) is no longer stale,
#   comes back `final` and `approved="yes"` in XLIFF 1.2, and loses its Android stale marker;
# - Android's <xliff:g> carries the template's example;
# - a plural string's changed form imports from XLIFF 2.0 and exports as variations.plural.
# Sourced by run.sh (uses BASE_URL, WORK, ROOT, BIN and lib.sh).

# tr17_import BASE AUTH FILE QUERY [TYPE]: POSTs FILE to the import route; sets STATUS, BODY.
tr17_import() {
    fetch -X POST -H "$2" -H "Content-Type: ${5:-application/xliff+xml}" --data-binary "@$3" \
        "$1/v1/admin/translations/import?$4"
}

# tr17_revision BASE AUTH ID: the template's current revision.
tr17_revision() {
    curl -s -H "$2" "$1/v1/admin/templates/$3" | jq -r .revision
}

# tr17_set_fr_title BASE AUTH ID TEXT: the French title through the admin API, as an editor does.
tr17_set_fr_title() {
    fetch -H "$2" "$1/v1/admin/templates/$3"
    local etag
    etag=$(header ETag)
    jq --arg t "$4" '.template.strings.fr | .title = $t' "$BODY" >"$TR17_DIR/fr-strings.json"
    fetch -X PUT -H "$2" -H 'Content-Type: application/json' -H "If-Match: $etag" \
        --data-binary "@$TR17_DIR/fr-strings.json" "$1/v1/admin/templates/$3/strings/fr"
}

# tr17_checks BASE TOKEN_FILE STORE: every check, against the server at BASE.
tr17_checks() {
    local base=$1 store=$3
    local auth
    auth="Authorization: Bearer $(tr -d '[:space:]' <"$2")"
    local api="$base/v1/admin"
    local id="review${store}"
    TR17_DIR="$WORK/tr17-$store"
    mkdir -p "$TR17_DIR"

    # A template in English, French and German, with an example of {provider}.
    jq --arg id "$id" '.id = $id | del(.aliases) | .strings = {en: .strings.en, fr: .strings.fr, de: .strings.de}
        | .examples = {provider: "BankID"}' \
        "$ROOT/config/templates/verifyIdentity.json" >"$TR17_DIR/template.json"
    fetch -X PUT -H "$auth" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
        --data-binary "@$TR17_DIR/template.json" "$api/templates/$id"
    expect_eq "[$store] a template with an example of {provider} is created" 201 "$STATUS"
    expect_eq "[$store] the example is part of the document" BankID \
        "$(curl -s -H "$auth" "$api/templates/$id" | jq -r .template.examples.provider)"

    # --- String Catalogs protect newer edits like every other format ------------------------------

    fetch -H "$auth" "$api/translations/export?format=xcstrings&locale=fr&ids=$id"
    expect_eq "[$store] xcstrings: the export record says when" "false manual" \
        "$(json '.strings["empty-state-service export"] | "\(.shouldTranslate) \(.extractionState)"')"
    # The translator's copy: the French title changed, then saved by Xcode (its own layout: ` : `,
    # keys sorted, the record wherever it sorts).
    python3 - "$BODY" "$TR17_DIR/old.xcstrings" "$id" <<'PY'
import json, sys
catalog = json.load(open(sys.argv[1], encoding="utf-8"))
catalog["strings"][sys.argv[3] + "/title"]["localizations"]["fr"]["stringUnit"]["value"] = "Prouvez qui vous êtes"
with open(sys.argv[2], "w", encoding="utf-8") as out:
    json.dump(catalog, out, ensure_ascii=False, indent=2, separators=(",", " : "), sort_keys=True)
PY
    tr17_set_fr_title "$base" "$auth" "$id" "Identifiez-vous"
    expect_eq "[$store] xcstrings: an editor changes the French title after the export" 200 "$STATUS"
    tr17_import "$base" "$auth" "$TR17_DIR/old.xcstrings" "fileName=Localizable.xcstrings&dryRun=false" \
        application/json
    expect_eq "[$store] xcstrings: the older file is refused for that string, nothing written" \
        "200 changedSinceExport 0" \
        "$STATUS $(json '.templates[0].strings[] | select(.locale == "fr" and .key == "title") | .reasons[0].reason') $(json .summary.revisionsWritten)"
    expect_match "[$store] xcstrings: the report says when each happened" "after the export at" \
        "$(json '.templates[0].strings[] | select(.locale == "fr" and .key == "title") | .reasons[0].detail')"
    fetch "$base/v1/templates/$id?locale=fr"
    expect_eq "[$store] xcstrings: the editor's text is served" "Identifiez-vous" "$(json .title)"

    # --- Locale resolution -------------------------------------------------------------------------

    # Times are whole seconds, and an edit in the export's own second counts as after it: a
    # translator's export comes later than the edits before it.
    sleep 1.1
    fetch -H "$auth" "$api/translations/export?format=xliff2&locale=fr&ids=$id"
    cp "$BODY" "$TR17_DIR/fr.xlf"
    local tag match into
    for tag in "fr-FR nearest fr" "fre alias fr" "fra alias fr" "FR exact fr"; do
        read -r tag match into <<<"$tag"
        sed "s/trgLang=\"fr\"/trgLang=\"$tag\"/" "$TR17_DIR/fr.xlf" >"$TR17_DIR/as-$tag.xlf"
        tr17_import "$base" "$auth" "$TR17_DIR/as-$tag.xlf" "fileName=$tag.xlf"
        expect_eq "[$store] locale: $tag is imported into $into ($match), said in the dry run" \
            "200 $into $match" "$STATUS $(json '.documents[0] | "\(.locale.locale) \(.locale.match)"')"
    done
    expect_match "[$store] locale: the dry run says why in words" "the catalogue has fr and not fr-FR" \
        "$(tr17_import "$base" "$auth" "$TR17_DIR/as-fr-FR.xlf" "fileName=x.xlf" && json '.documents[0].locale.detail')"
    for tag in qq xx-Latn; do
        sed "s/trgLang=\"fr\"/trgLang=\"$tag\"/" "$TR17_DIR/fr.xlf" >"$TR17_DIR/as-$tag.xlf"
        tr17_import "$base" "$auth" "$TR17_DIR/as-$tag.xlf" "fileName=$tag.xlf&dryRun=false"
        expect_eq "[$store] locale: $tag is refused with 422 naming it" \
            "422 urn:empty-state:problem:unknown-locale createLocales" \
            "$STATUS $(json .type) $(json '.errors[0].parameter')"
        expect_match "[$store] locale: the 422 for $tag names it and the catalogue's locales" "$tag, which the catalogue does not have .*fr" \
            "$(json .detail)"
    done
    expect_eq "[$store] locale: nothing of qq was written" "null" \
        "$(curl -s -H "$auth" "$api/templates/$id" | jq -c '.template.strings.qq')"
    tr17_import "$base" "$auth" "$TR17_DIR/as-qq.xlf" "fileName=qq.xlf&createLocales=true"
    expect_eq "[$store] locale: createLocales=true takes qq as a new locale (dry run)" "200 qq created" \
        "$STATUS $(json '.documents[0].locale | "\(.locale) \(.match)"')"

    # --- strict=true --------------------------------------------------------------------------------

    python3 - "$TR17_DIR/fr.xlf" "$TR17_DIR/fr-mixed.xlf" <<'PY'
import sys
import xml.etree.ElementTree as ET
NS = "urn:oasis:names:tc:xliff:document:2.0"
ET.register_namespace("", NS)
ET.register_namespace("mda", "urn:oasis:names:tc:xliff:metadata:2.0")
tree = ET.parse(sys.argv[1])
for unit in tree.iter(f"{{{NS}}}unit"):
    target = unit.find(f"{{{NS}}}segment/{{{NS}}}target")
    if unit.get("id").endswith(".message"):
        # The placeholder dropped: refused.
        for child in list(target):
            target.remove(child)
        target.text = "Continuez sans fournisseur."
    elif unit.get("id").endswith(".actions.verify"):
        # A good change, with its placeholder.
        target.text = "Confirmer avec "
tree.write(sys.argv[2], encoding="UTF-8", xml_declaration=True)
PY
    local before
    before=$(tr17_revision "$base" "$auth" "$id")
    tr17_import "$base" "$auth" "$TR17_DIR/fr-mixed.xlf" "fileName=fr.xlf&dryRun=false&strict=true"
    expect_eq "[$store] strict: one refused string fails the import: 422" \
        "422 urn:empty-state:problem:translation-strings-rejected" "$STATUS $(json .type)"
    expect_eq "[$store] strict: the body carries the report, string by string" "true 1 placeholders" \
        "$(json '.report.strict') $(json .report.summary.rejected) $(json '.report.templates[0].strings[] | select(.key == "message") | .reasons[0].reason')"
    expect_match "[$store] strict: each refusal is an error of the problem" "$id/message \\(fr\\): placeholders" \
        "$(json '.errors[0].detail')"
    expect_eq "[$store] strict: nothing written" "$before" "$(tr17_revision "$base" "$auth" "$id")"
    tr17_import "$base" "$auth" "$TR17_DIR/fr-mixed.xlf" "fileName=fr.xlf&dryRun=false"
    expect_eq "[$store] not strict (the default): the accepted string is written, the refusal reported" \
        "200 1 1 changed" \
        "$STATUS $(json .summary.rejected) $(json .summary.revisionsWritten) $(json '.templates[0].strings[] | select(.key == "actions.verify") | .outcome')"

    # --- Review states ------------------------------------------------------------------------------

    fetch -H "$auth" "$api/templates/$id"
    json '.template.strings.en | .title = "Confirm who you are"' >"$TR17_DIR/en.json"
    fetch -X PUT -H "$auth" -H 'Content-Type: application/json' -H "If-Match: $(header ETag)" \
        --data-binary "@$TR17_DIR/en.json" "$api/templates/$id/strings/en"
    expect_eq "[$store] review: the English title changes" 200 "$STATUS"
    fetch -H "$auth" "$api/translations/export?format=android&locale=fr&ids=$id"
    python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("values-fr/strings.xml"))' \
        "$BODY" >"$TR17_DIR/values-fr.xml"
    expect_eq "[$store] Android: the stale French title has the marker right above it" "${id}__title" \
        "$(python3 -c '
import sys
from lxml import etree
previous, marked = None, []
for child in etree.parse(sys.argv[1]).getroot():
    if not isinstance(child, etree._Comment) and previous is not None and "needs review" in previous.text:
        marked.append(child.get("name"))
    previous = child
print(" ".join(marked))' "$TR17_DIR/values-fr.xml")"
    expect_match "[$store] Android: <xliff:g> carries the template's example" \
        '<xliff:g id="provider" example="BankID">%1\$s</xliff:g>' "$(cat "$TR17_DIR/values-fr.xml")"

    fetch -H "$auth" "$api/translations/export?format=xliff2&locale=fr&ids=$id"
    expect_match "[$store] review: the stale title is exported stale" 'subState="empty-state:stale"' "$(cat "$BODY")"
    # The reviewer keeps the French title as it is and marks it final.
    python3 - "$BODY" "$TR17_DIR/fr-final.xlf" "$id" <<'PY'
import sys
import xml.etree.ElementTree as ET
NS = "urn:oasis:names:tc:xliff:document:2.0"
ET.register_namespace("", NS)
ET.register_namespace("mda", "urn:oasis:names:tc:xliff:metadata:2.0")
tree = ET.parse(sys.argv[1])
for unit in tree.iter(f"{{{NS}}}unit"):
    if unit.get("id") == sys.argv[3] + ".title":
        segment = unit.find(f"{{{NS}}}segment")
        segment.set("state", "final")
        segment.attrib.pop("subState", None)
tree.write(sys.argv[2], encoding="UTF-8", xml_declaration=True)
PY
    before=$(tr17_revision "$base" "$auth" "$id")
    tr17_import "$base" "$auth" "$TR17_DIR/fr-final.xlf" "fileName=fr-final.xlf&dryRun=false"
    expect_eq "[$store] review: final on the unchanged text confirms it, in a revision of its own" \
        "200 confirmed final 1 $((before + 1))" \
        "$STATUS $(json '.templates[0].strings[] | select(.key == "title") | "\(.outcome) \(.review)"') $(json .summary.confirmed) $(tr17_revision "$base" "$auth" "$id")"
    fetch -H "$auth" "$api/locales"
    expect_eq "[$store] review: the French title is no longer stale" "" \
        "$(json '.locales[] | select(.locale == "fr") | .stale[]? | select(.templateId == "'"$id"'") | .keys | join(",")')"
    fetch "$base/v1/templates/$id?locale=fr"
    expect_eq "[$store] review: the text is the one the reviewer saw" "Identifiez-vous" "$(json .title)"
    tr17_import "$base" "$auth" "$TR17_DIR/fr-final.xlf" "fileName=fr-final.xlf&dryRun=false"
    expect_eq "[$store] review: the same file again changes nothing" "0 0" \
        "$(json .summary.confirmed) $(json .summary.revisionsWritten)"
    fetch -H "$auth" "$api/translations/export?format=xliff12&locale=fr&ids=$id"
    expect_eq "[$store] review: XLIFF 1.2 says approved=\"yes\" and final for it" "yes final" \
        "$(python3 -c '
import sys
from lxml import etree
ns = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
unit = etree.parse(sys.argv[1]).find(".//x:trans-unit[@id=\"" + sys.argv[2] + "/title\"]", ns)
print(unit.get("approved"), unit.find("x:target", ns).get("state"))' "$BODY" "$id")"
    fetch -H "$auth" "$api/translations/export?format=xliff2&locale=fr&ids=$id"
    expect_eq "[$store] review: XLIFF 2.0 says final" final \
        "$(python3 -c '
import sys
from lxml import etree
ns = {"x": "urn:oasis:names:tc:xliff:document:2.0"}
unit = etree.parse(sys.argv[1]).find(".//x:unit[@id=\"" + sys.argv[2] + ".title\"]", ns)
print(unit.find("x:segment", ns).get("state"))' "$BODY" "$id")"
    fetch -H "$auth" "$api/translations/export?format=android&locale=fr&ids=$id"
    expect_eq "[$store] Android: the confirmed title has no stale marker" 0 \
        "$(python3 -c 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("values-fr/strings.xml").decode().count("needs review"))' "$BODY")"
    # An edit of the text makes it a plain translation again.
    tr17_set_fr_title "$base" "$auth" "$id" "Qui êtes-vous ?"
    fetch -H "$auth" "$api/translations/export?format=xliff12&locale=fr&ids=$id"
    expect_match "[$store] review: an edit resets it to translated (no approved)" \
        "<trans-unit id=\"$id/title\">" "$(cat "$BODY")"

    # --- Plural strings through a file, on this store (test_18_plurals.sh has each format) --------
    local pid="plural${store}"
    jq -n --arg id "$pid" '{id: $id, category: "noResults", style: "default", defaultLocale: "en",
        visual: {icon: {ios: "magnifyingglass", android: "search_off", web: "search-x"}},
        actions: [{id: "clear", role: "primary", type: "custom", target: "clearFilters"}],
        strings: {
          en: {title: "Nothing found", message: {plural: "count", one: "One result is hidden.", other: "{count} results are hidden."}, "actions.clear": "Clear filters"},
          fr: {title: "Rien trouvé", message: {plural: "count", one: "{count} résultat masqué.", other: "{count} résultats masqués."}, "actions.clear": "Effacer les filtres"}}}' \
        >"$TR17_DIR/plural.json"
    fetch -X PUT -H "$auth" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
        --data-binary "@$TR17_DIR/plural.json" "$api/templates/$pid"
    expect_eq "[$store] plural: template created" 201 "$STATUS"
    sleep 1
    fetch -H "$auth" "$api/translations/export?format=xliff2&locale=fr&ids=$pid"
    sed 's|one {{count} résultat masqué.}|one {{count} seul résultat masqué.}|' "$BODY" >"$TR17_DIR/plural-fr.xlf"
    tr17_import "$base" "$auth" "$TR17_DIR/plural-fr.xlf" "fileName=fr.xlf&dryRun=false"
    expect_eq "[$store] plural: an XLIFF 2.0 import writes the changed form alone" \
        '200 2 {"one":"{count} seul résultat masqué.","other":"{count} résultats masqués.","plural":"count"}' \
        "$STATUS $(json '.templates[0].revision') $(curl -s -H "$auth" "$api/templates/$pid" | jq -cS .template.strings.fr.message)"
    fetch -H "$auth" "$api/translations/export?format=xcstrings&locale=fr&ids=$pid"
    expect_eq "[$store] plural: the String Catalog has it as variations.plural" "{count} seul résultat masqué." \
        "$(json '.strings["'"$pid"'/message"].localizations.fr.variations.plural.one.stringUnit.value')"
    fetch -X DELETE -H "$auth" -H 'If-Match: "r2"' "$api/templates/$pid"
    expect_eq "[$store] plural: template deleted (the suite's counts stay as they were)" 204 "$STATUS"
}

tr17_checks "$BASE_URL" "$WORK/data/admin-token" sqlite

# The same on PostgreSQL, on a server of its own.
TR17_PG="$WORK/tr17-pg"
TR17_PID=""
# tr17_cleanup: stops that server and PostgreSQL (run.sh's EXIT trap calls it too).
tr17_cleanup() {
    [ -n "$TR17_PID" ] && kill -9 "$TR17_PID" 2>/dev/null
    [ -d "$TR17_PG" ] && bash "$ROOT/scripts/postgres.sh" stop "$TR17_PG"
    TR17_PID=""
    return 0
}
if ! TR17_DB=$(bash "$ROOT/scripts/postgres.sh" start "$TR17_PG"); then
    fail "translation review: a throwaway PostgreSQL starts" "scripts/postgres.sh start failed"
else
    "$BIN" --host 127.0.0.1 --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
        --data-dir "$WORK/tr17-data" --database-url "$TR17_DB" --log-level notice 2>"$WORK/tr17.log" &
    TR17_PID=$!
    TR17_PORT=""
    for _ in $(seq 1 300); do
        TR17_PORT=$(grep -o 'http.port=[0-9]*' "$WORK/tr17.log" | head -n 1 | cut -d= -f2)
        [ -n "$TR17_PORT" ] && break
        sleep 0.1
    done
    if [ -z "$TR17_PORT" ]; then
        fail "translation review: a server on PostgreSQL starts" "$(tail -n 3 "$WORK/tr17.log")"
    else
        tr17_checks "http://127.0.0.1:$TR17_PORT" "$WORK/tr17-data/admin-token" postgres
    fi
    kill -TERM "$TR17_PID" 2>/dev/null && wait "$TR17_PID"
    TR17_PID=""
    tr17_cleanup
fi
