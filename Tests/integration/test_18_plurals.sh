# Plural strings (issue 36, point 7): written through the admin API (a whole document and one
# locale's strings), refused with 422 naming the field, served to old clients as the general form
# and to new ones as forms (`plurals`), chosen by the server with `param.count` (JSON and HTML),
# and staleness of translations when a form of the source changes. The scratch template is
# deleted at the end, so the other tests' counts of the catalogue are unchanged.

PL_API="$BASE_URL/v1/admin"
PL_AUTH="Authorization: Bearer $(tr -d '[:space:]' <"$WORK/data/admin-token")"
PL_DOC="$WORK/plurals-hiddenResults.json"
cat >"$PL_DOC" <<'JSON'
{
  "id": "plHiddenResults",
  "category": "noResults",
  "style": "default",
  "defaultLocale": "en",
  "visual": { "icon": { "ios": "magnifyingglass", "android": "search_off", "web": "search-x" } },
  "actions": [{ "id": "clear", "role": "primary", "type": "custom", "target": "clearFilters" }],
  "strings": {
    "en": {
      "title": "Nothing matches your filters",
      "message": { "plural": "count", "one": "One result is hidden by filters.", "other": "{count} results are hidden by filters." },
      "actions.clear": "Clear filters"
    },
    "ru": {
      "title": "Ничего не найдено",
      "message": { "plural": "count", "one": "{count} результат скрыт фильтрами.", "few": "{count} результата скрыты фильтрами.", "many": "{count} результатов скрыто фильтрами.", "other": "{count} результата скрыто фильтрами." },
      "actions.clear": "Сбросить фильтры"
    }
  }
}
JSON

# A category the locale does not have: 422 naming the field.
jq '.strings.ru.message.two = "{count} результата"' "$PL_DOC" >"$PL_DOC.bad"
fetch -X PUT -H "$PL_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
    --data-binary @"$PL_DOC.bad" "$PL_API/templates/plHiddenResults"
expect_eq "plural with a category ru lacks: 422 at the field" "422 /strings/ru/message/two" \
    "$STATUS $(json '.errors[0].pointer')"
expect_match "plural with a category ru lacks: the reason names ru's categories" \
    'ru has no plural category two .*one, few, many, other' "$(json '.errors[0].detail')"
jq 'del(.strings.en.message.other)' "$PL_DOC" >"$PL_DOC.bad"
fetch -X PUT -H "$PL_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
    --data-binary @"$PL_DOC.bad" "$PL_API/templates/plHiddenResults"
expect_eq "plural without other: 422 at the field" "422 /strings/en/message/other" \
    "$STATUS $(json '.errors[0].pointer')"

fetch -X PUT -H "$PL_AUTH" -H 'Content-Type: application/json' -H 'If-None-Match: *' \
    --data-binary @"$PL_DOC" "$PL_API/templates/plHiddenResults"
expect_eq "plural template created" 201 "$STATUS"
expect_eq "the document comes back with the plural objects as sent" \
    "$(jq -cS .strings "$PL_DOC")" "$(jq -cS .template.strings "$BODY")"

# Old clients: a plain string (the general form). New ones: the forms, to choose by the count.
fetch "$BASE_URL/v1/templates/plHiddenResults?locale=ru&platform=ios"
expect_eq "without param.count: the general form, {count} listed" \
    '200 {count} результата скрыто фильтрами. ["count"]' "$STATUS $(json .message) $(jq -c .placeholders "$BODY")"
expect_eq "without param.count: the forms, in CLDR's order" '["plural","one","few","many","other"]' \
    "$(jq -c '.plurals.message | keys_unsorted' "$BODY")"
for pl_case in "1|1 результат скрыт" "21|21 результат скрыт" "3|3 результата скрыты" "11|11 результатов" "2.5|2.5 результата скрыто"; do
    pl_count=${pl_case%%|*}
    fetch "$BASE_URL/v1/templates/plHiddenResults?locale=ru&platform=ios&param.count=$pl_count"
    expect_match "ru, param.count=$pl_count: CLDR's form" "^${pl_case#*|}" "$(json .message)"
    expect_eq "ru, param.count=$pl_count: no plurals member left" "null" "$(json .plurals)"
