#!/usr/bin/env python3
"""Reads the service's translation files with independent readers, and writes some back.

Usage: check_interop.py DIR

DIR holds what the fixture writer (`translation-fixtures DIR`, Tests/TranslationFixtureWriter)
wrote: XLIFF 2.0 and 1.2, String Catalogs and Android res/ trees, and expected.json (the model
each file stands for).

- lxml parses every XML file strictly (no entities resolved, no network), and the model is
  rebuilt from the elements: ids, sources and targets with their placeholders, states, notes.
- translate-toolkit reads XLIFF 1.2 through factory.getobject and XLIFF 2.0 through
  Xliff2File.parsestring; its known gaps (the 2.0 class returns no notes) are reported, not
  counted as failures.
- Android strings are decoded by this script's own implementation of aapt2's rules (trim,
  escapes, quotes, whitespace collapse, <xliff:g>, %%), independent of the Swift reader; each
  <xliff:g> carries the template's example of its placeholder (`example=`), and a stale
  translation has the stale-marker comment right above it, which translate-toolkit's Android
  reader (the one Weblate and Pootle use) returns as the string's note and keeps when it saves.
- The String Catalogs are read with json, the export record (the export time an import compares
  with later edits) included.
- Plural strings (DIR/plurals/, Russian from English): XLIFF 2.0's ICU messages through lxml and
  translate-toolkit, XLIFF 1.2's gettext plural groups through lxml and translate-toolkit's
  poxliff (one plural unit, a form per Russian category), the String Catalog's
  variations.plural through json, Android's <plurals> items by the same aapt2 rules.
- translate-toolkit then saves each XLIFF file again, once as read and once with a translation
  added through its API, into DIR/toolkit/, for TranslationInteropTests/readToolkitOutput.

Exits 1 when a reader found something other than the model.
"""

import json
import re
import sys
from pathlib import Path

from lxml import etree
from translate.storage import aresource, factory, poxliff, xliff2

XLIFF2 = "urn:oasis:names:tc:xliff:document:2.0"
XLIFF12 = "urn:oasis:names:tc:xliff:document:1.2"
MDA = "urn:oasis:names:tc:xliff:metadata:2.0"
STALE = "empty-state:stale"
ANDROID_STALE = "needs review: its source changed after this translation was written"
CATALOG_EXPORT_KEY = "empty-state-service export"
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]{0,31})\}")
NMTOKEN = re.compile(r"^[\w.\-:]+$")
ASCII_SPACE = " \t\n\r\x0b\x0c"

failures = []
notes_seen = []


def check(condition, message):
    if not condition:
        failures.append(message)


def parse(path):
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.parse(str(path), parser).getroot()


def placeholder_order(source, target):
    """The positional order the Android files use: the source's names sorted, then the target's others."""
    names = set(PLACEHOLDER.findall(source or ""))
    extra = set(PLACEHOLDER.findall(target or "")) - names
    return sorted(names) + sorted(extra)


# XLIFF 2.0 ------------------------------------------------------------------------------------

def inline_2(element):
    parts = [element.text or ""]
    for child in element:
        tag = etree.QName(child).localname
        if tag == "ph":
            check(child.get("disp") == child.get("equiv"), f"<ph> disp and equiv differ: {child.attrib}")
            parts.append(child.get("disp"))
        elif tag == "cp":
            parts.append(chr(int(child.get("hex"), 16)))
        else:
            failures.append(f"unexpected inline <{tag}>")
        parts.append(child.tail or "")
    return "".join(parts)


