#!/usr/bin/env python3
"""Runs the documentation's walk-throughs against a real server, the way a reader types them.

    python3 Tests/docs/walkthroughs.py .build/debug/empty-state-server [docs/<page>.md …]

The pages are the source: this script only extracts and runs their fenced `sh` blocks, so a
page that goes wrong (a hard-coded ETag that is stale by then, a file the export does not make,
an answer the server no longer gives) fails `make test`. Without page arguments it runs every
page of README.md and docs/ that opts in, each on a fresh server, and then each chain of pages
a reader may follow one after the other (`after`, below) on one server.

How a page opts in and what it may say (HTML comments, which Markdown renders as nothing; the
full guide is docs/development.md, "Walk-throughs that run"):

- `<!-- walkthrough -->` on a line of its own: the page's ```sh blocks run, in order, in one
  bash session (variables carry over between blocks, as in the reader's terminal), with
  `set -o pipefail`. The working directory is a fresh scratch directory whose `data/` is the
  server's data directory (so `cat data/admin-token` works) and where the repository's top-level
  files and folders are linked (`config/templates/…` reads as from a clone). A server of the
  binary under test listens there; `127.0.0.1:8080` in the page means it (the runner binds a
  free port and puts it in place of 8080 in every command, file and expected output). Other
  ports of 8081–8099 and 8443 the page names are free ports too, the same one each time.
  `empty-state-server` is on PATH.
- `<!-- walkthrough: after <page>.md -->`: a reader may come here straight from <page>.md with its
  server still running, so the page also runs right after <page>.md (and what <page>.md follows)
  in one session on one server: state the earlier page left (a revision it made) must not break
  this one.
- `<!-- walkthrough: skip REASON -->` before a ```sh block: the block is not run (a Docker
  engine, a release build, minutes of load…). The reason is required.
- `<!-- walkthrough: output -->` before a fenced block that is not `sh`: the block is what the
  last command printed.
- `<!-- walkthrough: file NAME -->` before a fenced block: the reader saves it as NAME; the
  runner writes it there.
- `<!-- walkthrough: server postgres -->` (or `server sqlite`): from here on, a fresh server on a
  throwaway PostgreSQL (scripts/postgres.sh) replaces the current one; its URL is in
  `EMPTY_STATE_DATABASE_URL` for the page's commands too.
- `<!-- walkthrough: database VAR -->`: a new, empty database on that PostgreSQL, owned by the
  service's role; its URL in `VAR` (a page that restores into a new database says so).
- In a ```sh block, `# → TEXT`, at the end of a command or on the lines right after it, is what
  the command prints (several such lines: several lines of output). An `output` block or a
  `# →` must match the command's standard output exactly, except that whitespace does not count
  and `…` stands for anything.

A command that exits non-zero fails the page (write `cmd; echo "exit $?"` to show a failure),
as does an output that differs from the one shown, or a `Warning:` on standard error (curl sends
an empty body, exit 0, for a `--data-binary @FILE` it cannot read). Each command has 120 s.
"""

import argparse
import os
import pathlib
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIRECTIVE = re.compile(r"^\s*<!--\s*walkthrough(?::\s*(.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)(.*)$")
EXPECT = re.compile(r"(?:^|\s)#\s*→\s?(.*)$")
PORT = re.compile(r"(?<=127\.0\.0\.1:)(80[89]\d|8443)\b|(?<=localhost:)(80[89]\d|8443)\b|(?<=--port )(80[89]\d)\b")
COMMAND_TIMEOUT = 120


class PageError(Exception):
    """The page's directives cannot be followed."""


class Step:
    """One thing to do, in page order: run a command, check an output, write a file, switch servers."""

    def __init__(self, kind, line, **fields):
        self.kind = kind
        self.line = line
        self.__dict__.update(fields)


