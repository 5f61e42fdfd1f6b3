// The contract served at GET /openapi.yaml (the repository's openapi.yaml), compiled in so that
// the binary needs no file beside it (see include/CAssets.h). The path is relative to this file.
#include "CAssets.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char openAPI[] = {
#embed "../../openapi.yaml"
};

const unsigned char *CAssets_openAPI(size_t *count) {
    *count = sizeof(openAPI);
    return openAPI;
}
