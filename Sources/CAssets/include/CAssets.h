// Files compiled into the binary with C23 #embed: the web stylesheet, the web component, the
// icon set and the admin console's files (assets.c), the built-in catalogue (catalogue.c) and
// the OpenAPI document (openapi.c).
//
// Why not SwiftPM resources: `.embedInCode` of a 200 KB file adds about 80 s to a debug build,
// and `.copy` resources need a bundle found at run time beside the binary. #embed costs nothing
// to compile, and SwiftPM's dependency tracking rebuilds assets.c when an embedded file changes.
//
// One accessor per file: it returns the bytes and writes their count (an incomplete C array
// would not import into Swift). The bytes are static and never freed.
#ifndef CASSETS_H
#define CASSETS_H

#include <stddef.h>

/// Sources/EmptyStateWeb/Assets/empty-state.css: the empty state's stylesheet.
const unsigned char *CAssets_emptyStateCSS(size_t *count);

/// Sources/EmptyStateWeb/Assets/empty-state.js: the <empty-state> web component (an ES module).
const unsigned char *CAssets_emptyStateJS(size_t *count);

/// Sources/EmptyStateWeb/Assets/lucide-icons.txt: the icon set (Tools/icons/generate.py).
const unsigned char *CAssets_lucideIcons(size_t *count);

/// The admin console's files (Sources/EmptyStateWeb/Console): how many there are.
size_t CAssets_consoleFileCount(void);

/// The console file at `index` (0 ..< CAssets_consoleFileCount()): its bytes, and its name (a
/// static string, e.g. "app.js") and byte count written to `name` and `count`. NULL past the end.
const unsigned char *CAssets_consoleFile(size_t index, const char **name, size_t *count);

/// The repository's openapi.yaml: what GET /openapi.yaml serves unless --openapi-path names a file.
const unsigned char *CAssets_openAPI(size_t *count);

/// One file of a set compiled in: its name and bytes.
struct CAssets_File {
    const char *name;
    const unsigned char *bytes;
    size_t count;
};

/// How many templates config/templates held at build time (catalogue.c).
size_t CAssets_builtinTemplateCount(void);

/// The template at `index` (below `CAssets_builtinTemplateCount()`): `<id>.json` and its bytes.
struct CAssets_File CAssets_builtinTemplate(size_t index);

#endif
