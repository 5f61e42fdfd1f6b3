#!/usr/bin/env python3
"""PNGs of the gallery (/preview) from headless Chromium, for the docs and for review.

Usage: Tests/browser/screenshots.py path/to/empty-state-server OUTPUT_DIRECTORY

Writes gallery-<locale>-<size>[-dark].png for a few combinations: English and Arabic at
400x400, German at 200x150, and Arabic at 400x400 in the dark scheme.
"""

import os
import sys

from harness import Server, chromium_path

SHOTS = [
    ("en", "400x400", "default", False),
    ("ar", "400x400", "subtle", False),
    ("de", "200x150", "template", False),
    ("en-XA", "360x640", "template", False),
    ("ar", "400x400", "template", True),
]


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    from playwright.sync_api import sync_playwright

    output = sys.argv[2]
    os.makedirs(output, exist_ok=True)
    server = Server(sys.argv[1])
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1720, "height": 900})
            for locale, size, style, dark in SHOTS:
                page.emulate_media(color_scheme="dark" if dark else "light")
                page.goto(f"{server.url}/preview?locale={locale}&size={size}&style={style}")
                name = f"gallery-{locale}-{size}{'-dark' if dark else ''}.png"
                page.screenshot(path=os.path.join(output, name), full_page=True)
                print(os.path.join(output, name))
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