done
fetch "$BASE_URL/v1/templates/plHiddenResults?locale=en&platform=web&param.count=1"
expect_eq "en, param.count=1: the one form without the number" "One result is hidden by filters." "$(json .message)"
fetch "$BASE_URL/v1/templates/plHiddenResults?locale=en&platform=web&param.count=1.0"
expect_eq "en, param.count=1.0: other (a visible fraction digit)" "1.0 results are hidden by filters." "$(json .message)"
fetch "$BASE_URL/v1/templates/plHiddenResults?locale=de&platform=ios&param.count=1"
expect_eq "de falls back to en, and en's rules choose" "One result is hidden by filters." "$(json .message)"
fetch "$BASE_URL/v1/templates?locale=ru&platform=ios&param.count=22"
expect_eq "the bundle chooses too" "22 результата скрыты фильтрами." \
    "$(jq -r '.templates[] | select(.id == "plHiddenResults") | .message' "$BODY")"
fetch "$BASE_URL/v1/web/templates/plHiddenResults?locale=ru&param.count=5"
expect_match "the HTML fragment takes the form of param.count" "5 результатов скрыто фильтрами" "$(cat "$BODY")"

# One locale's strings through the admin API, plural objects included; errors relative to the body.
PL_FR='{"title":"Aucun résultat","message":{"plural":"count","one":"Un résultat est masqué.","other":"{count} résultats sont masqués."},"actions.clear":"Effacer les filtres"}'
fetch -X PUT -H "$PL_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    -d "$PL_FR" "$PL_API/templates/plHiddenResults/strings/fr"
expect_eq "fr one without the number (it holds 0, 1, 1.5): 422 at /message/one" "422 /message/one" \
    "$STATUS $(json '.errors[0].pointer')"
fetch -X PUT -H "$PL_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    -d '{"title":"Aucun résultat","message":["x"],"actions.clear":"Effacer les filtres"}' \
    "$PL_API/templates/plHiddenResults/strings/fr"
expect_eq "a value neither string nor object: 422 at /message" "422 /message" "$STATUS $(json '.errors[0].pointer')"
PL_FR=$(jq -c '.message.one = "{count} résultat est masqué."' <<<"$PL_FR")
fetch -X PUT -H "$PL_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r1"' \
    -d "$PL_FR" "$PL_API/templates/plHiddenResults/strings/fr"
expect_eq "fr plural strings written" "200 r2" "$STATUS $(json .revision | sed 's/^/r/')"
fetch "$BASE_URL/v1/templates/plHiddenResults?locale=fr&platform=ios&param.count=0"
expect_eq "fr, param.count=0: one" "0 résultat est masqué." "$(json .message)"

# A change of one form of the source makes its translations stale.
jq '.strings.en.message.one = "One result is hidden by your filters." | .strings.fr = '"$PL_FR" "$PL_DOC" >"$PL_DOC.next"
fetch -X PUT -H "$PL_AUTH" -H 'Content-Type: application/json' -H 'If-Match: "r2"' \
    --data-binary @"$PL_DOC.next" "$PL_API/templates/plHiddenResults"
expect_eq "source form changed" 200 "$STATUS"
fetch -H "$PL_AUTH" "$PL_API/locales"
expect_eq "ru and fr messages are stale after the en one form changed" "fr:message ru:message" \
    "$(jq -r '[.locales[] | .locale as $l | .stale[]? | select(.templateId == "plHiddenResults")
        | "\($l):\(.keys | join(","))"] | sort | join(" ")' "$BODY")"

# Translator files (after a second: a string written in the export's own second counts as edited
# since the export). XLIFF 2.0 carries a plural string as one unit, an ICU MessageFormat plural in
# <source> (en's forms) and <target> (ru's: one, few, many, other); the stale mark survives.
sleep 1
fetch -H "$PL_AUTH" "$PL_API/translations/export?format=xliff2&locale=ru&ids=plHiddenResults&onlyMissingOrStale=false"
expect_eq "XLIFF 2.0 export: the plural message is one unit" "200 1" \
    "$STATUS $(grep -c '<unit id="plHiddenResults.message"' "$BODY")"
