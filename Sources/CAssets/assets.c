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

// The admin console (Sources/EmptyStateWeb/Console): one array per file, then a table by name.
// To add a file: an array here and a row in consoleFiles.

static const unsigned char console_index_html[] = {
#embed "../EmptyStateWeb/Console/index.html"
};

static const unsigned char console_console_css[] = {
#embed "../EmptyStateWeb/Console/console.css"
};

static const unsigned char console_console_screens_css[] = {
#embed "../EmptyStateWeb/Console/console-screens.css"
};

static const unsigned char console_app_js[] = {
#embed "../EmptyStateWeb/Console/app.js"
};

static const unsigned char console_api_js[] = {
#embed "../EmptyStateWeb/Console/api.js"
};

static const unsigned char console_dom_js[] = {
#embed "../EmptyStateWeb/Console/dom.js"
};

static const unsigned char console_copy_rules_js[] = {
#embed "../EmptyStateWeb/Console/copy-rules.js"
};

static const unsigned char console_diff_js[] = {
#embed "../EmptyStateWeb/Console/diff.js"
};

static const unsigned char console_screen_signin_js[] = {
#embed "../EmptyStateWeb/Console/screen-signin.js"
};

static const unsigned char console_screen_catalogue_js[] = {
#embed "../EmptyStateWeb/Console/screen-catalogue.js"
};

static const unsigned char console_screen_edit_js[] = {
#embed "../EmptyStateWeb/Console/screen-edit.js"
};

static const unsigned char console_screen_history_js[] = {
#embed "../EmptyStateWeb/Console/screen-history.js"
};

static const unsigned char console_screen_audit_js[] = {
#embed "../EmptyStateWeb/Console/screen-audit.js"
};

static const unsigned char console_screen_tokens_js[] = {
#embed "../EmptyStateWeb/Console/screen-tokens.js"
};

static const unsigned char console_screen_policies_js[] = {
#embed "../EmptyStateWeb/Console/screen-policies.js"
};

static const unsigned char console_screen_numbers_js[] = {
#embed "../EmptyStateWeb/Console/screen-numbers.js"
};

static const unsigned char console_screen_translations_js[] = {
#embed "../EmptyStateWeb/Console/screen-translations.js"
};

static const unsigned char console_part_preview_js[] = {
#embed "../EmptyStateWeb/Console/part-preview.js"
};

static const unsigned char console_part_edit_fields_js[] = {
#embed "../EmptyStateWeb/Console/part-edit-fields.js"
};

static const unsigned char console_part_icon_picker_js[] = {
#embed "../EmptyStateWeb/Console/part-icon-picker.js"
};

static const unsigned char console_part_diff_view_js[] = {
#embed "../EmptyStateWeb/Console/part-diff-view.js"
};

static const unsigned char console_part_chart_js[] = {
#embed "../EmptyStateWeb/Console/part-chart.js"
};

static const unsigned char console_screen_experiments_js[] = {
#embed "../EmptyStateWeb/Console/screen-experiments.js"
};

static const unsigned char console_part_experiment_chart_js[] = {
#embed "../EmptyStateWeb/Console/part-experiment-chart.js"
};

static const unsigned char console_part_experiment_timeline_js[] = {
#embed "../EmptyStateWeb/Console/part-experiment-timeline.js"
};

static const unsigned char console_template_model_js[] = {
#embed "../EmptyStateWeb/Console/template-model.js"
};

static const unsigned char console_part_dialog_js[] = {
#embed "../EmptyStateWeb/Console/part-dialog.js"
};

static const unsigned char console_part_json_editor_js[] = {
#embed "../EmptyStateWeb/Console/part-json-editor.js"
};

static const unsigned char console_edit_general_js[] = {
#embed "../EmptyStateWeb/Console/edit-general.js"
};

static const unsigned char console_edit_actions_js[] = {
#embed "../EmptyStateWeb/Console/edit-actions.js"
};

static const unsigned char console_edit_copy_js[] = {
#embed "../EmptyStateWeb/Console/edit-copy.js"
};

static const unsigned char console_edit_plurals_js[] = {
#embed "../EmptyStateWeb/Console/edit-plurals.js"
};

static const unsigned char console_edit_publish_js[] = {
#embed "../EmptyStateWeb/Console/edit-publish.js"
};

static const unsigned char console_edit_locale_js[] = {
#embed "../EmptyStateWeb/Console/edit-locale.js"
};

static const unsigned char console_experiments_list_js[] = {
#embed "../EmptyStateWeb/Console/experiments-list.js"
};

static const unsigned char console_experiments_detail_js[] = {
#embed "../EmptyStateWeb/Console/experiments-detail.js"
};

static const unsigned char console_experiments_variants_js[] = {
#embed "../EmptyStateWeb/Console/experiments-variants.js"
};

static const unsigned char console_experiments_results_js[] = {
#embed "../EmptyStateWeb/Console/experiments-results.js"
};

static const unsigned char console_experiments_segments_js[] = {
#embed "../EmptyStateWeb/Console/experiments-segments.js"
};

static const unsigned char console_experiments_format_js[] = {
#embed "../EmptyStateWeb/Console/experiments-format.js"
};

static const unsigned char console_experiments_create_js[] = {
#embed "../EmptyStateWeb/Console/experiments-create.js"
};

static const unsigned char console_screen_changes_js[] = {
#embed "../EmptyStateWeb/Console/screen-changes.js"
};

static const unsigned char console_changes_list_js[] = {
#embed "../EmptyStateWeb/Console/changes-list.js"
};

static const unsigned char console_changes_detail_js[] = {
#embed "../EmptyStateWeb/Console/changes-detail.js"
};

