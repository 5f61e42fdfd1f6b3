#!/usr/bin/env python3
"""Generates the service's icon set from PyPI's `lucide` package (Lucide's SVGs, ISC licence).

Usage:
  Tools/icons/generate.py           rewrite Sources/EmptyStateWeb/Assets/lucide-icons.txt
  Tools/icons/generate.py --check   regenerate into a temporary directory and fail when the
                                    committed file differs (part of `make test`)

Every SVG is rebuilt from an allow-list rather than copied: only drawing elements (svg, path,
circle, rect, line, polyline, polygon, ellipse, g) and the attributes that draw them survive, each
value checked against the grammar it must have (numbers, path data, `none`/`currentColor`). So a
`<script>`, an event attribute, an `href`, a `style` or a `<title>` in a future Lucide release
cannot reach a page: it is dropped and reported. The root `<svg>` is not stored: every Lucide
icon has the same one (checked here), and the service writes its own with `aria-hidden="true"`
and `focusable="false"` (`IconSet.svg(named:)`).

The output is one line per icon, `name<TAB>inner markup`, sorted by name, after a `#` header. The
service embeds the file with C23 `#embed` (Sources/CAssets/assets.c).
"""

import argparse
import filecmp
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

LUCIDE_VERSION = "1.1.4"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUTPUT = os.path.join(ROOT, "Sources", "EmptyStateWeb", "Assets", "lucide-icons.txt")

SVG_NS = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
PATH_DATA = re.compile(r"^[MmLlHhVvCcSsQqTtAaZz0-9.,eE+\- ]*$")
POINTS = re.compile(r"^[0-9.,eE+\- ]*$")
PAINT = re.compile(r"^(none|currentColor)$")
LINECAP = re.compile(r"^(butt|round|square)$")
LINEJOIN = re.compile(r"^(miter|round|bevel)$")
RULE = re.compile(r"^(nonzero|evenodd)$")

# What may be drawn, and with which attributes; each attribute's value must match its grammar.
PRESENTATION = {
    "fill": PAINT,
    "stroke": PAINT,
    "stroke-width": NUMBER,
    "stroke-linecap": LINECAP,
    "stroke-linejoin": LINEJOIN,
    "fill-rule": RULE,
    "clip-rule": RULE,
    "opacity": NUMBER,
}
GEOMETRY = {
    "path": {"d": PATH_DATA},
    "circle": {"cx": NUMBER, "cy": NUMBER, "r": NUMBER},
    "ellipse": {"cx": NUMBER, "cy": NUMBER, "rx": NUMBER, "ry": NUMBER},
    "rect": {"x": NUMBER, "y": NUMBER, "width": NUMBER, "height": NUMBER, "rx": NUMBER, "ry": NUMBER},
    "line": {"x1": NUMBER, "y1": NUMBER, "x2": NUMBER, "y2": NUMBER},
    "polyline": {"points": POINTS},
    "polygon": {"points": POINTS},
    "g": {},
}
# The root every Lucide icon has; the service writes it itself.
EXPECTED_ROOT = {
    "width": "24",
    "height": "24",
    "viewBox": "0 0 24 24",
    "fill": "none",
    "stroke": "currentColor",
    "stroke-width": "2",
    "stroke-linecap": "round",
    "stroke-linejoin": "round",
}
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class Report:
    def __init__(self):
        self.dropped = []

    def drop(self, icon, what):
        self.dropped.append(f"{icon}: dropped {what}")


def sanitize_children(icon, element, report):
    """The allowed children of `element` as canonical markup (attributes in allow-list order)."""
    out = []
    for child in element:
        tag = child.tag[len(SVG_NS):] if child.tag.startswith(SVG_NS) else child.tag
        if tag not in GEOMETRY:
            report.drop(icon, f"<{tag}> and its content")
            continue
        allowed = dict(GEOMETRY[tag], **PRESENTATION)
        attributes = []
        for name, value in child.attrib.items():
            grammar = allowed.get(name)
            if grammar is None or not grammar.match(value):
                report.drop(icon, f'{name}="{value[:40]}" on <{tag}>')
                continue
            attributes.append((list(allowed).index(name), name, " ".join(value.split())))
        attributes.sort()
        markup = "".join(f' {name}="{value}"' for _, name, value in attributes)
        inner = sanitize_children(icon, child, report)
        if tag == "g":
            out.append(f"<g{markup}>{inner}</g>")
        elif inner:
            report.drop(icon, f"the content of <{tag}>")
            out.append(f"<{tag}{markup}/>")
        else:
            out.append(f"<{tag}{markup}/>")
        if (child.text or "").strip() or (child.tail or "").strip():
            report.drop(icon, f"text in <{tag}>")
    return "".join(out)