def parse(page):
    """The steps of a page, and the pages it may follow; (None, None) when it does not opt in."""
    lines = page.read_text(encoding="utf-8").splitlines()
    steps, after, opted, pending = [], [], False, None
    index = 0
    while index < len(lines):
        text = lines[index]
        number = index + 1
        directive = DIRECTIVE.match(text)
        if directive:
            opted = True
            words = (directive.group(1) or "").split(None, 1)
            verb, rest = (words[0], words[1] if len(words) > 1 else "") if words else ("", "")
            if verb == "":
                pass
            elif verb == "after":
                after.append(rest.strip())
            elif verb in ("skip", "output", "file"):
                if verb == "skip" and not rest.strip():
                    raise PageError(f"{page.name}:{number}: `skip` needs a reason")
                if verb == "file" and not re.fullmatch(r"[\w.+-]+(/[\w.+-]+)*", rest.strip()):
                    raise PageError(f"{page.name}:{number}: `file` needs a relative file name")
                pending = (verb, rest.strip(), number)
            elif verb == "server" and rest.strip() in ("sqlite", "postgres"):
                steps.append(Step("server", number, backend=rest.strip()))
            elif verb == "database" and re.fullmatch(r"[A-Z][A-Z0-9_]*", rest.strip()):
                steps.append(Step("database", number, variable=rest.strip()))
            else:
                raise PageError(f"{page.name}:{number}: unknown walk-through directive {text.strip()!r}")
            index += 1
            continue
        fence = FENCE.match(text)
        if fence:
            marker, language = fence.group(2), fence.group(3)
            body, start = [], number
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(marker[:3]):
                body.append((index + 1, lines[index]))
                index += 1
            index += 1  # the closing fence
            indent = len(fence.group(1))
            body = [(n, line[indent:] if not line[:indent].strip() else line.lstrip()) for n, line in body]
            if pending and pending[0] == "skip":
                if language != "sh":
                    raise PageError(f"{page.name}:{pending[2]}: `skip` must come right before a ```sh block")
            elif pending and pending[0] == "output":
                steps.append(Step("output", start, text="\n".join(line for _, line in body)))
            elif pending and pending[0] == "file":
                steps.append(Step("file", start, name=pending[1], text="".join(line + "\n" for _, line in body)))
            elif language == "sh":
                steps.extend(commands(page, body))
            pending = None
            continue
        if pending and text.strip():
            raise PageError(f"{page.name}:{pending[2]}: `{pending[0]}` must come right before a fenced block")
        index += 1
    if not opted:
        return None, None
    if pending:
        raise PageError(f"{page.name}:{pending[2]}: `{pending[0]}` is followed by no fenced block")
    if not any(step.kind == "command" for step in steps):
        raise PageError(f"{page.name}: opts in to walk-throughs but has no command to run")
    return steps, after


def complete(text):
    """Whether `text` is a whole shell command (bash parses it), not the start of one."""
    stripped = text.rstrip()
    if stripped.endswith(("\\", "|", "&&", "||")):
        return False
    result = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    return result.returncode == 0 and "unexpected end of file" not in result.stderr


def commands(page, body):
    """A ```sh block's commands, each with the output lines `# →` shows for it."""
    steps, pending, first = [], [], None
    last = None
    for number, line in body:
        if not pending:
            bare = line.strip()
            if not bare:
                continue
            if bare.startswith("#"):
                expect = EXPECT.match(bare)
                if expect and last is not None:
                    last.expected.append(expect.group(1))
                elif expect:
                    raise PageError(f"{page.name}:{number}: `# →` before any command")
                continue
            first = number
        expect = EXPECT.search(line) if "→" in line else None
        code = line[: expect.start()] if expect else line
        pending.append(code)
        if complete("\n".join(pending) + "\n"):
            last = Step("command", first, code="\n".join(pending), expected=[])
            if expect:
                last.expected.append(expect.group(1))
            steps.append(last)
            pending = []
        elif expect:
            raise PageError(f"{page.name}:{number}: `# →` inside an unfinished command")
    if pending:
        raise PageError(f"{page.name}:{first}: the block ends inside a command: {pending[0]!r}")
    return steps


