"""What the docs say about the built binary, checked against the binary: its metrics and its version.

Used by Tools/docs/check.py (`make lint`); only the standard library.

- Metrics: the server is started on a free port with a scratch data directory, served a template
  read, an event and an admin read, and scraped. Every metric family `/metrics` answers must be a
  row of docs/observability.md's metrics table, and every row must be a family the scrape showed
  or, for series that appear only in some states (`translation_stale_strings` once a translation
  is stale), a metric name the sources register.
- Versions: `empty-state-server --version` is the newest version of CHANGELOG.md while its
  `[Unreleased]` section is empty, and the next version with `-dev` while it lists changes (a
  binary built between releases does not claim to be the last one); the version the client
  library's `from:` (README.md, the DocC catalogue) and the recipes' image tag (deploy/) name is
  the newest release; Tests/upgrade/previous-release names the newest release below the binary's
  version (the one `make upgrade-test` upgrades from).
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

RELEASE_HEADING = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})\s*$")
UNRELEASED_HEADING = re.compile(r"^## \[Unreleased\]\s*$")
ANY_VERSION_HEADING = re.compile(r"^## \[")
SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-dev)?$")
METRIC_ROW = re.compile(r"^\|\s*`([a-z_][a-z0-9_]*)`\s*\|\s*(counter|gauge|histogram|summary)\s*\|")


def scrape_metrics(binary):
    """The metric families of a freshly started server, after a few requests; (names, error)."""
    work = tempfile.mkdtemp(prefix="docs-metrics-")
    log_path = pathlib.Path(work) / "server.log"
    environment = {key: value for key, value in os.environ.items() if not key.startswith("EMPTY_STATE_")}
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", "0", "--data-dir", f"{work}/data", "--log-level", "notice"],
            stdout=log,
            stderr=log,
            env=environment,
        )
    try:
        port = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and port is None:
            found = re.search(rb"http\.port=(\d+)", log_path.read_bytes())
            if found:
                port = int(found.group(1))
            elif server.poll() is not None:
                break
            else:
                time.sleep(0.05)
        if port is None:
            return set(), "the server did not start: " + log_path.read_text(errors="replace")[-2000:]
        base = f"http://127.0.0.1:{port}"
        token = (pathlib.Path(work) / "data" / "admin-token").read_text().strip()
        event = {
            "id": "00000000-0000-4000-8000-000000000001",
            "type": "displayed",
            "templateId": "connectionRefused",
            "locale": "en",
            "platform": "ios",
            "appVersion": "1.0.0",
            "occurredAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        requests = [
            urllib.request.Request(f"{base}/v1/templates/connectionRefused?locale=fr"),
            urllib.request.Request(
                f"{base}/v1/events",
                data=json.dumps(event).encode(),
                headers={"Content-Type": "application/json"},
                method="POST",
            ),
            urllib.request.Request(f"{base}/v1/admin/templates", headers={"Authorization": f"Bearer {token}"}),
        ]
        for request in requests:
            with urllib.request.urlopen(request, timeout=30) as response:
                response.read()
        time.sleep(0.3)  # the background counts (stale translations) settle
        with urllib.request.urlopen(f"{base}/metrics", timeout=30) as response:
            text = response.read().decode()
        families = set(re.findall(r"^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) ", text, re.MULTILINE))
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0)
                if not any(name == family or name.startswith(family + "_") for family in families):
                    families.add(name)  # a series without a TYPE line still counts
        return families, None
    except OSError as error:
        return set(), f"could not query the server: {error}"
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


def metrics_problems(binary, root, sources):
    """docs/observability.md's metrics table against what the binary serves; (problems, families)."""
    page = root / "docs" / "observability.md"
    documented = {}
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        match = METRIC_ROW.match(line)
        if match:
            documented[match.group(1)] = number
    served, error = scrape_metrics(binary)
    if error:
        return [f"docs/observability.md: cannot check the metrics: {error}"], 0
    problems = []
    for family in sorted(served - set(documented)):
        problems.append(f"docs/observability.md: {family} is served on /metrics but is not in the metrics table")
    for family, number in sorted(documented.items()):
        if family not in served and f'"{family}"' not in sources:
            problems.append(f"docs/observability.md:{number}: {family} is neither served on /metrics nor registered in Sources/")
    return problems, len(served | set(documented))