def icon_lines(archive_path, report):
    lines = []
    with zipfile.ZipFile(archive_path) as archive:
        for entry in sorted(archive.namelist()):
            if not entry.endswith(".svg"):
                continue
            name = entry[: -len(".svg")]
            if not NAME.match(name):
                raise SystemExit(f"unexpected icon name {name!r} in {archive_path}")
            root = ET.fromstring(archive.read(entry))
            if root.tag != SVG_NS + "svg":
                raise SystemExit(f"{name}: the root is <{root.tag}>, not <svg>")
            attributes = {k: v for k, v in root.attrib.items()}
            if attributes != EXPECTED_ROOT:
                raise SystemExit(f"{name}: root attributes {attributes} differ from {EXPECTED_ROOT}")
            inner = sanitize_children(name, root, report)
            if not inner:
                raise SystemExit(f"{name}: nothing left to draw after sanitizing")
            lines.append(f"{name}\t{inner}")
    return lines


def lucide_archive():
    try:
        import lucide
    except ImportError:
        raise SystemExit(f"the Python package lucide=={LUCIDE_VERSION} is missing (make deps installs it)")
    from importlib.metadata import version

    found = version("lucide")
    if found != LUCIDE_VERSION:
        raise SystemExit(f"lucide {found} is installed; the set is generated from {LUCIDE_VERSION}")
    return os.path.join(os.path.dirname(lucide.__file__), "lucide.zip")


def write(path):
    report = Report()
    lines = icon_lines(lucide_archive(), report)
    header = (
        f"# Lucide {LUCIDE_VERSION} (ISC licence, see NOTICE): {len(lines)} icons, sanitized by "
        "Tools/icons/generate.py. Generated: do not edit.\n"
    )
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(header)
        f.write("\n".join(lines))
        f.write("\n")
    return lines, report


def self_test():
    """The allow-list on hostile input: what must never reach a page does not."""
    hostile = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
        '<title>t</title><script>alert(1)</script><style>*{}</style>'
        '<path d="M1 1L2 2" onclick="alert(1)" style="fill:red" fill="url(#x)"/>'
        '<image href="https://example.com/x.png"/><use xlink:href="#a"/><foreignObject><p>x</p></foreignObject>'
        '<g onload="x"><circle cx="1" cy="2" r="javascript:alert(1)" stroke="currentColor"/></g>'
        '<a href="javascript:alert(1)"><rect x="1"/></a></svg>'
    )
    report = Report()
    out = sanitize_children("hostile", ET.fromstring(hostile), report)
    expected = '<path d="M1 1L2 2"/><g><circle cx="1" cy="2" stroke="currentColor"/></g>'
    if out != expected:
        raise SystemExit(f"sanitizer self-test failed: {out!r} != {expected!r}")
    for word in ("script", "title", "style", "onclick", "href", "image", "use", "foreignObject", "javascript"):
        if word in out:
            raise SystemExit(f"sanitizer self-test failed: {word!r} survived")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when the committed set is stale")
    args = parser.parse_args()
    if args.check:
        self_test()
        with tempfile.TemporaryDirectory() as directory:
            fresh = os.path.join(directory, "lucide-icons.txt")
            lines, report = write(fresh)
            if not os.path.exists(OUTPUT) or not filecmp.cmp(fresh, OUTPUT, shallow=False):
                print(f"{os.path.relpath(OUTPUT, ROOT)} is stale: run Tools/icons/generate.py", file=sys.stderr)
                sys.exit(1)
        print(f"icons: {len(lines)} match lucide {LUCIDE_VERSION} ({len(report.dropped)} things dropped)")
        return
    lines, report = write(OUTPUT)
    for line in report.dropped:
        print(line, file=sys.stderr)
    size = os.path.getsize(OUTPUT)
    print(f"wrote {len(lines)} icons, {size} bytes, to {os.path.relpath(OUTPUT, ROOT)}; dropped {len(report.dropped)}")


if __name__ == "__main__":
    main()