def read_xliff2_lxml(path):
    root = parse(path)
    check(root.tag == f"{{{XLIFF2}}}xliff" and root.get("version") == "2.0", f"{path}: root {root.tag}")
    meta = root.find(f".//{{{MDA}}}meta[@type='exportedAt']")
    units = []
    for unit in root.iter(f"{{{XLIFF2}}}unit"):
        check(NMTOKEN.match(unit.get("id")) is not None, f"{path}: unit id {unit.get('id')} is not an NMTOKEN")
        segments = unit.findall(f"{{{XLIFF2}}}segment")
        check(len(segments) == 1, f"{path}: {len(segments)} segments")
        segment = segments[0]
        target = segment.find(f"{{{XLIFF2}}}target")
        state = segment.get("state")
        if state == "initial":
            state = "stale" if segment.get("subState") == STALE else "missing"
        units.append({
            "id": unit.get("name"),
            "tokenId": unit.get("id"),
            "source": inline_2(segment.find(f"{{{XLIFF2}}}source")),
            "target": None if target is None else inline_2(target),
            "state": state,
            "notes": [note.text or "" for note in unit.findall(f"{{{XLIFF2}}}notes/{{{XLIFF2}}}note")],
        })
    header = {"sourceLocale": root.get("srcLang"), "targetLocale": root.get("trgLang"),
              "exportedAt": None if meta is None else meta.text}
    return header, units


# XLIFF 1.2 ------------------------------------------------------------------------------------

def inline_12(element):
    parts = [element.text or ""]
    for child in element:
        tag = etree.QName(child).localname
        if tag == "x" and child.get("ctype") == "x-codepoint":
            parts.append(chr(int(child.get("id")[3:].split("-")[0], 16)))
        elif tag == "x":
            parts.append(child.get("equiv-text"))
        else:
            failures.append(f"unexpected inline <{tag}>")
        parts.append(child.tail or "")
    return "".join(parts)


STATES_12 = {"translated": "translated", "signed-off": "reviewed", "final": "final",
             "needs-review-translation": "stale", "needs-translation": "missing"}


def read_xliff12_lxml(path):
    root = parse(path)
    check(root.tag == f"{{{XLIFF12}}}xliff" and root.get("version") == "1.2", f"{path}: root {root.tag}")
    file = root.find(f"{{{XLIFF12}}}file")
    units = []
    for unit in root.iter(f"{{{XLIFF12}}}trans-unit"):
        target = unit.find(f"{{{XLIFF12}}}target")
        approved = unit.get("approved") == "yes"
        state = "missing" if target is None else STATES_12[target.get("state")]
        check(approved == (state in ("reviewed", "final")), f"{path} {unit.get('id')}: approved={approved} for {state}")
        units.append({
            "id": unit.get("id"),
            "source": inline_12(unit.find(f"{{{XLIFF12}}}source")),
            "target": None if target is None else inline_12(target),
            "state": state,
            "notes": [note.text or "" for note in unit.findall(f"{{{XLIFF12}}}note")],
        })
    header = {"sourceLocale": file.get("source-language"), "targetLocale": file.get("target-language"),
              "exportedAt": file.get("date")}
    return header, units


# translate-toolkit -----------------------------------------------------------------------------

def rich_text(rich):
    """translate-toolkit's rich view of a source or target, placeholders back as {name}."""
    parts = []

    def walk(element):
        if isinstance(element, str):
            parts.append(element)
            return
        node = getattr(element, "xml_node", None)
        attributes = dict(node.attrib) if node is not None else dict(getattr(element, "xml_attrib", None) or {})
        if "hex" in attributes:
            parts.append(chr(int(attributes["hex"], 16)))
        elif attributes.get("ctype") == "x-codepoint":
            parts.append(chr(int(attributes["id"][3:].split("-")[0], 16)))
        elif attributes:
            marker = attributes.get("disp") or attributes.get("equiv-text") or "{" + attributes["id"].split("-")[0] + "}"
            parts.append(marker)
        for child in element.sub:
            walk(child)

    for element in rich:
        walk(element)
    return "".join(parts)


