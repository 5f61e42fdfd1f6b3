// The embedded files (see include/CAssets.h). Paths are relative to this file.
#include "CAssets.h"

// #embed is C23; clang accepts it in C17 mode with this warning, which is not a problem here.
#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char emptyStateCSS[] = {
#embed "../EmptyStateWeb/Assets/empty-state.css"
};

const unsigned char *CAssets_emptyStateCSS(size_t *count) {
    *count = sizeof(emptyStateCSS);
    return emptyStateCSS;
}

static const unsigned char emptyStateJS[] = {
#embed "../EmptyStateWeb/Assets/empty-state.js"
};

const unsigned char *CAssets_emptyStateJS(size_t *count) {
    *count = sizeof(emptyStateJS);
    return emptyStateJS;
}

static const unsigned char lucideIcons[] = {
#embed "../EmptyStateWeb/Assets/lucide-icons.txt"
};

const unsigned char *CAssets_lucideIcons(size_t *count) {
    *count = sizeof(lucideIcons);
    return lucideIcons;
}