expect_eq "XLIFF 2.0 export: the source as an ICU plural of en's forms" 1 \
    "$(grep -cF '<source>{count, plural, one {One result is hidden by your filters.} other {{count} results are hidden by filters.}}</source>' "$BODY")"
expect_eq "XLIFF 2.0 export: the target with ru's categories" 1 \
    "$(grep -cF '<target>{count, plural, one {{count} результат скрыт фильтрами.} few {{count} результата скрыты фильтрами.} many {{count} результатов скрыто фильтрами.} other {{count} результата скрыто фильтрами.}}</target>' "$BODY")"
expect_eq "XLIFF 2.0 export: the stale plural is marked stale" 1 \
    "$(grep -cF '<segment state="initial" subState="empty-state:stale">' "$BODY")"
cp "$BODY" "$WORK/plurals-ru.xlf"
pl_ttk='import sys
from translate.storage.xliff2 import Xliff2File
store = Xliff2File.parsestring(open(sys.argv[1], "rb").read())
unit = [u for u in store.units if u.getid() == "plHiddenResults.message"][0]
print(unit.source)
print(unit.target)'
expect_eq "translate-toolkit reads the plural unit's ICU source and target as written" \
    "$(printf '%s\n%s' '{count, plural, one {One result is hidden by your filters.} other {{count} results are hidden by filters.}}' \
        '{count, plural, one {{count} результат скрыт фильтрами.} few {{count} результата скрыты фильтрами.} many {{count} результатов скрыто фильтрами.} other {{count} результата скрыто фильтрами.}}')" \
    "$(python3 -c "$pl_ttk" "$WORK/plurals-ru.xlf" 2>&1)"

# The few form edited and the unit marked final: only that string's forms change, and the
# report names the forms imported and replaced. A dry run (the default) first.
sed -e 's|few {{count} результата скрыты фильтрами.}|few {{count} результата скрыто фильтрами.}|' \
    -e 's|<segment state="initial" subState="empty-state:stale">|<segment state="final">|' \
    "$WORK/plurals-ru.xlf" >"$WORK/plurals-ru-edited.xlf"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary @"$WORK/plurals-ru-edited.xlf" \
    "$PL_API/translations/import?fileName=ru.xlf"
expect_eq "XLIFF 2.0 dry run: the plural changed, its forms named" \
    "200 changed {count} результата скрыто фильтрами. {count} результата скрыты фильтрами. 1" \
    "$STATUS $(json '.templates[].strings[] | select(.key == "message") | [.outcome, .forms.few, .previousForms.few] | join(" ")') $(json .summary.changed)"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary @"$WORK/plurals-ru-edited.xlf" \
    "$PL_API/translations/import?fileName=ru.xlf&dryRun=false"
expect_eq "XLIFF 2.0 import: written as r4" "200 4 final" \
    "$STATUS $(json '.templates[0].revision') $(json '.templates[0].strings[] | select(.key == "message") | .review')"
fetch -H "$PL_AUTH" "$PL_API/templates/plHiddenResults"
expect_eq "the ru plural: few changed, the other forms kept" \
    '{"few":"{count} результата скрыто фильтрами.","many":"{count} результатов скрыто фильтрами.","one":"{count} результат скрыт фильтрами.","other":"{count} результата скрыто фильтрами.","plural":"count"}' \
    "$(jq -cS .template.strings.ru.message "$BODY")"
fetch -H "$PL_AUTH" "$PL_API/locales"
expect_eq "ru's message is no longer stale, fr's still is" "fr:message" \
    "$(jq -r '[.locales[] | .locale as $l | .stale[]? | select(.templateId == "plHiddenResults")
        | "\($l):\(.keys | join(","))"] | sort | join(" ")' "$BODY")"