def check_toolkit_12(path, expected, name):
    store = factory.getobject(str(path))
    units = store.units
    check(len(units) == len(expected["units"]), f"translate-toolkit 1.2 {name}: {len(units)} units")
    for unit, want in zip(units, expected["units"]):
        where = f"translate-toolkit 1.2 {name} {want['id']}"
        check(unit.getid().split("\x04")[-1] == want["id"], f"{where}: id {unit.getid()!r}")
        check(rich_text(unit.rich_source) == want["source"], f"{where}: source {rich_text(unit.rich_source)!r}")
        if want["target"] is None:
            check(unit.target is None, f"{where}: target {unit.target!r}")
        else:
            check(rich_text(unit.rich_target) == want["target"], f"{where}: target {rich_text(unit.rich_target)!r}")
        check(unit.getnotes() == "\n".join(want["notes"]), f"{where}: notes {unit.getnotes()!r}")
        check(unit.isapproved() == (want["state"] in ("reviewed", "final")), f"{where}: isapproved {unit.isapproved()}")
        # translate-toolkit reads an empty target as untranslated, never fuzzy.
        fuzzy = bool(want["target"]) and want["state"] not in ("reviewed", "final")
        check(unit.isfuzzy() == fuzzy, f"{where}: isfuzzy {unit.isfuzzy()} for {want['state']}")


def check_toolkit_2(path, expected, name):
    store = xliff2.Xliff2File.parsestring(path.read_bytes())
    units = store.units
    check(len(units) == len(expected["units"]), f"translate-toolkit 2.0 {name}: {len(units)} units")
    notes = 0
    for unit, want in zip(units, expected["units"]):
        where = f"translate-toolkit 2.0 {name} {want['id']}"
        check(unit.getid() == want["tokenId"], f"{where}: id {unit.getid()!r}")
        check(rich_text(unit.rich_source) == want["source"], f"{where}: source {rich_text(unit.rich_source)!r}")
        if want["target"] is None:
            check(unit.target is None, f"{where}: target {unit.target!r}")
        else:
            check(rich_text(unit.rich_target) == want["target"], f"{where}: target {rich_text(unit.rich_target)!r}")
        notes += bool(unit.getnotes())
    notes_seen.append(f"translate-toolkit 2.0 {name}: notes returned for {notes} of {len(units)} units (known gap)")


def resave_with_toolkit(directory, name, expected):
    """Saves each XLIFF file again through translate-toolkit, as read and with one translation added."""
    index = next(i for i, unit in enumerate(expected["units"]) if unit["target"] is None)
    placeholder = (expected["units"][index]["placeholders"] or ["x"])[0]
    added = "Traduit avec translate-toolkit {" + placeholder + "}"
    results = []

    source = directory / "xliff12" / f"{name}.xliff"
    saved = bytes(factory.getobject(str(source)))
    write(directory / "toolkit" / "xliff12" / f"{name}.xliff", saved)
    results.append(("1.2", saved == source.read_bytes()))
    store = factory.getobject(str(source))
    store.units[index].target = added
    write(directory / "toolkit" / "xliff12" / f"{name}-edited.xliff", bytes(store))

    source = directory / "xliff2" / f"{name}.xlf"
    saved = bytes(xliff2.Xliff2File.parsestring(source.read_bytes()))
    write(directory / "toolkit" / "xliff2" / f"{name}.xlf", saved)
    results.append(("2.0", saved == source.read_bytes()))
    store = xliff2.Xliff2File.parsestring(source.read_bytes())
    store.units[index].target = added
    write(directory / "toolkit" / "xliff2" / f"{name}-edited.xlf", bytes(store))
    return results


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# Android ---------------------------------------------------------------------------------------