def matches(expected, actual):
    """`expected` (whitespace free, `…` for anything) is `actual`."""
    squeeze = lambda text: re.sub(r"\s+", "", text)
    pattern = ".*".join(re.escape(part) for part in squeeze(expected).split("…"))
    return re.fullmatch(pattern, squeeze(actual), re.DOTALL) is not None


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Session:
    """A scratch directory, a server of the binary under test, and one bash that runs the commands."""

    def __init__(self, binary, log):
        self.binary = binary
        self.log = log
        self.work = pathlib.Path(tempfile.mkdtemp(prefix="walkthrough-"))
        self.ports = {}
        self.server = None
        self.postgres = None
        self.databases = []
        self.servers_started = 0
        self.outputs = self.work / ".outputs"
        self.outputs.mkdir()
        for entry in ROOT.iterdir():
            if entry.name in ("data", ".git") or entry.name.startswith(".build"):
                continue
            (self.work / entry.name).symlink_to(entry)
        bin_dir = self.work / ".bin"
        bin_dir.mkdir()
        (bin_dir / "empty-state-server").symlink_to(pathlib.Path(binary).resolve())
        self.path = f"{bin_dir}:{os.environ.get('PATH', '')}"
        self.shell = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            cwd=self.work,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=self.shell_environment(),
            start_new_session=True,
        )
        self.send("set -o pipefail; exec 2>&1")
        self.start_server("sqlite")

    def shell_environment(self):
        environment = {key: value for key, value in os.environ.items() if not key.startswith("EMPTY_STATE_")}
        environment.update(PATH=self.path, HOME=str(self.work), LC_ALL="C.UTF-8")
        return environment

    def port(self, page_port):
        if page_port not in self.ports:
            self.ports[page_port] = free_port()
        return self.ports[page_port]

    def localize(self, text):
        """The page's ports (8080 the server, 8081… others) as this session's."""
        return PORT.sub(lambda match: str(self.port(match.group(0))), text)

    # The server

    def start_server(self, backend):
        self.stop_server()
        data = self.work / "data"
        if data.exists():
            shutil.rmtree(data)
        environment = self.shell_environment()
        if backend == "postgres":
            url = self.postgres_url()
            environment["EMPTY_STATE_DATABASE_URL"] = url
            self.export("EMPTY_STATE_DATABASE_URL", url)
        else:
            self.send("unset EMPTY_STATE_DATABASE_URL")
        self.servers_started += 1
        log_path = self.work / f"server-{self.servers_started}.log"
        server_log = open(log_path, "wb")
        self.server = subprocess.Popen(
            [self.binary, "--host", "127.0.0.1", "--port", "0", "--data-dir", str(data)],
            cwd=self.work,
            stdout=server_log,
            stderr=server_log,
            env=environment,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.findall(rb"http\.port=(\d+)", log_path.read_bytes())
            if found:
                self.ports["8080"] = int(found[-1])
                return
            if self.server.poll() is not None:
                break
            time.sleep(0.05)
        raise PageError("the server did not start:\n" + log_path.read_text(errors="replace"))

    def stop_server(self):
        if self.server and self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(30)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.server = None

    def postgres_url(self):
        """The URL of a database for a new server: the throwaway PostgreSQL's own the first time
        (started here), a new database after that."""
        if self.postgres is not None:
            return self.new_database(f"server{len(self.databases)}")
        self.postgres = self.work / ".postgres"
        result = subprocess.run(
            ["bash", str(ROOT / "scripts/postgres.sh"), "start", str(self.postgres)],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            raise PageError("scripts/postgres.sh start failed:\n" + result.stderr)
        return result.stdout.strip().splitlines()[-1]

    def new_database(self, name):
        """A new, empty database owned by the service's role, on the throwaway PostgreSQL."""
        if self.postgres is None:
            self.postgres_url()
        self.databases.append(name)
        result = subprocess.run(
            ["bash", str(ROOT / "scripts/postgres.sh"), "createdb", str(self.postgres), name],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            raise PageError(f"scripts/postgres.sh createdb {name} failed:\n" + result.stderr)
        return result.stdout.strip().splitlines()[-1]

    # The shell

    def export(self, variable, value):
        self.send(f"export {variable}={shell_quote(value)}")

    def send(self, script):
        """Runs `script` in the session's bash; returns its exit status and what it printed."""
        marker = f"__walkthrough_done_{time.monotonic_ns()}"
        self.shell.stdin.write(f"{script}\nprintf '\\n{marker} %d\\n' \"$?\"\n".encode())
        self.shell.stdin.flush()
        printed = b""
        deadline = time.monotonic() + COMMAND_TIMEOUT
        descriptor = self.shell.stdout.fileno()
        while True:
            found = re.search(rb"\n?" + marker.encode() + rb" (\d+)\n", printed)
            if found:
                return int(found.group(1)), printed[: found.start()].decode(errors="replace")
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([descriptor], [], [], remaining)[0]:
                raise PageError(f"no answer within {COMMAND_TIMEOUT} s:\n" + printed.decode(errors="replace"))
            chunk = os.read(descriptor, 65536)
            if not chunk:
                raise PageError("the shell ended:\n" + printed.decode(errors="replace"))
            printed += chunk

    def run(self, step):
        """Runs a command step; its standard output is kept in a file for the checks."""
        code = self.localize(step.code)
        output = self.outputs / f"{step.line}"
        errors = self.outputs / f"{step.line}.err"
        self.log.write(f"$ {code}\n")
        status, _ = self.send(f"{{\n{code}\n}} >{shell_quote(str(output))} 2>{shell_quote(str(errors))}")
        stdout = output.read_text(errors="replace")
        stderr = errors.read_text(errors="replace")
        self.log.write(stdout + ("" if stdout.endswith("\n") or not stdout else "\n"))
        self.log.write("".join(f"[stderr] {line}\n" for line in stderr.splitlines()))
        return status, stdout, stderr

    def close(self):
        try:
            os.killpg(self.shell.pid, signal.SIGTERM)  # the shell and what the page started in it
        except ProcessLookupError:
            pass
        try:
            self.shell.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.shell.pid, signal.SIGKILL)
        self.stop_server()
        if self.postgres is not None:
            subprocess.run(
                ["bash", str(ROOT / "scripts/postgres.sh"), "stop", str(self.postgres)],
                capture_output=True,
                stdin=subprocess.DEVNULL,
            )
        shutil.rmtree(self.work, ignore_errors=True)


def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def run_pages(binary, pages, parsed, log):
    """Runs `pages` one after the other in one session; returns (commands, outputs checked, failures)."""
    session = Session(binary, log)
    ran = checked = 0
    failures = []
    try:
        for page in pages:
            steps = parsed[page]
            name = page.relative_to(ROOT)
            log.write(f"\n### {name}\n")
            last_output = None
            for step in steps:
                where = f"{name}:{step.line}"
                if step.kind == "server":
                    session.start_server(step.backend)
                    continue
                if step.kind == "database":
                    session.export(step.variable, session.new_database(step.variable.lower()))
                    continue
                if step.kind == "file":
                    (session.work / step.name).parent.mkdir(parents=True, exist_ok=True)
                    (session.work / step.name).write_text(session.localize(step.text), encoding="utf-8")
                    continue
                if step.kind == "output":
                    checked += 1
                    if last_output is None:
                        failures.append(f"{where}: an output block with no command before it")
                    elif not matches(session.localize(step.text), last_output):
                        failures.append(f"{where}: the command printed\n{indent(last_output)}\nnot what the page shows")
                    continue
                ran += 1
                status, stdout, stderr = session.run(step)
                last_output = stdout
                if status != 0:
                    failures.append(
                        f"{where}: exit {status}: {step.code}\n{indent(stdout)}{indent(stderr, '[stderr] ')}"
                    )
                    return ran, checked, failures
                # curl only warns (exit 0) when `--data-binary @FILE` cannot read FILE, and sends
                # an empty body: a page naming a file that is not there must fail here.
                if re.search(r"^Warning: ", stderr, re.MULTILINE):
                    failures.append(f"{where}: {step.code}\n  warned:\n{indent(stderr)}")
                    return ran, checked, failures
                if step.expected:
                    checked += 1
                    expected = session.localize("\n".join(step.expected))
                    if not matches(expected, stdout):
                        failures.append(
                            f"{where}: {step.code}\n  printed:\n{indent(stdout)}\n  the page shows:\n{indent(expected)}"
                        )
    except PageError as error:
        failures.append(f"{pages[-1].relative_to(ROOT)}: {error}")
    finally:
        session.close()
    return ran, checked, failures


def indent(text, prefix=""):
    return "\n".join("    " + prefix + line for line in text.rstrip("\n").splitlines())


def chains(parsed):
    """Every sequence of pages a reader may follow (`after`), longest first, none inside another."""
    by_name = {page.name: page for page in parsed}
    followers = {}
    for page, (_, after) in parsed.items():
        for earlier in after:
            if earlier not in by_name:
                raise PageError(f"{page.name}: `after {earlier}`: no such page opts in")
            followers.setdefault(by_name[earlier], []).append(page)
    found = []

    def walk(path):
        nexts = followers.get(path[-1], [])
        if not nexts:
            found.append(path)
        for page in nexts:
            if page in path:
                raise PageError(f"{page.name}: `after` makes a loop")
            walk(path + [page])

    for page, (_, after) in parsed.items():
        if not after and page in followers:
            walk([page])
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", help="the built empty-state-server")
    parser.add_argument("pages", nargs="*", type=pathlib.Path, help="pages to run (default: every page that opts in)")
    parser.add_argument("--log", type=pathlib.Path, help="write every command and its output here")
    arguments = parser.parse_args()
    binary = str(pathlib.Path(arguments.binary).resolve())
    candidates = arguments.pages or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    parsed = {}
    try:
        for page in candidates:
            page = page.resolve()
            steps, after = parse(page)
            if steps is not None:
                parsed[page] = (steps, after)
        sequences = [[page] for page in parsed] + (chains(parsed) if not arguments.pages else [])
    except PageError as error:
        print(f"walkthroughs: {error}")
        return 1
    if not parsed:
        print("walkthroughs: no page opts in")
        return 1
    log = open(arguments.log, "w", encoding="utf-8") if arguments.log else open(os.devnull, "w")
    total_ran = total_checked = 0
    failed = []
    started = time.monotonic()
    for sequence in sequences:
        label = " → ".join(page.name for page in sequence)
        begun = time.monotonic()
        ran, checked, failures = run_pages(binary, sequence, {page: parsed[page][0] for page in sequence}, log)
        total_ran += ran
        total_checked += checked
        state = "ok  " if not failures else "FAIL"
        print(f"{state}  {label}: {ran} commands, {checked} outputs checked ({time.monotonic() - begun:.1f} s)")
        for failure in failures:
            print("      " + failure.replace("\n", "\n      "))
        failed.extend(failures)
    print(
        f"walkthroughs: {len(sequences)} runs, {total_ran} commands, {total_checked} outputs checked, "
        f"{len(failed)} failure(s) in {time.monotonic() - started:.0f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
