#!/usr/bin/env python3
"""Checks that the documentation says only what exists, so it cannot drift from the code.

    python3 Tools/docs/check.py --binary .build/debug/empty-state-server

Reads README.md and docs/*.md and fails (exit 1, one line per finding, `file:line: …`) when:

- a server flag they show is not an option of the binary (`--help-hidden`, which also lists the
  deprecated ones). A flag counts as the server's when it is in a code span that starts with it
  (`--port`, `--port 0`) or follows `empty-state-server` run as a command on a code line. A code span starting
  with another tool's flag is named in OTHER_TOOLS with the file that defines it, and that file
  must still contain it;
- an `EMPTY_STATE_*` variable they name is neither in `--help` nor read anywhere in the sources,
  tests, scripts or Makefile;
- a `make <target>` in a code span or block is not a target of the Makefile;
- a relative link or image does not resolve: the file must exist, and an anchor (`page.md#x`,
  `#x`) must be a heading of that Markdown file, slugged as GitHub does;
- docs/configuration.md leaves out a flag or a variable the binary's `--help-hidden` lists (the
  page promises every one);
- a metric family the binary serves on `/metrics` is not in docs/observability.md's table, or a
  row of it names none; the binary's `--version`, README's `from:` and the upgrade test's previous
  release disagree with CHANGELOG.md (Tools/docs/binary_checks.py);
- docs/api-reference.md is not what Tools/docs/api_reference.py makes of openapi.yaml (that one
  check needs PyYAML, which `make lint` installs).

Only the standard library: it runs before any pip install.
"""

import argparse
import pathlib
import re
import subprocess
import sys

import api_reference
import binary_checks

# Flags of other programs that the docs show in a code span of their own, with the file that
# must define each (so this list cannot go stale either).
OTHER_TOOLS = {
    "--database-url-env": "Tests/browser/console.py",
    "--base-url": "Tests/integration/openapi_check.py",
    "--check": "Tools/openapi-generator/generate.sh",
}

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# The server run as a command (`empty-state-server --port 0`, `.build/debug/empty-state-server
# …`), not named as a product (`--product empty-state-server`) or inside a quoted path.
INVOCATION = re.compile(r"(?<!--product )(?<![\w\-\"])(?:[\w.$/{}()-]*/)?empty-state-server(?=\s|$)")
ENV = re.compile(r"\bEMPTY_STATE_[A-Z0-9_]+\b")
MAKE = re.compile(r"(?<![\w-])make ((?:-[A-Za-z]+ +)*)([a-z][a-z0-9-]*)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def run(binary, *arguments):
    result = subprocess.run([binary, *arguments], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        sys.exit(f"check.py: {binary} {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def lines_with_context(path):
    """Yields (line number, text, inside a fenced block) for every line of a Markdown file."""
    fenced = False
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(text):
            fenced = not fenced
            continue
        yield number, text, fenced


def slug(heading):
    """GitHub's anchor for a heading: lowercased, punctuation dropped, spaces become hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        found = set()
        for _, text, fenced in lines_with_context(path):
            match = None if fenced else HEADING.match(text)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        cache[path] = found
    return cache[path]


def makefile_targets(root):
    targets = set()
    for text in (root / "Makefile").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.\- ]+):(?![=:])", text)
        if match:
            targets.update(match.group(1).split())
    return targets


def source_text(root):
    """Everything that may read an environment variable: sources, tests, scripts, Makefile."""
    parts = [(root / "Makefile").read_text(encoding="utf-8")]
    for folder in ("Sources", "Tests", "scripts", "Tools", "Benchmarks"):
        for path in (root / folder).rglob("*"):
            if path.suffix in (".swift", ".c", ".h", ".py", ".sh") and path.is_file():
                parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="the built empty-state-server")
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parents[2], type=pathlib.Path)
    arguments = parser.parse_args()
    root = arguments.root.resolve()

    help_text = run(arguments.binary, "--help-hidden")
    server_flags = set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", help_text, re.MULTILINE))
    server_flags.add("--help-hidden")  # it answered above, though it does not list itself
    server_variables = set(ENV.findall(help_text))
    if "--port" not in server_flags:
        sys.exit(f"check.py: no options found in the --help-hidden of {arguments.binary}")
    targets = makefile_targets(root)
    sources = source_text(root)

    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    problems = []
    counts = {"flags": 0, "variables": 0, "make targets": 0, "links": 0}

    def problem(path, number, message):
        problems.append(f"{path.relative_to(root)}:{number}: {message}")

    for page in pages:
        for number, text, fenced in lines_with_context(page):
            spans = [text] if fenced else [match.group(2) for match in CODE_SPAN.finditer(text)]
            for span in spans:
                stripped = span.strip()
                flags = []
                invocation = INVOCATION.search(stripped)
                if invocation:
                    flags = FLAG.findall(re.split(r"[|;&)]", stripped[invocation.end() :])[0])
                elif stripped.startswith("--") and not fenced:
                    flags = FLAG.findall(stripped)[:1]
                for flag in flags:
                    counts["flags"] += 1
                    if flag in server_flags:
                        continue
                    owner = OTHER_TOOLS.get(flag)
                    if owner is None:
                        problem(page, number, f"{flag} is not an option of empty-state-server (--help-hidden)")
                    elif flag not in (root / owner).read_text(encoding="utf-8"):
                        problem(page, number, f"{flag} is no longer in {owner}")
                for _, target in MAKE.findall(span):
                    counts["make targets"] += 1
                    if target not in targets:
                        problem(page, number, f"make {target}: no such target in the Makefile")
            for variable in ENV.findall(text):
                counts["variables"] += 1
                if variable not in server_variables and variable not in sources:
                    problem(page, number, f"{variable} is neither in --help nor read by any source")
            if fenced:
                continue
            for target in LINK.findall(re.sub(r"`[^`]*`", "", text)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                counts["links"] += 1
                file_part, _, anchor = target.partition("#")
                linked = (page.parent / file_part).resolve() if file_part else page
                if not linked.exists():
                    problem(page, number, f"link to {target}: {file_part} does not exist")
                elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                    problem(page, number, f"link to {target}: no heading gives #{anchor} in {linked.name}")

    configuration = (root / "docs" / "configuration.md").read_text(encoding="utf-8")
    for flag in sorted(server_flags - {"--help", "--help-hidden", "--version", "-h"}):
        if f"`{flag}`" not in configuration:
            problems.append(f"docs/configuration.md: {flag} (an option of the binary) is not documented")
    for variable in sorted(server_variables):
        if f"`{variable}`" not in configuration:
            problems.append(f"docs/configuration.md: {variable} (read by the binary) is not documented")

    metric_problems, counts["metrics"] = binary_checks.metrics_problems(arguments.binary, root, sources)
    problems += metric_problems + binary_checks.release_problems(arguments.binary, root) + api_reference.check()

    for line in problems:
        print(line)
    summary = ", ".join(f"{count} {name}" for name, count in counts.items())
    print(f"docs check: {len(pages)} pages, {summary} checked; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