def aapt2_decode(element, order, examples=None, is_format=None):
    """The text aapt2 compiles a <string> (or a <plurals> <item>) to, placeholders back as
    {name}; each <xliff:g> carries `examples`' example of its placeholder, or none. `is_format`:
    whether it is a format string (a <plurals> item always is); by default, when it has
    placeholders and no formatted="false"."""
    pieces = []
    if element.text:
        pieces.append([element.text, None])
    for child in element:
        if isinstance(child, etree._Comment):
            pass
        elif child.tag == f"{{{XLIFF12}}}g":
            check(len(child) == 0, "nested element in <xliff:g>")
            pieces.append([child.text or "", child.get("id")])
            if examples is not None:
                want = examples.get(child.get("id"))
                check(child.get("example") == want,
                      f"<xliff:g id={child.get('id')}> example={child.get('example')!r}, expected {want!r}")
        else:
            failures.append(f"unexpected <{child.tag}> in <{element.tag}>")
        if child.tail:
            pieces.append([child.tail, None])
    if pieces:
        pieces[0][0] = pieces[0][0].lstrip(ASCII_SPACE)
        pieces[-1][0] = pieces[-1][0].rstrip(ASCII_SPACE)
    check(not pieces or pieces[0][1] is not None or not pieces[0][0].startswith(("@", "?")),
          f"unescaped leading @ or ?: {pieces[0][0]!r}" if pieces else "")
    # With placeholders the string is a format string: a literal % is written %%.
    if is_format is None:
        is_format = element.get("formatted") != "false" and any(group is not None for _, group in pieces)
    quoted, last_space, result = False, False, []
    for text, group in pieces:
        out, i = [], 0
        while i < len(text):
            c = text[i]
            if not quoted and c in ASCII_SPACE:
                if not last_space:
                    out.append(" ")
                last_space, i = True, i + 1
                continue
            last_space = False
            if c == "\\":
                escaped = text[i + 1]
                if escaped == "u":
                    out.append(chr(int(text[i + 2:i + 6], 16)))
                    i += 6
                    continue
                out.append({"n": "\n", "t": "\t"}.get(escaped, escaped))
                i += 2
                continue
            if c == '"':
                quoted = not quoted
            else:
                check(quoted or c != "'", f"unescaped apostrophe in {text!r}")
                out.append(c)
            i += 1
        decoded = "".join(out)
        if group is not None:
            position = order.index(group) + 1 if group in order else None
            check(decoded == f"%{position}$s", f"<xliff:g id={group}> holds {decoded!r}, expected %{position}$s")
            result.append("{" + group + "}")
        else:
            result.append(decoded.replace("%%", "%") if is_format else decoded)
    return "".join(result)


def read_android(path, units_by_name, use):
    """Each string's text, its notes, and whether the stale marker is right above it."""
    root = parse(path)
    check(root.tag == "resources", f"{path}: root {root.tag}")
    found, notes, stale = {}, [], False
    header = None
    for child in root:
        if isinstance(child, etree._Comment):
            text = child.text.strip()
            if header is None and text.startswith("empty-state-service "):
                header = dict(word.split("=", 1) for word in text.split()[1:])
            elif text == ANDROID_STALE:
                stale = True
            else:
                check(not stale, f"{path}: a note between the stale marker and its string")
                notes.append(text)
            continue
        unit = units_by_name[child.get("name")]
        order = placeholder_order(unit["source"], unit["target"])
        found[unit["id"]] = (aapt2_decode(child, order, unit["examples"]), notes, stale)
        notes, stale = [], False
        check(child.get("formatted") in (None, "false"), f"{path}: formatted={child.get('formatted')}")
        if child.get("formatted") == "false":
            check("%" in use(unit) and not PLACEHOLDER.search(use(unit)), f"{path}: formatted=false on {unit['id']}")
    return header or {}, found


def check_android(directory, name, expected):
    units_by_name = {unit["resourceName"]: unit for unit in expected["units"]}
    header, source = read_android(directory / "values" / "strings.xml", units_by_name, lambda u: u["source"])
    check(header.get("sourceLocale") == expected["sourceLocale"], f"android {name}: source header {header}")
    for unit in expected["units"]:
        got = source.get(unit["id"])
        check(got is not None and got[0] == unit["source"], f"android {name} source {unit['id']}: {got!r}")
        check(got is not None and got[1] == unit["notes"], f"android {name} source notes {unit['id']}: {got!r}")
    header, target = read_android(directory / expected["androidFolder"] / "strings.xml", units_by_name,
                                  lambda u: u["target"])
    check(header.get("targetLocale") == expected["targetLocale"], f"android {name}: header {header}")
    check(header.get("exportedAt") == expected["exportedAt"], f"android {name}: header {header}")
    for unit in expected["units"]:
        got = target.get(unit["id"])
        if unit["target"] is None or unit["state"] == "missing":
            check(got is None, f"android {name} {unit['id']}: a missing string was written")
        else:
            check(got is not None and got[0] == unit["target"], f"android {name} {unit['id']}: {got!r} != {unit['target']!r}")
            check(got is not None and got[1] == unit["notes"], f"android {name} notes {unit['id']}: {got!r}")
            check(got is not None and got[2] == (unit["state"] == "stale"),
                  f"android {name} {unit['id']}: stale marker {got[2] if got else None} for {unit['state']}")
    check_android_toolkit(directory / expected["androidFolder"] / "strings.xml", expected, name)


