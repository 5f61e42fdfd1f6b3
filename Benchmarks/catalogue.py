#!/usr/bin/env python3
"""Writes a large catalogue for the scale rows of `make bench`: the built-in templates copied
under new ids until there are N, into OUT/templates (a --config-dir for the server).

  catalogue.py N OUT [REPO_ROOT]

Copies keep the original's copy, locales and rules; ids become `<original>Copy<k>` and aliases
are dropped (they must be unique across the catalogue). The originals are kept as they are, so
the usual ids (connectionRefused, …) are served too. Generated, never committed.
"""
import json
import os
import shutil
import sys

count, out = int(sys.argv[1]), sys.argv[2]
root = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
source = os.path.join(root, "config", "templates")
target = os.path.join(out, "templates")
shutil.rmtree(target, ignore_errors=True)
os.makedirs(target)
originals = []
for name in sorted(os.listdir(source)):
    if name.endswith(".json"):
        shutil.copy(os.path.join(source, name), target)
        with open(os.path.join(source, name)) as f:
            originals.append(json.load(f))
written = len(originals)
k = 0
while written < count:
    for original in originals:
        if written >= count:
            break
        copy = dict(original)
        copy["id"] = f"{original['id']}Copy{k}"
        copy.pop("aliases", None)
        with open(os.path.join(target, copy["id"] + ".json"), "w") as f:
            json.dump(copy, f, ensure_ascii=False)
        written += 1
    k += 1
print(f"{written} templates in {target}")
