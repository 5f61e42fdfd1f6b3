// The built-in catalogue (config/templates/*.json), compiled in so that the binary needs no file
// beside it (see include/CAssets.h). Paths are relative to this file.
//
// #embed cannot list a directory: each template has its block here, in file-name order. Adding a
// template to config/templates means adding its block; EmptyStateServiceTests'
// BuiltinFilesTests fails while a file is missing here or a block names no file.
#include "CAssets.h"

#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char template_accessRestricted[] = {
#embed "../../config/templates/accessRestricted.json"
};
static const unsigned char template_appUpdateRequired[] = {
#embed "../../config/templates/appUpdateRequired.json"
};
static const unsigned char template_connectionRefused[] = {
#embed "../../config/templates/connectionRefused.json"
};
static const unsigned char template_continueToBrowser[] = {
#embed "../../config/templates/continueToBrowser.json"
};
static const unsigned char template_loading[] = {
#embed "../../config/templates/loading.json"
};
static const unsigned char template_loginRequired[] = {
#embed "../../config/templates/loginRequired.json"
};
static const unsigned char template_noDocuments[] = {
#embed "../../config/templates/noDocuments.json"
};
static const unsigned char template_noFavorites[] = {
#embed "../../config/templates/noFavorites.json"
};
static const unsigned char template_noSearchResults[] = {
#embed "../../config/templates/noSearchResults.json"
};
static const unsigned char template_noTransactions[] = {
#embed "../../config/templates/noTransactions.json"
};
static const unsigned char template_optionalUpdateAvailable[] = {
#embed "../../config/templates/optionalUpdateAvailable.json"
};
static const unsigned char template_osUpdateRequired[] = {
#embed "../../config/templates/osUpdateRequired.json"
};
static const unsigned char template_pageNotAvailable[] = {
#embed "../../config/templates/pageNotAvailable.json"
};
static const unsigned char template_somethingWentWrong[] = {
#embed "../../config/templates/somethingWentWrong.json"
};
static const unsigned char template_verifyIdentity[] = {
#embed "../../config/templates/verifyIdentity.json"
};

static const struct CAssets_File templates[] = {
    { "accessRestricted.json", template_accessRestricted, sizeof(template_accessRestricted) },
    { "appUpdateRequired.json", template_appUpdateRequired, sizeof(template_appUpdateRequired) },
    { "connectionRefused.json", template_connectionRefused, sizeof(template_connectionRefused) },
    { "continueToBrowser.json", template_continueToBrowser, sizeof(template_continueToBrowser) },
    { "loading.json", template_loading, sizeof(template_loading) },
    { "loginRequired.json", template_loginRequired, sizeof(template_loginRequired) },
    { "noDocuments.json", template_noDocuments, sizeof(template_noDocuments) },
    { "noFavorites.json", template_noFavorites, sizeof(template_noFavorites) },
    { "noSearchResults.json", template_noSearchResults, sizeof(template_noSearchResults) },
    { "noTransactions.json", template_noTransactions, sizeof(template_noTransactions) },
    { "optionalUpdateAvailable.json", template_optionalUpdateAvailable, sizeof(template_optionalUpdateAvailable) },
    { "osUpdateRequired.json", template_osUpdateRequired, sizeof(template_osUpdateRequired) },
    { "pageNotAvailable.json", template_pageNotAvailable, sizeof(template_pageNotAvailable) },
    { "somethingWentWrong.json", template_somethingWentWrong, sizeof(template_somethingWentWrong) },
    { "verifyIdentity.json", template_verifyIdentity, sizeof(template_verifyIdentity) },
};

size_t CAssets_builtinTemplateCount(void) {
    return sizeof(templates) / sizeof(templates[0]);
}

struct CAssets_File CAssets_builtinTemplate(size_t index) {
    return templates[index];
}