def check_android_toolkit(path, expected, name):
    """translate-toolkit's Android reader: the stale marker is the stale strings' note (what
    Weblate and Pootle show the translator), and a save keeps it right above its string."""
    store = aresource.AndroidResourceFile.parsefile(str(path))
    by_name = {unit.getid(): unit for unit in store.units}
    for unit in expected["units"]:
        if unit["target"] is None or unit["state"] == "missing":
            continue
        got = by_name.get(unit["resourceName"])
        check(got is not None, f"translate-toolkit android {name}: {unit['resourceName']} not read")
        if got is not None:
            marked = ANDROID_STALE in got.getnotes()
            check(marked == (unit["state"] == "stale"),
                  f"translate-toolkit android {name} {unit['id']}: marker in notes {marked} for {unit['state']}")
    resaved = etree.fromstring(bytes(store), etree.XMLParser(resolve_entities=False, no_network=True))
    marked_after = set()
    previous = None
    for child in resaved:
        if not isinstance(child, etree._Comment) and previous is not None and previous.text.strip() == ANDROID_STALE:
            marked_after.add(child.get("name"))
        previous = child
    want = {unit["resourceName"] for unit in expected["units"]
            if unit["state"] == "stale" and unit["target"] is not None}
    check(marked_after == want, f"translate-toolkit android {name}: marked after a save {sorted(marked_after ^ want)}")


# String Catalog --------------------------------------------------------------------------------

CATALOG_STATES = {"missing": "new", "translated": "translated", "reviewed": "translated", "final": "translated",
                  "stale": "needs_review"}


def check_catalog(path, name, expected):
    catalog = json.loads(path.read_text(encoding="utf-8"))
    check(catalog["sourceLanguage"] == expected["sourceLocale"] and catalog["version"] == "1.0",
          f"xcstrings {name}: header")
    check(list(catalog["strings"]) == sorted(catalog["strings"], key=lambda key: key.encode()), f"xcstrings {name}: order")
    # The export record: not a string to translate, its comment the export time.
    record = catalog["strings"].get(CATALOG_EXPORT_KEY)
    check(record is not None and record.get("shouldTranslate") is False and record.get("extractionState") == "manual"
          and "localizations" not in record
          and record.get("comment", "").startswith(f"exportedAt={expected['exportedAt']} "),
          f"xcstrings {name}: export record {record!r}")
    check(len(catalog["strings"]) == len(expected["units"]) + 1, f"xcstrings {name}: {len(catalog['strings'])} keys")
    for unit in expected["units"]:
        entry = catalog["strings"][unit["id"]]
        localizations = entry["localizations"]
        check(localizations[expected["sourceLocale"]]["stringUnit"]["value"] == unit["source"],
              f"xcstrings {name} {unit['id']}: source")
        check(entry.get("comment", "") == "\n".join(unit["notes"]), f"xcstrings {name} {unit['id']}: comment")
        target = localizations.get(expected["targetLocale"])
        if unit["target"] is None:
            check(target is None, f"xcstrings {name} {unit['id']}: a missing string has an entry")
        else:
            check(target["stringUnit"] == {"state": CATALOG_STATES[unit["state"]], "value": unit["target"]},
                  f"xcstrings {name} {unit['id']}: {target}")


# Plural strings --------------------------------------------------------------------------------

