"""What the Python benchmarks share: a wrk run, a percentile, and the results file."""
import os
import re
import subprocess
import sys


def wrk(url, duration, threads=2, connections=64, pin=None):
    """Runs `wrk --latency` on `url` for `duration` (wrk's syntax: "5s"), on CPU list `pin` when
    given (taskset). Returns (requests/s, what went wrong: socket errors and non-2xx/3xx answers,
    as text; empty when nothing did). Exits when wrk itself fails."""
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}", "--latency", url]
    if pin is not None:
        command = ["taskset", "-c", pin] + command
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"wrk failed ({result.returncode}): {result.stderr.strip()}")
    output = result.stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    errors = []
    socket_errors = re.search(r"Socket errors: (.*)", output)
    if socket_errors and any(int(n) > 0 for n in re.findall(r"\d+", socket_errors.group(1))):
        errors.append(f"socket errors: {socket_errors.group(1)}")
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if non_2xx:
        errors.append(f"non-2xx/3xx: {non_2xx.group(1)}")
    return rate, errors


def percentile(values, fraction):
    """The value at `fraction` (0–1) of `values`, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def report(root, lines):
    """Prints a benchmark's table and appends it to Benchmarks/results/latest.md."""
    print("\n".join(lines))
    results = os.path.join(root, "Benchmarks", "results")
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "latest.md"), "a") as f:
        f.write("\n" + "\n".join(lines) + "\n")