static const unsigned char console_changes_steps_js[] = {
#embed "../EmptyStateWeb/Console/changes-steps.js"
};

static const unsigned char console_screen_webhooks_js[] = {
#embed "../EmptyStateWeb/Console/screen-webhooks.js"
};

static const unsigned char console_webhooks_list_js[] = {
#embed "../EmptyStateWeb/Console/webhooks-list.js"
};

static const unsigned char console_webhooks_detail_js[] = {
#embed "../EmptyStateWeb/Console/webhooks-detail.js"
};

static const struct {
    const char *name;
    const unsigned char *bytes;
    size_t count;
} consoleFiles[] = {
    {"index.html", console_index_html, sizeof(console_index_html)},
    {"console.css", console_console_css, sizeof(console_console_css)},
    {"console-screens.css", console_console_screens_css, sizeof(console_console_screens_css)},
    {"app.js", console_app_js, sizeof(console_app_js)},
    {"api.js", console_api_js, sizeof(console_api_js)},
    {"dom.js", console_dom_js, sizeof(console_dom_js)},
    {"copy-rules.js", console_copy_rules_js, sizeof(console_copy_rules_js)},
    {"diff.js", console_diff_js, sizeof(console_diff_js)},
    {"screen-signin.js", console_screen_signin_js, sizeof(console_screen_signin_js)},
    {"screen-catalogue.js", console_screen_catalogue_js, sizeof(console_screen_catalogue_js)},
    {"screen-edit.js", console_screen_edit_js, sizeof(console_screen_edit_js)},
    {"screen-history.js", console_screen_history_js, sizeof(console_screen_history_js)},
    {"screen-audit.js", console_screen_audit_js, sizeof(console_screen_audit_js)},
    {"screen-tokens.js", console_screen_tokens_js, sizeof(console_screen_tokens_js)},
    {"screen-policies.js", console_screen_policies_js, sizeof(console_screen_policies_js)},
    {"screen-numbers.js", console_screen_numbers_js, sizeof(console_screen_numbers_js)},
    {"screen-translations.js", console_screen_translations_js, sizeof(console_screen_translations_js)},
    {"part-preview.js", console_part_preview_js, sizeof(console_part_preview_js)},
    {"part-edit-fields.js", console_part_edit_fields_js, sizeof(console_part_edit_fields_js)},
    {"part-icon-picker.js", console_part_icon_picker_js, sizeof(console_part_icon_picker_js)},
    {"part-diff-view.js", console_part_diff_view_js, sizeof(console_part_diff_view_js)},
    {"part-chart.js", console_part_chart_js, sizeof(console_part_chart_js)},
    {"screen-experiments.js", console_screen_experiments_js, sizeof(console_screen_experiments_js)},
    {"part-experiment-chart.js", console_part_experiment_chart_js, sizeof(console_part_experiment_chart_js)},
    {"part-experiment-timeline.js", console_part_experiment_timeline_js, sizeof(console_part_experiment_timeline_js)},
    {"template-model.js", console_template_model_js, sizeof(console_template_model_js)},
    {"part-dialog.js", console_part_dialog_js, sizeof(console_part_dialog_js)},
    {"part-json-editor.js", console_part_json_editor_js, sizeof(console_part_json_editor_js)},
    {"edit-general.js", console_edit_general_js, sizeof(console_edit_general_js)},
    {"edit-actions.js", console_edit_actions_js, sizeof(console_edit_actions_js)},
    {"edit-copy.js", console_edit_copy_js, sizeof(console_edit_copy_js)},
    {"edit-plurals.js", console_edit_plurals_js, sizeof(console_edit_plurals_js)},
    {"edit-publish.js", console_edit_publish_js, sizeof(console_edit_publish_js)},
    {"edit-locale.js", console_edit_locale_js, sizeof(console_edit_locale_js)},
    {"experiments-list.js", console_experiments_list_js, sizeof(console_experiments_list_js)},
    {"experiments-detail.js", console_experiments_detail_js, sizeof(console_experiments_detail_js)},
    {"experiments-variants.js", console_experiments_variants_js, sizeof(console_experiments_variants_js)},
    {"experiments-results.js", console_experiments_results_js, sizeof(console_experiments_results_js)},
    {"experiments-segments.js", console_experiments_segments_js, sizeof(console_experiments_segments_js)},
    {"experiments-format.js", console_experiments_format_js, sizeof(console_experiments_format_js)},
    {"experiments-create.js", console_experiments_create_js, sizeof(console_experiments_create_js)},
    {"screen-changes.js", console_screen_changes_js, sizeof(console_screen_changes_js)},
    {"changes-list.js", console_changes_list_js, sizeof(console_changes_list_js)},
    {"changes-detail.js", console_changes_detail_js, sizeof(console_changes_detail_js)},
    {"changes-steps.js", console_changes_steps_js, sizeof(console_changes_steps_js)},
    {"screen-webhooks.js", console_screen_webhooks_js, sizeof(console_screen_webhooks_js)},
    {"webhooks-list.js", console_webhooks_list_js, sizeof(console_webhooks_list_js)},
    {"webhooks-detail.js", console_webhooks_detail_js, sizeof(console_webhooks_detail_js)},
};

size_t CAssets_consoleFileCount(void) {
    return sizeof(consoleFiles) / sizeof(consoleFiles[0]);
}

const unsigned char *CAssets_consoleFile(size_t index, const char **name, size_t *count) {
    if (index >= CAssets_consoleFileCount()) {
        *name = NULL;
        *count = 0;
        return NULL;
    }
    *name = consoleFiles[index].name;
    *count = consoleFiles[index].count;
    return consoleFiles[index].bytes;
}