sleep 1
fetch -H "$PL_AUTH" "$PL_API/translations/export?format=xliff2&locale=ru&ids=plHiddenResults&onlyMissingOrStale=false"
cp "$BODY" "$WORK/plurals-ru.xlf"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary @"$WORK/plurals-ru.xlf" \
    "$PL_API/translations/import?fileName=ru.xlf&dryRun=false"
expect_eq "a fresh export imported again changes nothing" "200 0 3" \
    "$STATUS $(json .summary.revisionsWritten) $(json .summary.unchanged)"

# Forms that do not fit: a category ru lacks (strict: 422, nothing written), braces left open.
sed 's|few {{count} результата скрыто фильтрами.}|two {{count} результата}|' "$WORK/plurals-ru.xlf" >"$WORK/plurals-ru-bad.xlf"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary @"$WORK/plurals-ru-bad.xlf" \
    "$PL_API/translations/import?fileName=ru.xlf&strict=true&dryRun=false"
expect_eq "strict import of a category ru lacks: 422, reason plural" "422 plural" \
    "$STATUS $(json '[.report.templates[].strings[] | select(.key == "message") | .reasons[].reason] | join(",")')"
expect_match "the reason names ru's categories" 'ru has no plural category two .*one, few, many, other' \
    "$(json '.report.templates[].strings[] | select(.key == "message") | .reasons[0].detail')"
sed 's|other {{count} результата скрыто фильтрами.}}</target>|other {{count} результата скрыто фильтрами.}</target>|' \
    "$WORK/plurals-ru.xlf" >"$WORK/plurals-ru-bad.xlf"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary @"$WORK/plurals-ru-bad.xlf" \
    "$PL_API/translations/import?fileName=ru.xlf"
expect_match "an unclosed ICU plural: 200, the string rejected with reason plural" '^200 rejected plural .*not closed' \
    "$STATUS $(json '.templates[].strings[] | select(.key == "message") | [.outcome, .reasons[0].reason, .reasons[0].detail] | join(" ")')"