def check_plurals(directory):
    """Each format's plural strings, read by the independent readers: the forms per category."""
    expected = json.loads((directory / "expected.json").read_text(encoding="utf-8"))
    targets = expected["targetCategories"]
    units = expected["units"]

    # XLIFF 2.0: an ICU message in <source> and <target> (lxml and translate-toolkit).
    root = parse(directory / "xliff2" / "ru.xlf")
    found = {u.get("name"): u for u in root.iter(f"{{{XLIFF2}}}unit")}
    toolkit = {u.getid(): u for u in xliff2.Xliff2File.parsestring((directory / "xliff2" / "ru.xlf").read_bytes()).units}
    for unit in units:
        segment = found[unit["id"]].find(f"{{{XLIFF2}}}segment")
        check(inline_2(segment.find(f"{{{XLIFF2}}}source")) == unit["icuSource"], f"plural xliff2 {unit['id']}: source")
        target = segment.find(f"{{{XLIFF2}}}target")
        check((None if target is None else inline_2(target)) == unit["icuTarget"], f"plural xliff2 {unit['id']}: target")
        got = toolkit.get(unit["tokenId"])
        check(got is not None and got.source == unit["icuSource"], f"plural translate-toolkit 2.0 {unit['id']}: source")
        if unit["icuTarget"] is not None:
            check(got is not None and got.target == unit["icuTarget"], f"plural translate-toolkit 2.0 {unit['id']}: target")

    # XLIFF 1.2: a gettext plural group, a trans-unit per target category (lxml, poxliff).
    root = parse(directory / "xliff12" / "ru.xliff")
    groups = {g.get("id"): g for g in root.iter(f"{{{XLIFF12}}}group")}
    for unit in units:
        group = groups.get(unit["id"])
        check(group is not None and group.get("restype") == "x-gettext-plurals", f"plural xliff12 {unit['id']}: group")
        if group is None:
            continue
        forms = group.findall(f"{{{XLIFF12}}}trans-unit")
        check([f.get("resname") for f in forms] == targets, f"plural xliff12 {unit['id']}: categories")
        check([f.get("id") for f in forms] == [f"{unit['id']}[{i}]" for i in range(len(targets))],
              f"plural xliff12 {unit['id']}: ids")
        for form in forms:
            category = form.get("resname")
            want_source = unit["sourceForms"].get(category, unit["sourceForms"]["other"])
            check(inline_12(form.find(f"{{{XLIFF12}}}source")) == want_source, f"plural xliff12 {unit['id']}[{category}]: source")
            target = form.find(f"{{{XLIFF12}}}target")
            want = (unit["targetForms"] or {}).get(category) if unit["state"] != "missing" else None
            if want is not None:
                check(target is not None and inline_12(target) == want, f"plural xliff12 {unit['id']}[{category}]: target")
    store = poxliff.PoXliffFile.parsestring((directory / "xliff12" / "ru.xliff").read_bytes())
    plural_units = [u for u in store.units if u.hasplural()]
    check(len(plural_units) == len(units), f"plural poxliff: {len(plural_units)} plural units, expected {len(units)}")
    for got in plural_units:
        check(len(got.target.strings) == len(targets), f"plural poxliff {got.getid()}: {len(got.target.strings)} forms")

    # String Catalog: variations.plural per locale (json).
    catalog = json.loads((directory / "xcstrings" / "Localizable.xcstrings").read_text(encoding="utf-8"))
    for unit in units:
        localizations = catalog["strings"][unit["id"]]["localizations"]
        source = localizations[expected["sourceLocale"]]["variations"]["plural"]
        check(source == {c: {"stringUnit": {"state": "translated", "value": t}} for c, t in unit["sourceForms"].items()},
              f"plural xcstrings {unit['id']}: source {source}")
        check(list(source) == sorted(source), f"plural xcstrings {unit['id']}: categories sorted")
        if unit["targetForms"] is not None:
            target = localizations[expected["targetLocale"]]["variations"]["plural"]
            state = CATALOG_STATES[unit["state"]]
            check(target == {c: {"stringUnit": {"state": state, "value": t}} for c, t in unit["targetForms"].items()},
                  f"plural xcstrings {unit['id']}: target {target}")

    # Android: <plurals> with an <item quantity> per category, items decoded by aapt2's rules.
    for folder, key, categories in (("values", "sourceForms", expected["sourceCategories"]),
                                    (expected["androidFolder"], "targetForms", targets)):
        root = parse(directory / "android" / folder / "strings.xml")
        previous = None
        found = {}
        for child in root:
            if not isinstance(child, etree._Comment):
                check(child.tag == "plurals", f"plural android {folder}: <{child.tag}>")
                found[child.get("name")] = (child, previous is not None and previous.text.strip() == ANDROID_STALE)
            previous = child
        for unit in units:
            forms = unit[key]
            if forms is None:
                check(unit["resourceName"] not in found, f"plural android {folder} {unit['id']}: a missing string was written")
                continue
            element, stale = found[unit["resourceName"]]
            order = placeholder_order(unit["sourceOther"], unit["targetOther"])
            items = {item.get("quantity"): aapt2_decode(item, order, unit["examples"], is_format=True)
                     for item in element.iter("item")}
            check(list(items) == [c for c in categories if c in forms], f"plural android {folder} {unit['id']}: {list(items)}")
            check(items == forms, f"plural android {folder} {unit['id']}: {items} != {forms}")
            check(stale == (key == "targetForms" and unit["state"] == "stale"),
                  f"plural android {folder} {unit['id']}: stale marker {stale}")
    return len(units)


