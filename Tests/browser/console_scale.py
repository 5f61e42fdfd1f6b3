"""The console's catalogue search at scale, timed in the page: a server on N templates and the
searches measured from submitting each to its results drawn. Used by the browser checks
(Tests/browser/console.py, the 200 ms target) and by `make bench` (Benchmarks/console.py).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

from harness import ADMIN_TOKEN, Server, ROOT


def scale_server(binary, count):
    """A server on a catalogue of `count` templates (Benchmarks/catalogue.py), started in the
    background while the other checks run: a debug build takes a while to import 10,000."""
    directory = tempfile.mkdtemp(prefix="console-scale-")
    subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "catalogue.py"), str(count), directory, ROOT],
                   check=True, capture_output=True)
    started = time.time()
    server = Server(binary, ["--config-dir", directory], start_timeout=240)
    # The catalogue files are read at start only.
    shutil.rmtree(directory, ignore_errors=True)
    return server, count, time.time() - started


SEARCHES = ["offline", "noDocumentsCopy42", "introuvable", "Zugriff verweigert", "更新", "copy9 update", "zzz-nothing"]


def measure_search(browser, server, searches=SEARCHES):
    """Milliseconds from submitting each search to its results drawn, measured in the page."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(server.url + "/admin/")
    page.get_by_label("Admin token").fill(ADMIN_TOKEN)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector(".results[data-state=ready]", timeout=60000)
    figures = []
    for query in ["warm up"] + searches:
        elapsed = page.evaluate(
            """async (query) => {
                const input = document.querySelector('input[type=search]');
                const results = document.querySelector('.results');
                input.value = query;
                const started = performance.now();
                input.form.requestSubmit();
                await new Promise(resolve => {
                    const done = () => results.dataset.state === 'ready' && results.dataset.resultsFor === query;
                    const observer = new MutationObserver(() => { if (done()) { observer.disconnect(); resolve(); } });
                    observer.observe(results, {attributes: true, childList: true, subtree: true});
                });
                await new Promise(requestAnimationFrame);
                return performance.now() - started;
            }""",
            query,
        )
        if query != "warm up":
            figures.append(elapsed)
    context.close()
    return figures
