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
- a repository path they name does not exist (also in Benchmarks/README.md, Fuzz/README.md,
  config/templates/README.md and the sanitizer suppressions Tests/*.supp; CHANGELOG.md is
  history and is not read). A path that starts with a top-level folder (`Sources/…`, `Tests/…`,
  `Benchmarks/…`, `Tools/…`, `Fuzz/…`, `scripts/…`, `config/…`, `deploy/…`, `docs/…`) must exist
  as written, from the root (a `*` in it must match something); a file named by a shorter path
  (`Routing/ResponseMemo.swift`, `CatalogueState.swift`, paths under `Sources/` as
  architecture.md writes them) must be the end of some file's path in the repository; a bare
  file name counts in code only (a code span or block), not in prose ("Node.js"). Build
  outputs, files written at run time (a walk-through's own files: what its commands write or
  make, and the blocks it saves) and placeholders (`<target>`, `{id}`, `…`) are not paths of
  the repository and are not read as such;
- a metric family the binary serves on `/metrics` is not in docs/observability.md's table, or a
  row of it names none; the binary's `--version`, README's `from:` and the upgrade test's previous
  release disagree with CHANGELOG.md (Tools/docs/binary_checks.py);
- docs/api-reference.md is not what Tools/docs/api_reference.py makes of openapi.yaml (that one
  check needs PyYAML, which `make lint` installs).

Only the standard library (it runs before any pip install), but for the API reference check,
which imports PyYAML itself and says so when it is missing.
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
    "--static-swift-stdlib": "Makefile",
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

# Repository paths: the folders a path from the root starts with, and the kinds of file a
# shorter path may name.
TOP_FOLDERS = ("Sources", "Tests", "Benchmarks", "Tools", "Fuzz", "scripts", "config", "deploy", "docs", ".ci")
FILE_SUFFIXES = (
    "swift", "c", "h", "py", "sh", "md", "yaml", "yml", "json", "js", "css", "html", "supp", "toml", "sql",
    "dict", "modulemap", "docc",
)
PATH = re.compile(
    r"(?<![\w./~$@:-])"  # not inside a longer word, URL, home or variable path
    r"((?:" + "|".join(re.escape(folder) for folder in TOP_FOLDERS) + r")/[\w.+*/-]*"
    r"|(?:[\w+-]+/)*[\w+*-][\w.+*-]*\.(?:" + "|".join(FILE_SUFFIXES) + r"))"
    r"(?![\w/-])"
)
# Written at run time or by a build, never committed; each with what writes it.
NOT_IN_REPOSITORY = {
    "Benchmarks/results/": "make bench writes its tables there (ignored by git)",
    "results/": "Benchmarks/results/, as Benchmarks/README.md names it",
    "deploy/.env": "the operator's secrets for deploy/compose.yaml (ignored by git)",
    "notes/style.md": "the team's shared notes, beside the repository",
    "expected.json": "the translation fixture writer's output, in a temporary directory",
    "latest.md": "Benchmarks/results/latest.md, written by make bench",
    "Package.resolved": "written by swift build, ignored by git",
}
PATH_PAGES = ("Benchmarks/README.md", "Fuzz/README.md", "config/templates/README.md")


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


def repository_files(root):
    """Every file and folder of the repository as a path from the root, builds and git left out."""
    found = set()
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        first = relative.parts[0]
        if first == ".git" or first.startswith(".build") or first in ("__pycache__", ".swiftpm", ".cluster"):
            continue
        if "__pycache__" in relative.parts:
            continue
        found.add(relative.as_posix())
    return found