# ----------------------------------------------------------------------------------------------

def compare(reader, name, header, units, expected, keys):
    for key in ("sourceLocale", "targetLocale", "exportedAt"):
        check(header[key] == expected[key], f"{reader} {name}: {key} {header[key]!r} != {expected[key]!r}")
    check(len(units) == len(expected["units"]), f"{reader} {name}: {len(units)} units, expected {len(expected['units'])}")
    for got, want in zip(units, expected["units"]):
        for key in keys:
            check(got[key] == want[key], f"{reader} {name} {want['id']}: {key} {got[key]!r} != {want[key]!r}")


def main():
    directory = Path(sys.argv[1])
    expected_all = json.loads((directory / "expected.json").read_text(encoding="utf-8"))
    report = []
    for name, expected in expected_all.items():
        count = len(expected["units"])
        header, units = read_xliff2_lxml(directory / "xliff2" / f"{name}.xlf")
        compare("lxml XLIFF 2.0", name, header, units, expected, ("id", "tokenId", "source", "target", "state", "notes"))
        header, units = read_xliff12_lxml(directory / "xliff12" / f"{name}.xliff")
        compare("lxml XLIFF 1.2", name, header, units, expected, ("id", "source", "target", "state", "notes"))
        check_toolkit_12(directory / "xliff12" / f"{name}.xliff", expected, name)
        check_toolkit_2(directory / "xliff2" / f"{name}.xlf", expected, name)
        check_android(directory / "android" / name, name, expected)
        check_catalog(directory / "xcstrings" / f"{name}.xcstrings", name, expected)
        for version, identical in resave_with_toolkit(directory, name, expected):
            report.append(f"translate-toolkit re-saves XLIFF {version} {name}: "
                          + ("byte-identical" if identical else "different bytes"))
        report.append(f"{name}: {count} units checked in lxml (XLIFF 2.0, 1.2, Android), translate-toolkit "
                      f"(1.2, 2.0), aapt2 rules (Android), json (xcstrings)")
    count = check_plurals(directory / "plurals")
    report.append(f"plurals: {count} plural strings checked in lxml and translate-toolkit (XLIFF 2.0; 1.2 as "
                  f"gettext plural groups through poxliff), json (xcstrings), aapt2 rules (Android <plurals>)")
    for line in report + notes_seen:
        print(line)
    if failures:
        print(f"{len(failures)} failures:", file=sys.stderr)
        for failure in failures[:50]:
            print("  " + failure, file=sys.stderr)
        sys.exit(1)
    print("translation interop: OK")


if __name__ == "__main__":
    main()