# A locale new to the catalogue, with its own categories (pl: one, few, many, other).
cat >"$WORK/plurals-pl.xlf" <<'XLF'
<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="pl">
  <file id="f">
    <unit id="plHiddenResults.title"><segment state="translated"><source>Nothing matches your filters</source><target>Nic nie pasuje do filtrów</target></segment></unit>
    <unit id="plHiddenResults.message"><segment state="translated"><source>{count, plural, one {One result is hidden by your filters.} other {{count} results are hidden by filters.}}</source><target>{count, plural, one {# wynik ukryty przez filtry.} few {# wyniki ukryte przez filtry.} many {# wyników ukrytych przez filtry.} other {# wyniku ukrytego przez filtry.}}</target></segment></unit>
    <unit id="plHiddenResults.actions.clear"><segment state="translated"><source>Clear filters</source><target>Wyczyść filtry</target></segment></unit>
  </file>
</xliff>
XLF
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary @"$WORK/plurals-pl.xlf" \
    "$PL_API/translations/import?fileName=pl.xlf&createLocales=true&dryRun=false"
expect_eq "createLocales=true with a plural: pl created, written as r5" "200 created 5 new" \
    "$STATUS $(json '.documents[0].locale.match') $(json '.templates[0].revision') $(json '.templates[0].strings[1].outcome')"
fetch "$BASE_URL/v1/templates/plHiddenResults?locale=pl&platform=ios&param.count=22"
expect_eq "pl, param.count=22: few, # read as the number" "22 wyniki ukryte przez filtry." "$(json .message)"

# String Catalog: variations.plural per locale, each of its categories a stringUnit (as Xcode
# writes it), every locale in one file. Python's json reads it; a changed pl form, edited as JSON,
# is the one string the import changes.
sleep 1
fetch -H "$PL_AUTH" "$PL_API/translations/export?format=xcstrings&ids=plHiddenResults"
cp "$BODY" "$WORK/plurals.xcstrings"
expect_eq "String Catalog: the plural's categories per locale, each a stringUnit" \
    "en:one,other pl:few,many,one,other ru:few,many,one,other fr:one,other" \
    "$(python3 -c 'import json, sys
entry = json.load(open(sys.argv[1]))["strings"]["plHiddenResults/message"]["localizations"]
out = []
for locale in ["en", "pl", "ru", "fr"]:
    forms = entry[locale].get("variations", {}).get("plural")
    out.append(locale + ":" + ",".join(forms) if forms else locale + ":other")
    assert all(set(f) == {"stringUnit"} and set(f["stringUnit"]) == {"state", "value"} for f in (forms or {}).values())
print(" ".join(out))' "$WORK/plurals.xcstrings" 2>&1)"
expect_eq "String Catalog: the stale fr plural is needs_review in each form" "needs_review needs_review" \
    "$(jq -r '[.strings["plHiddenResults/message"].localizations.fr.variations.plural[].stringUnit.state] | join(" ")' "$WORK/plurals.xcstrings")"
jq '.strings["plHiddenResults/message"].localizations.pl.variations.plural.many.stringUnit.value = "{count} wyników jest ukrytych."' \
    "$WORK/plurals.xcstrings" >"$WORK/plurals-edited.xcstrings"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/json' --data-binary @"$WORK/plurals-edited.xcstrings" \
    "$PL_API/translations/import?fileName=Localizable.xcstrings&dryRun=false"
expect_eq "String Catalog import: one plural changed, written as r6" "200 1 6 pl:message:changed" \
    "$STATUS $(json .summary.changed) $(json '.templates[0].revision') $(json '[.templates[0].strings[] | select(.outcome == "changed") | "\(.locale):\(.key):\(.outcome)"] | join(" ")')"
fetch "$BASE_URL/v1/templates/plHiddenResults?locale=pl&platform=ios&param.count=5"
expect_eq "pl, param.count=5: the imported many form" "5 wyników jest ukrytych." "$(json .message)"
fetch -H "$PL_AUTH" "$PL_API/translations/export?format=xcstrings&ids=plHiddenResults"
expect_eq "String Catalog: the next export holds what was imported, member for member" "" \
    "$(jq -S . "$BODY" | diff - <(jq -S '.strings["empty-state-service export"] = (input | .strings["empty-state-service export"])' "$WORK/plurals-edited.xcstrings" "$BODY") | head -5)"

# Android: <plurals> with an <item quantity> per category of the file's locale, placeholders as in
# <string>. ElementTree reads the items; translate-toolkit's Android reader takes it as a plural.
sleep 1
fetch -H "$PL_AUTH" "$PL_API/translations/export?format=android&locale=pl&ids=plHiddenResults"
python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], "wb").write(z.read("values-pl/strings.xml")); open(sys.argv[3], "wb").write(z.read("values/strings.xml"))' \
    "$BODY" "$WORK/plurals-pl.xml" "$WORK/plurals-en.xml"
expect_eq "Android: <plurals> per file, an item per category of its locale" \
    "values: one,other values-pl: one,few,many,other" \
    "$(python3 -c 'import sys, xml.etree.ElementTree as ET
out = []
for name, path in (("values", sys.argv[1]), ("values-pl", sys.argv[2])):
    plurals = [p for p in ET.parse(path).getroot().iter("plurals") if p.get("name").endswith("__message")]
    out.append(name + ": " + ",".join(i.get("quantity") for i in plurals[0].iter("item")))
print(" ".join(out))' "$WORK/plurals-en.xml" "$WORK/plurals-pl.xml" 2>&1)"
expect_eq "Android: translate-toolkit reads the pl <plurals> as one plural unit" "True 1" \
    "$(python3 -c 'import sys
from translate.storage import aresource
store = aresource.AndroidResourceFile.parsefile(sys.argv[1])
units = [u for u in store.units if u.getid().endswith("__message")]
print(units[0].hasplural() or len(units[0].target.strings) > 1, len(units))' "$WORK/plurals-pl.xml" 2>&1)"
sed 's|%1$s</xliff:g> wyniki ukryte przez filtry.|%1$s</xliff:g> wyniki są ukryte.|' "$WORK/plurals-pl.xml" >"$WORK/plurals-pl-edited.xml"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xml' --data-binary @"$WORK/plurals-pl-edited.xml" \
    "$PL_API/translations/import?format=android&fileName=values-pl/strings.xml&dryRun=false"