def changelog_versions(root):
    """(releases newest first as (version, line), whether [Unreleased] lists a change, problems)."""
    releases, problems, unreleased_entries = [], [], False
    section = None
    for number, line in enumerate((root / "CHANGELOG.md").read_text(encoding="utf-8").splitlines(), start=1):
        if UNRELEASED_HEADING.match(line):
            if releases:
                problems.append(f"CHANGELOG.md:{number}: [Unreleased] must come before every release")
            section = "unreleased"
        elif RELEASE_HEADING.match(line):
            releases.append((RELEASE_HEADING.match(line).group(1), number))
            section = "release"
        elif ANY_VERSION_HEADING.match(line):
            problems.append(f"CHANGELOG.md:{number}: a version heading is `## [X.Y.Z] - YYYY-MM-DD` or `## [Unreleased]`")
        elif section == "unreleased" and line.lstrip().startswith(("- ", "* ")):
            unreleased_entries = True
    numbers = [tuple(map(int, version.split("."))) for version, _ in releases]
    for (version, number), newer, older in zip(releases[1:], numbers, numbers[1:]):
        if older >= newer:
            problems.append(f"CHANGELOG.md:{number}: {version} is not below the release above it")
    return releases, unreleased_entries, problems


def release_problems(binary, root):
    """The binary's version, README's `from:` and the upgrade test's previous release against CHANGELOG.md."""
    releases, unreleased_entries, problems = changelog_versions(root)
    if not releases:
        return problems + ["CHANGELOG.md: no release (`## [X.Y.Z] - YYYY-MM-DD`)"]
    result = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    printed = result.stdout.strip().split()[-1] if result.stdout.strip() else ""
    newest = releases[0][0]
    newest_number = tuple(map(int, newest.split(".")))
    match = SEMVER.match(printed)
    if not match:
        problems.append(f"empty-state-server --version printed {result.stdout.strip()!r}: not X.Y.Z or X.Y.Z-dev")
        return problems
    printed_number = tuple(map(int, match.groups()))
    if unreleased_entries:
        if not printed.endswith("-dev") or printed_number <= newest_number:
            problems.append(
                f"ServiceVersion.current is {printed}, but CHANGELOG.md's [Unreleased] lists changes that {newest} "
                f"does not have: make it the next version with -dev (e.g. {newest_number[0]}.{newest_number[1] + 1}.0-dev), "
                "or release them (docs/releases.md)"
            )
    elif printed != newest:
        problems.append(
            f"ServiceVersion.current is {printed}, but the newest release in CHANGELOG.md is {newest} "
            "and [Unreleased] is empty"
        )
    # What names a release: the client library's `from:` (SwiftPM resolves it to the tag) and the
    # image tag of the deployment recipes.
    named = [root / "README.md", *sorted((root / "Sources/EmptyStateClient/EmptyStateClient.docc").glob("*.md"))]
    named += sorted((root / "deploy").rglob("*.yaml"))
    for path in named:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            found = re.search(r'\bfrom: "([^"]+)"', line) or re.search(r"\bimage: empty-state-service:(\S+)", line)
            if found and found.group(1) != newest:
                problems.append(
                    f"{path.relative_to(root)}:{number}: {found.group(0)} is not the newest release ({newest})"
                )
    previous_file = root / "Tests" / "upgrade" / "previous-release"
    below = [version for version, _ in releases if tuple(map(int, version.split("."))) < printed_number]
    if previous_file.exists():
        fields = previous_file.read_text(encoding="utf-8").split()
        named = fields[0] if fields else ""
        if below and named != below[0]:
            problems.append(
                f"Tests/upgrade/previous-release names {named or 'nothing'}, but the newest release below "
                f"{printed} is {below[0]} (docs/releases.md says when to change it)"
            )
    else:
        problems.append("Tests/upgrade/previous-release is missing")
    return problems