def path_problem(token, page, root, files):
    """Why `token`, a path named on `page`, names nothing in the repository; None when it does."""
    token = token.rstrip(".").rstrip("/")
    if not token or any(marker in token for marker in ("<", ">", "{", "}", "…", "$")):
        return None
    for prefix in NOT_IN_REPOSITORY:
        if token == prefix.rstrip("/") or token.startswith(prefix) or token.endswith("/" + prefix):
            return None
    if token.split("/")[0] in TOP_FOLDERS:
        if "*" in token:
            return None if list(root.glob(token)) else f"{token} matches no file"
        return None if (root / token).exists() else f"{token} does not exist"
    if (page.parent / token).exists() or (root / token).exists() or (root / "Sources" / token).exists():
        return None
    if "*" in token:
        pattern = re.compile("(^|/)" + re.escape(token).replace(r"\*", "[^/]*") + "$")
        return None if any(pattern.search(path) for path in files) else f"{token} matches no file"
    # `+ChangeFeed.swift`: an extension file of the type named before it.
    if any(path.endswith(token if token.startswith("+") else "/" + token) for path in files):
        return None
    return f"{token} is no file of the repository"


# What a walk-through writes in its scratch directory (Tests/docs/walkthroughs.py): a block it
# saves (`<!-- walkthrough: file NAME -->`), and what its commands write or make (`> f`, `-o f`,
# `-D f`, `--file=f`, `mkdir [-p] [-m MODE] d…`).
WALKTHROUGH_FILE = re.compile(r"<!--\s*walkthrough:\s*file\s+(\S+)\s*-->")
WRITTEN = re.compile(r"(?:>>?|\s-[oD]|--file=)\s*['\"]?([\w.+-][\w./+-]*)")
MADE_DIRECTORY = re.compile(r"\bmkdir\s+(?:-p\s+|-m\s+\d+\s+)*((?:[\w.+-][\w./+-]*\s*)+)")


def written_by_walkthrough(page):
    """The files and folders a page that opts in to walk-throughs makes itself: not repository paths."""
    text = page.read_text(encoding="utf-8")
    if page.suffix != ".md" or "<!-- walkthrough" not in text:
        return set()
    written = set(WALKTHROUGH_FILE.findall(text))
    for _, line, fenced in lines_with_context(page):
        if fenced:
            written.update(WRITTEN.findall(line))
            for group in MADE_DIRECTORY.findall(line):
                written.update(group.split())
    return {name.rstrip("/") for name in written}


def check_paths(pages, root, problems):
    """Every repository path the pages and the suppression files name exists; returns how many."""
    files = repository_files(root)
    checked = 0
    for page in pages:
        written = written_by_walkthrough(page)
        for number, text, fenced in lines_with_context(page):
            if page.suffix == ".supp":
                if text.lstrip().startswith("#"):
                    continue
                text = text.partition(":")[2]  # `race:Sources/…`: the kind, then the pattern
            # Links are checked on their own (and resolve from the page); URLs name other sites.
            text = re.sub(r"\]\([^)]*\)", "]", text)
            text = re.sub(r"\b[a-z][a-z0-9+.-]*://\S+", "", text)
            # A bare file name (no folder) counts only in code, where names of files are
            # written: in prose, "Node.js" is a product.
            code = [(0, len(text))] if fenced or page.suffix == ".supp" else [m.span(2) for m in CODE_SPAN.finditer(text)]
            for match in PATH.finditer(text):
                if "/" not in match.group(1) and not any(start <= match.start() < end for start, end in code):
                    continue
                checked += 1
                token = match.group(1).rstrip(".").rstrip("/")
                if token in written or any(token.startswith(made + "/") for made in written):
                    continue
                reason = path_problem(match.group(1), page, root, files)
                if reason:
                    problems.append(f"{page.relative_to(root)}:{number}: {reason}")
    return checked


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
    counts = {"flags": 0, "variables": 0, "make targets": 0, "links": 0, "paths": 0}

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

    path_pages = pages + [root / page for page in PATH_PAGES] + sorted((root / "Tests").glob("*.supp"))
    counts["paths"] = check_paths(path_pages, root, problems)
    metric_problems, counts["metrics"] = binary_checks.metrics_problems(arguments.binary, root, sources)
    problems += metric_problems + binary_checks.release_problems(arguments.binary, root) + api_reference.check()

    for line in problems:
        print(line)
    summary = ", ".join(f"{count} {name}" for name, count in counts.items())
    print(f"docs check: {len(pages)} pages, {summary} checked; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