expect_eq "Android import: the few item changed, written as r7" "200 1 7 {count} wyniki są ukryte." \
    "$STATUS $(json .summary.changed) $(json '.templates[0].revision') $(json '.templates[0].strings[] | select(.key == "message") | .forms.few')"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xml' --data-binary @"$WORK/plurals-pl-edited.xml" \
    "$PL_API/translations/import?format=android&fileName=values-pl/strings.xml"
expect_eq "Android: the same file again changes nothing" "200 0 3" \
    "$STATUS $(json .summary.changed) $(json .summary.unchanged)"

# XLIFF 1.2: translate-toolkit's gettext plural group (restype x-gettext-plurals), a trans-unit per
# category of the target locale ([0] one, [1] few…); translate-toolkit's poxliff reads it as one
# plural unit, as Weblate does.
sleep 1
fetch -H "$PL_AUTH" "$PL_API/translations/export?format=xliff12&locale=ru&ids=plHiddenResults"
cp "$BODY" "$WORK/plurals-ru.xliff"
expect_eq "XLIFF 1.2 export: a plural group with ru's four forms" "1 one,few,many,other" \
    "$(grep -c '<group id="plHiddenResults/message" restype="x-gettext-plurals">' "$WORK/plurals-ru.xliff") $(python3 -c 'import sys, xml.etree.ElementTree as ET
ns = {"x": "urn:oasis:names:tc:xliff:document:1.2"}
group = [g for g in ET.parse(sys.argv[1]).getroot().iter("{urn:oasis:names:tc:xliff:document:1.2}group")][0]
print(",".join(u.get("resname") for u in group.findall("x:trans-unit", ns)))' "$WORK/plurals-ru.xliff" 2>&1)"
expect_eq "translate-toolkit's poxliff reads one plural unit with ru's four targets" \
    "True 4 результатов скрыто фильтрами." \
    "$(python3 -c 'import sys
from translate.storage import poxliff
store = poxliff.PoXliffFile.parsestring(open(sys.argv[1], "rb").read())
unit = [u for u in store.units if u.hasplural()][0]
print(unit.hasplural(), len(unit.target.strings), unit.target.strings[2].strip())' "$WORK/plurals-ru.xliff" 2>&1)"
sed 's|результат скрыт фильтрами.</target>|результат скрыт вашими фильтрами.</target>|' "$WORK/plurals-ru.xliff" >"$WORK/plurals-ru-edited.xliff"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary @"$WORK/plurals-ru-edited.xliff" \
    "$PL_API/translations/import?fileName=ru.xliff&dryRun=false"
expect_eq "XLIFF 1.2 import: the one form changed, written as r8" "200 1 8 {count} результат скрыт вашими фильтрами." \
    "$STATUS $(json .summary.changed) $(json '.templates[0].revision') $(json '.templates[0].strings[] | select(.key == "message") | .forms.one')"
sed -e 's|resname="few"|resname="two"|' -e 's|вашими фильтрами|фильтрами|' "$WORK/plurals-ru-edited.xliff" >"$WORK/plurals-ru-bad.xliff"
fetch -X POST -H "$PL_AUTH" -H 'Content-Type: application/xliff+xml' --data-binary @"$WORK/plurals-ru-bad.xliff" \
    "$PL_API/translations/import?fileName=ru.xliff&strict=true&dryRun=false"
expect_eq "XLIFF 1.2, strict, a category ru lacks: 422, reason plural" "422 plural" \
    "$STATUS $(json '[.report.templates[].strings[] | select(.key == "message") | .reasons[].reason] | join(",")')"

fetch -X DELETE -H "$PL_AUTH" -H 'If-Match: "r8"' "$PL_API/templates/plHiddenResults"
expect_eq "plural template deleted" 204 "$STATUS"
