#!/usr/bin/env python3
"""Drive a running empty-state-service through the client openapi-python-client generated.

    python3 Tests/integration/python_client_smoke.py --client-dir DIR --base-url URL \
        --editor-token TOKEN --viewer-token TOKEN

DIR holds the generated package `empty_state_client`. Every operation of openapi.yaml is called
through it: its success, and each documented error a correct client can provoke, must come back
with the documented status and be decoded into the generated model of that response (a `Problem`
for errors). Statuses a generated client cannot provoke by construction (405: it always uses the
right method; 400 invalid-body and 415: its bodies are typed JSON) are provoked with raw requests
and decoded through the operation's own generated response parser. One line per check; the last
line is `N passed, M failed`; exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

passed = failed = 0


def check(name: str, ok: bool, detail: str = "") -> None:
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name} {detail}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--client-dir", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--editor-token", required=True)
    parser.add_argument("--viewer-token", required=True)
    parser.add_argument("--admin-token", required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.client_dir)

    import httpx
    from empty_state_client import AuthenticatedClient, Client
    from empty_state_client import models as m
    from empty_state_client.api.admin import (
        delete_admin_template, export_analytics_events, get_admin_app_policy, get_admin_app_policy_revision,
        export_translations, get_admin_template, get_admin_template_revision, get_analytics_summary,
        head_admin_app_policy, head_translation_export, import_translations,
        head_admin_app_policy_revision, head_admin_app_policy_revisions, head_admin_audit, head_admin_locales,
        head_admin_template, head_admin_template_revision, head_admin_template_revisions, head_admin_templates,
        head_analytics_events, head_analytics_summary, list_admin_app_policy_revisions, list_admin_audit,
        list_admin_locales, list_admin_template_revisions, list_admin_templates, put_admin_app_policy,
        put_admin_template, put_admin_template_strings, rollback_admin_app_policy, rollback_admin_template)
    from empty_state_client.api.admin import export_admin_audit, head_admin_audit_export
    from empty_state_client.api.admin import (
        approve_admin_change_request, comment_admin_change_request, create_admin_change_request,
        edit_admin_change_request, get_admin_change_request, get_admin_review_rules, head_admin_change_request,
        head_admin_change_requests, head_admin_review_rules, list_admin_change_requests,
        publish_admin_change_request, put_admin_review_rules, rebase_admin_change_request,
        reject_admin_change_request, rollback_admin_change_request, schedule_admin_change_request,
        unschedule_admin_change_request, withdraw_admin_change_request)
    from empty_state_client.api.analytics import post_events
    from empty_state_client.api.console import (
        create_console_session, decide_app_policy, delete_console_session, get_console, get_console_file,
        get_console_redirect, get_console_session, head_catalogue, head_console, head_console_file,
        head_console_redirect, head_console_session, list_catalogue, preview_template)
    from empty_state_client.api.meta import get_open_api_document, head_open_api_document
    from empty_state_client.api.operations import (
        get_health, get_metrics, get_readiness, head_health, head_metrics, head_readiness)
    from empty_state_client.api.templates import (
        get_app_status, get_template, head_app_status, head_template, head_templates, list_templates)

    anonymous = Client(base_url=args.base_url, timeout=httpx.Timeout(15.0))
    editor = AuthenticatedClient(base_url=args.base_url, token=args.editor_token, timeout=httpx.Timeout(15.0))
    viewer = AuthenticatedClient(base_url=args.base_url, token=args.viewer_token, timeout=httpx.Timeout(15.0))
    admin = AuthenticatedClient(base_url=args.base_url, token=args.admin_token, timeout=httpx.Timeout(15.0))

    def expect(name: str, response: Any, status: int, model: type | None) -> Any:
        """The response has `status` and its parsed body is a `model` (None: no body expected)."""
        got = response.status_code
        parsed = response.parsed
        if model is None:
            check(f"{name}: {status}", got == status, f"(got {got})")
        else:
            check(f"{name}: {status} as {model.__name__}", got == status and isinstance(parsed, model),
                  f"(got {got}, {type(parsed).__name__}: {str(parsed)[:200]})")
        return parsed

    def problem(name: str, response: Any, status: int, slug: str) -> None:
        parsed = expect(name, response, status, m.Problem)
        if isinstance(parsed, m.Problem):
            check(f"{name}: problem {slug}", parsed.type_.value == f"urn:empty-state:problem:{slug}"
                  and parsed.status == status, f"(got {parsed.type_.value} {parsed.status})")

    def raw(module: Any, client: Any, method: str, path: str, **kwargs: Any) -> Any:
        """A raw request, decoded by `module`'s generated response parser."""
        response = client.get_httpx_client().request(method, path, **kwargs)
        return module._build_response(client=client, response=response)

    # -- operations and meta ------------------------------------------------------------------
    expect("getHealth", get_health.sync_detailed(client=anonymous), 200, m.Health)
    expect("headHealth", head_health.sync_detailed(client=anonymous), 200, None)
    expect("getReadiness", get_readiness.sync_detailed(client=anonymous), 200, m.Readiness)
    expect("headReadiness", head_readiness.sync_detailed(client=anonymous), 200, None)
    expect("getMetrics", get_metrics.sync_detailed(client=anonymous), 200, str)
    expect("headMetrics", head_metrics.sync_detailed(client=anonymous), 200, None)
    document = get_open_api_document.sync_detailed(client=anonymous)
    expect("getOpenAPIDocument", document, 200, str)
    expect("headOpenAPIDocument", head_open_api_document.sync_detailed(client=anonymous), 200, None)
    expect("getOpenAPIDocument If-None-Match",
           get_open_api_document.sync_detailed(client=anonymous, if_none_match=document.headers["ETag"]), 304, None)
    problem("getHealth with POST", raw(get_health, anonymous, "POST", "/healthz"), 405, "method-not-allowed")

    # -- templates ------------------------------------------------------------------------------
    template = get_template.sync_detailed("connectionRefused", client=anonymous, locale="fr", platform=m.Platform.IOS)
    parsed = expect("getTemplate", template, 200, m.Template)
    if isinstance(parsed, m.Template):
        check("getTemplate: typed members", parsed.locale == "fr" and parsed.platform == m.Platform.IOS
              and isinstance(parsed.visual, m.Visual) and all(isinstance(a, m.Action) for a in parsed.actions))
        check("getTemplate: the body carries its revision", isinstance(parsed.revision, int) and parsed.revision >= 1,
              f"(got {parsed.revision!r})")
    expect("getTemplate If-None-Match", get_template.sync_detailed(
        "connectionRefused", client=anonymous, locale="fr", platform=m.Platform.IOS,
        if_none_match=template.headers["ETag"]), 304, None)
    filled = expect("getTemplate param.provider", get_template.sync_detailed(
        "verifyIdentity", client=anonymous, locale="en",
        param=m.GetTemplateParam.from_dict({"param.provider": "BankID"})), 200, m.Template)
    if isinstance(filled, m.Template):
        check("getTemplate param.provider: filled", "BankID" in filled.title + (filled.message or "")
              and filled.placeholders == [], f"(got {filled.title!r} {filled.placeholders})")
    problem("getTemplate bad locale", get_template.sync_detailed("connectionRefused", client=anonymous,
                                                                 locale="fr_FR!"), 400, "invalid-parameter")
    problem("getTemplate unknown", get_template.sync_detailed("noSuchTemplate", client=anonymous), 404,
            "unknown-template")
    problem("getTemplate with POST", raw(get_template, anonymous, "POST", "/v1/templates/loading"), 405,
            "method-not-allowed")
    expect("headTemplate", head_template.sync_detailed("loading", client=anonymous), 200, None)
    expect("headTemplate unknown", head_template.sync_detailed("noSuchTemplate", client=anonymous), 404, None)
    bundle = list_templates.sync_detailed(client=anonymous, locale="de", platform=m.Platform.ANDROID)
    parsed = expect("listTemplates", bundle, 200, m.TemplateBundle)
    if isinstance(parsed, m.TemplateBundle):
        check("listTemplates: every template typed", len(parsed.templates) > 0
              and all(isinstance(t, m.Template) for t in parsed.templates))
    expect("listTemplates If-None-Match", list_templates.sync_detailed(
        client=anonymous, locale="de", platform=m.Platform.ANDROID, if_none_match=bundle.headers["ETag"]), 304, None)
    problem("listTemplates bad locale", list_templates.sync_detailed(client=anonymous, locale="-"), 400,
            "invalid-parameter")
    expect("headTemplates", head_templates.sync_detailed(client=anonymous), 200, None)
    expect("getAppStatus", get_app_status.sync_detailed(client=anonymous, platform=m.Platform.IOS,
                                                         app_version="5.2.0"), 200, m.AppStatus)
    problem("getAppStatus bad appVersion", get_app_status.sync_detailed(
        client=anonymous, platform=m.Platform.IOS, app_version="v5"), 400, "invalid-parameter")
    expect("headAppStatus", head_app_status.sync_detailed(client=anonymous, platform=m.Platform.IOS,
                                                          app_version="5.2.0"), 200, None)

    # -- events ---------------------------------------------------------------------------------
    now = datetime.now(timezone.utc)
    event = m.Event(id=str(uuid.uuid4()), type_=m.EventType.DISPLAYED, template_id="connectionRefused",
                    locale="fr", platform=m.Platform.IOS, app_version="0.0.1-python", occurred_at=now, revision=1)
    batch = m.EventBatch(events=[event, m.Event(
        id=str(uuid.uuid4()), type_=m.EventType.ACTIONTAPPED, template_id="connectionRefused", locale="fr",
        platform=m.Platform.IOS, app_version="0.0.1-python", occurred_at=now, action_id="retry",
        etag=template.headers["ETag"])])
    result = expect("postEvents batch", post_events.sync_detailed(client=anonymous, body=batch), 202, m.IngestResult)
    if isinstance(result, m.IngestResult):
        check("postEvents batch: accepted 2", result.accepted == 2 and result.rejected == [], f"(got {result})")
    result = expect("postEvents batch again", post_events.sync_detailed(client=anonymous, body=batch), 202,
                    m.IngestResult)
    if isinstance(result, m.IngestResult):
        check("postEvents batch again: 2 duplicates", result.duplicates == 2 and result.accepted == 0)
    single = m.Event(id=str(uuid.uuid4()), type_=m.EventType.DISPLAYED, template_id="loading", locale="en",
                     platform=m.Platform.WEB, app_version="0.0.1-python", occurred_at=now, revision=1)
    expect("postEvents single", post_events.sync_detailed(client=anonymous, body=single), 202, m.IngestResult)
    problem("postEvents not an object", raw(post_events, anonymous, "POST", "/v1/events", content=b"[]",
                                            headers={"Content-Type": "application/json"}), 400, "invalid-body")
    problem("postEvents not JSON", raw(post_events, anonymous, "POST", "/v1/events", content=b"{",
                                       headers={"Content-Type": "application/json"}), 400, "invalid-json")
    problem("postEvents text/plain", raw(post_events, anonymous, "POST", "/v1/events", content=b"{}",
                                         headers={"Content-Type": "text/plain"}), 415, "unsupported-media-type")
    too_many = m.EventBatch(events=[single] * 501)
    problem("postEvents 501 events", post_events.sync_detailed(client=anonymous, body=too_many), 413,
            "payload-too-large")
    problem("postEvents with GET", raw(post_events, anonymous, "GET", "/v1/events"), 405, "method-not-allowed")

    # -- admin: templates -----------------------------------------------------------------------
    expect("listAdminTemplates", list_admin_templates.sync_detailed(client=editor, page_size=5), 200,
           m.TemplateSummaryPage)
    problem("listAdminTemplates without a token", list_admin_templates.sync_detailed(client=anonymous), 401,
            "unauthorized")
    problem("listAdminTemplates pageSize=0", list_admin_templates.sync_detailed(client=editor, page_size=0), 400,
            "invalid-parameter")
    expect("headAdminTemplates", head_admin_templates.sync_detailed(client=editor), 200, None)

    scratch = "pySmoke" + uuid.uuid4().hex[:8]
    source = get_admin_template.sync_detailed("noDocuments", client=editor)
    base = expect("getAdminTemplate", source, 200, m.AdminTemplate)
    if not isinstance(base, m.AdminTemplate):
        print(f"{passed} passed, {failed + 1} failed")
        return 1
    check("getAdminTemplate: typed document and string updates", isinstance(base.template, m.TemplateDocument)
          and isinstance(base.template.visual, (m.IconVisual, m.IllustrationVisual))
          and all(isinstance(s, m.StringUpdate) for s in base.string_updates))
    labels = [k for k in base.template.strings.additional_properties[base.template.default_locale].to_dict()
              if k.startswith("actions.")]
    check("getAdminTemplate: LocaleStrings carries actions.<id> keys", len(labels) == len(base.template.actions),
          f"(got {labels})")
    expect("getAdminTemplate If-None-Match", get_admin_template.sync_detailed(
        "noDocuments", client=editor, if_none_match=source.headers["ETag"]), 304, None)
    problem("getAdminTemplate unknown", get_admin_template.sync_detailed("noSuchTemplate", client=editor), 404,
            "unknown-template")
    expect("headAdminTemplate", head_admin_template.sync_detailed("noDocuments", client=editor), 200, None)

    document_dict = base.template.to_dict()
    document_dict["id"] = scratch
    document_dict.pop("aliases", None)
    document = m.TemplateDocument.from_dict(document_dict)
    expect("putAdminTemplate validateOnly", put_admin_template.sync_detailed(
        scratch, client=editor, body=document, validate_only=True), 200, m.TemplateValidation)
    problem("putAdminTemplate without a precondition", put_admin_template.sync_detailed(
        scratch, client=editor, body=document), 428, "precondition-required")
    problem("putAdminTemplate as a viewer", put_admin_template.sync_detailed(
        scratch, client=viewer, body=document, if_none_match="*"), 403, "forbidden")
    wrong = m.TemplateDocument.from_dict({**document_dict, "id": scratch + "X"})
    problem("putAdminTemplate id mismatch", put_admin_template.sync_detailed(
        scratch, client=editor, body=wrong, if_none_match="*"), 422, "validation-failed")
    created = expect("putAdminTemplate create", put_admin_template.sync_detailed(
        scratch, client=editor, body=document, if_none_match="*"), 201, m.AdminTemplateWritten)
    problem("putAdminTemplate create again", put_admin_template.sync_detailed(
        scratch, client=editor, body=document, if_none_match="*"), 412, "precondition-failed")
    replaced = put_admin_template.sync_detailed(scratch, client=editor, body=document, if_match='"r1"')
    expect("putAdminTemplate replace", replaced, 200, m.AdminTemplateWritten)
    problem("putAdminTemplate stale If-Match", put_admin_template.sync_detailed(
        scratch, client=editor, body=document, if_match='"r1"'), 412, "precondition-failed")
    # Round trip: what GET answered, edited and sent back as it is (the wrapper included).
    read = get_admin_template.sync_detailed(scratch, client=editor)
    wrapper = expect("getAdminTemplate scratch", read, 200, m.AdminTemplate)
    if isinstance(wrapper, m.AdminTemplate):
        wrapper.template.style = m.TemplateDocumentStyle.SUBTLE
        written = expect("putAdminTemplate round trip (GET body sent back)", put_admin_template.sync_detailed(
            scratch, client=editor, body=wrapper, if_match=read.headers["ETag"]), 200, m.AdminTemplateWritten)
        if isinstance(written, m.AdminTemplateWritten):
            check("putAdminTemplate round trip: the edit is stored", written.revision == 3
                  and written.template.style == m.TemplateDocumentStyle.SUBTLE, f"(got {written.to_dict()})")
    strings = m.StringsUpdate.from_dict(
        base.template.strings.additional_properties[base.template.default_locale].to_dict())
    expect("putAdminTemplateStrings", put_admin_template_strings.sync_detailed(
        scratch, "fr", client=editor, body=strings, if_match='"r3"'), 200, m.AdminTemplateWritten)
    # If-Match is a required parameter: the generated client cannot leave it out.
    problem("putAdminTemplateStrings without If-Match", raw(
        put_admin_template_strings, editor, "PUT", f"/v1/admin/templates/{scratch}/strings/fr",
        json=strings.to_dict()), 428, "precondition-required")
    problem("putAdminTemplateStrings pseudo-locale", put_admin_template_strings.sync_detailed(
        scratch, "en-XA", client=editor, body=strings, if_match='"r4"'), 400, "invalid-parameter")
    expect("listAdminTemplateRevisions", list_admin_template_revisions.sync_detailed(scratch, client=editor), 200,
           m.RevisionPage)
    expect("headAdminTemplateRevisions", head_admin_template_revisions.sync_detailed(scratch, client=editor), 200,
           None)
    expect("getAdminTemplateRevision", get_admin_template_revision.sync_detailed(scratch, 1, client=editor), 200,
           m.Revision)
    problem("getAdminTemplateRevision unknown", get_admin_template_revision.sync_detailed(
        scratch, 99, client=editor), 404, "unknown-revision")
    expect("headAdminTemplateRevision", head_admin_template_revision.sync_detailed(scratch, 1, client=editor), 200,
           None)
    expect("rollbackAdminTemplate", rollback_admin_template.sync_detailed(
        scratch, client=editor, body=m.Rollback(revision=1)), 200, m.AdminTemplateWritten)
    problem("rollbackAdminTemplate unknown revision", rollback_admin_template.sync_detailed(
        scratch, client=editor, body=m.Rollback(revision=99)), 404, "unknown-revision")
    problem("deleteAdminTemplate stale", delete_admin_template.sync_detailed(scratch, client=editor,
                                                                           if_match='"r1"'), 412,
            "precondition-failed")
    expect("deleteAdminTemplate", delete_admin_template.sync_detailed(scratch, client=editor, if_match='"r5"'), 204,
           None)
    problem("getAdminTemplate deleted", get_admin_template.sync_detailed(scratch, client=editor), 404,
            "template-deleted")

    # -- admin: locales, audit ------------------------------------------------------------------
    expect("listAdminLocales", list_admin_locales.sync_detailed(client=viewer), 200, m.Locales)
    expect("headAdminLocales", head_admin_locales.sync_detailed(client=viewer), 200, None)
    expect("listAdminAudit", list_admin_audit.sync_detailed(client=viewer, template_id=scratch), 200, m.RevisionPage)
    problem("listAdminAudit both filters", list_admin_audit.sync_detailed(
        client=viewer, template_id=scratch, app_policy=m.Platform.IOS), 400, "invalid-parameter")
    expect("headAdminAudit", head_admin_audit.sync_detailed(client=viewer), 200, None)

    # -- admin: app policies --------------------------------------------------------------------
    current = get_admin_app_policy.sync_detailed(m.Platform.WEB, client=editor)
    policy = m.AppPolicyDocument(minimum_version="1.0.0", latest_version="2.0.0",
                                 store_url="https://example.com/app")
    if current.status_code == 404:
        problem("getAdminAppPolicy none yet", current, 404, "unknown-app-policy")
        written = put_admin_app_policy.sync_detailed(m.Platform.WEB, client=editor, body=policy, if_none_match="*")
        expect("putAdminAppPolicy create", written, 201, m.AdminAppPolicy)
    else:
        expect("getAdminAppPolicy", current, 200, m.AdminAppPolicy)
        written = put_admin_app_policy.sync_detailed(m.Platform.WEB, client=editor, body=policy,
                                                     if_match=current.headers["ETag"])
        expect("putAdminAppPolicy replace", written, 200, m.AdminAppPolicy)
    expect("putAdminAppPolicy validateOnly", put_admin_app_policy.sync_detailed(
        m.Platform.WEB, client=editor, body=policy, validate_only=True), 200, m.AppPolicyValidation)
    problem("putAdminAppPolicy stale", put_admin_app_policy.sync_detailed(
        m.Platform.WEB, client=editor, body=policy, if_match='"r999"'), 412, "precondition-failed")
    got = get_admin_app_policy.sync_detailed(m.Platform.WEB, client=editor)
    expect("getAdminAppPolicy", got, 200, m.AdminAppPolicy)
    expect("getAdminAppPolicy If-None-Match", get_admin_app_policy.sync_detailed(
        m.Platform.WEB, client=editor, if_none_match=got.headers["ETag"]), 304, None)
    expect("headAdminAppPolicy", head_admin_app_policy.sync_detailed(m.Platform.WEB, client=editor), 200, None)
    expect("listAdminAppPolicyRevisions", list_admin_app_policy_revisions.sync_detailed(
        m.Platform.WEB, client=editor), 200, m.RevisionPage)
    expect("headAdminAppPolicyRevisions", head_admin_app_policy_revisions.sync_detailed(
        m.Platform.WEB, client=editor), 200, None)
    expect("getAdminAppPolicyRevision", get_admin_app_policy_revision.sync_detailed(
        m.Platform.WEB, 1, client=editor), 200, m.Revision)
    problem("getAdminAppPolicyRevision unknown", get_admin_app_policy_revision.sync_detailed(
        m.Platform.WEB, 9999, client=editor), 404, "unknown-revision")
    expect("headAdminAppPolicyRevision", head_admin_app_policy_revision.sync_detailed(
        m.Platform.WEB, 1, client=editor), 200, None)
    expect("rollbackAdminAppPolicy", rollback_admin_app_policy.sync_detailed(
        m.Platform.WEB, client=editor, body=m.Rollback(revision=1)), 200, m.AdminAppPolicy)

    # -- admin: analytics -----------------------------------------------------------------------
    summary = expect("getAnalyticsSummary", get_analytics_summary.sync_detailed(
        client=viewer, group_by=m.AnalyticsGrouping.LOCALE), 200, m.AnalyticsSummary)
    if isinstance(summary, m.AnalyticsSummary):
        check("getAnalyticsSummary: typed totals and groups", isinstance(summary.totals, m.AnalyticsCounts)
              and all(isinstance(g, m.AnalyticsCounts) for g in summary.groups))
    problem("getAnalyticsSummary from after to", get_analytics_summary.sync_detailed(
        client=viewer, from_=datetime(2030, 1, 1, tzinfo=timezone.utc), to=datetime(2020, 1, 1, tzinfo=timezone.utc)),
        400, "invalid-parameter")
    expect("headAnalyticsSummary", head_analytics_summary.sync_detailed(client=viewer), 200, None)
    export = expect("exportAnalyticsEvents", export_analytics_events.sync_detailed(client=viewer, limit=5), 200, str)
    if isinstance(export, str):
        check("exportAnalyticsEvents: NDJSON lines are ExportedEvent", all(
            isinstance(m.ExportedEvent.from_dict(__import__("json").loads(line)), m.ExportedEvent)
            for line in export.splitlines() if line))
    problem("exportAnalyticsEvents limit=0", export_analytics_events.sync_detailed(client=viewer, limit=0), 400,
            "invalid-parameter")
    expect("headAnalyticsEvents", head_analytics_events.sync_detailed(client=viewer), 200, None)

    # -- admin: translation files ---------------------------------------------------------------
    from io import BytesIO

    from empty_state_client.types import File
    exported = expect("exportTranslations", export_translations.sync_detailed(
        client=viewer, format_=m.TranslationFormat.XLIFF2, locale="fr", ids="connectionRefused"), 200, bytes)
    if isinstance(exported, bytes):
        check("exportTranslations: an XLIFF 2.0 file", b'version="2.0"' in exported[:400])
        report = expect("importTranslations dry run", import_translations.sync_detailed(
            client=editor, body=File(payload=BytesIO(exported), file_name="fr.xlf"), file_name="fr.xlf"),
            200, m.TranslationImportReport)
        if isinstance(report, m.TranslationImportReport):
            check("importTranslations: typed report, nothing written", report.dry_run
                  and report.summary.revisions_written == 0 and report.summary.unchanged > 0
                  and all(isinstance(t, m.TranslationImportReportTemplatesItem) for t in report.templates))
        problem("importTranslations as a viewer", import_translations.sync_detailed(
            client=viewer, body=File(payload=BytesIO(exported))), 403, "forbidden")
    expect("headTranslationExport", head_translation_export.sync_detailed(
        client=viewer, format_=m.TranslationFormat.ANDROID), 200, None)
    problem("importTranslations unreadable", import_translations.sync_detailed(
        client=editor, body=File(payload=BytesIO(b"<xliff version='2.0'>"))), 400, "invalid-translation-file")

    # -- the admin console ----------------------------------------------------------------------
    expect("getConsoleRedirect", get_console_redirect.sync_detailed(client=anonymous), 308, None)
    expect("headConsoleRedirect", head_console_redirect.sync_detailed(client=anonymous), 308, None)
    page = expect("getConsole", get_console.sync_detailed(client=anonymous), 200, str)
    check("getConsole: the page", isinstance(page, str) and '<script type="module" src="app.js">' in page)
    expect("headConsole", head_console.sync_detailed(client=anonymous), 200, None)
    expect("getConsoleFile", get_console_file.sync_detailed("app.js", client=anonymous), 200, str)
    problem("getConsoleFile unknown", get_console_file.sync_detailed("nothing.js", client=anonymous), 404, "not-found")
    expect("headConsoleFile", head_console_file.sync_detailed("console.css", client=anonymous), 200, None)
    signed = create_console_session.sync_detailed(client=anonymous, body=m.ConsoleSignIn(token=args.viewer_token))
    session = expect("createConsoleSession", signed, 201, m.ConsoleSession)
    if isinstance(session, m.ConsoleSession):
        check("createConsoleSession: a viewer session, a cookie", session.role == m.ConsoleSessionRole.VIEWER
              and session.authenticated_by == m.ConsoleSessionAuthenticatedBy.SESSION
              and signed.headers.get("Set-Cookie", "").startswith("es_console="))
    problem("createConsoleSession not a token", create_console_session.sync_detailed(
        client=anonymous, body=m.ConsoleSignIn(token="not-a-token-at-all-0000")), 401, "unauthorized")
    cookie = signed.headers.get("Set-Cookie", "").split(";")[0]
    browser = Client(base_url=args.base_url, timeout=httpx.Timeout(15.0), headers={"Cookie": cookie})
    who = expect("getConsoleSession", get_console_session.sync_detailed(client=browser), 200, m.ConsoleSession)
    if isinstance(who, m.ConsoleSession):
        check("getConsoleSession: the cookie's session", who.authenticated_by == m.ConsoleSessionAuthenticatedBy.SESSION
              and who.event_retention_days >= 1)
    expect("headConsoleSession", head_console_session.sync_detailed(client=viewer), 200, None)
    catalogue = expect("listCatalogue", list_catalogue.sync_detailed(client=browser, q="offline", page_size=5), 200,
                       m.CataloguePage)
    if isinstance(catalogue, m.CataloguePage):
        check("listCatalogue: typed items", catalogue.total >= 1 and all(isinstance(i, m.CatalogueItem) for i in catalogue.items))
    problem("listCatalogue bad locale", list_catalogue.sync_detailed(client=viewer, missing_locale="en-XA"), 400,
            "invalid-parameter")
    expect("headCatalogue", head_catalogue.sync_detailed(client=viewer), 200, None)
    draft = get_admin_template.sync_detailed("connectionRefused", client=viewer).parsed
    if isinstance(draft, m.AdminTemplate):
        drawn = expect("previewTemplate", preview_template.sync_detailed(
            client=viewer, body=m.DraftTemplate.from_dict(draft.template.to_dict()), locale="ar"), 200, m.Preview)
        if isinstance(drawn, m.Preview):
            check("previewTemplate: right to left", drawn.direction == m.Direction.RTL and "<section" in drawn.html)
    problem("previewTemplate too broken", preview_template.sync_detailed(
        client=viewer, body=m.DraftTemplate.from_dict({"id": "x"})), 422, "validation-failed")
    decided = expect("decideAppPolicy", decide_app_policy.sync_detailed(m.Platform.IOS, client=viewer, body=m.DecisionsRequest.from_dict(
        {"policy": {"minimumVersion": "5.0", "latestVersion": "5.3", "storeUrl": "https://apps.apple.com/app/id1"}})),
        200, m.PolicyDecisions)
    if isinstance(decided, m.PolicyDecisions):
        check("decideAppPolicy: typed rows", all(isinstance(r, m.PolicyDecisionsRowsItem) for r in decided.rows) and decided.rows)
    problem("decideAppPolicy broken", decide_app_policy.sync_detailed(m.Platform.IOS, client=viewer, body=m.DecisionsRequest.from_dict(
        {"policy": {"minimumVersion": "6.0", "latestVersion": "5.3", "storeUrl": "https://apps.apple.com/app/id1"}})),
        422, "validation-failed")
    exported = expect("exportAdminAudit", export_admin_audit.sync_detailed(client=viewer, action=m.ExportAdminAuditAction.IMPORT), 200, str)
    check("exportAdminAudit: NDJSON lines are Revision", isinstance(exported, str) and all(
        isinstance(m.Revision.from_dict(__import__("json").loads(line)), m.Revision) for line in exported.splitlines() if line))
    problem("exportAdminAudit from after to", export_admin_audit.sync_detailed(
        client=viewer, from_=datetime(2030, 1, 1, tzinfo=timezone.utc), to=datetime(2020, 1, 1, tzinfo=timezone.utc)),
        400, "invalid-parameter")
    expect("headAdminAuditExport", head_admin_audit_export.sync_detailed(client=viewer), 200, None)
    problem("deleteConsoleSession from elsewhere", delete_console_session.sync_detailed(client=Client(
        base_url=args.base_url, timeout=httpx.Timeout(15.0), headers={"Cookie": cookie, "Origin": "http://elsewhere.example"})),
        403, "cross-origin-request")
    expect("deleteConsoleSession", delete_console_session.sync_detailed(client=Client(
        base_url=args.base_url, timeout=httpx.Timeout(15.0), headers={"Cookie": cookie, "Origin": args.base_url})), 204, None)
    problem("getConsoleSession after sign-out", get_console_session.sync_detailed(client=browser), 401, "unauthorized")

    # -- change requests and review rules ------------------------------------------------------
    rules = get_admin_review_rules.sync_detailed(client=viewer)
    expect("getAdminReviewRules", rules, 200, m.AdminReviewRules)
    expect("headAdminReviewRules", head_admin_review_rules.sync_detailed(client=viewer), 200, None)
    problem("putAdminReviewRules by an editor", put_admin_review_rules.sync_detailed(
        client=editor, body=m.ReviewRules.from_dict({"requiredApprovals": 1}), if_match=rules.headers["ETag"]),
        403, "forbidden")
    strings = {"title": "Un instant", "message": "Nous préparons la page."}
    opened = create_admin_change_request.sync_detailed(client=editor, body=m.ChangeRequestDraft.from_dict(
        {"title": "Python client", "changes": [{"kind": "templateStrings", "id": "loading", "locale": "fr", "strings": strings}]}))
    request = expect("createAdminChangeRequest", opened, 201, m.AdminChangeRequest)
    problem("createAdminChangeRequest by a viewer", create_admin_change_request.sync_detailed(
        client=viewer, body=m.ChangeRequestDraft.from_dict({"title": "x", "changes": [{"kind": "templateDeletion", "id": "loading"}]})),
        403, "forbidden")
    if isinstance(request, m.AdminChangeRequest):
        rid = request.id
        check("createAdminChangeRequest: typed changes", all(isinstance(c, m.ChangeRequestChange) for c in request.changes))
        expect("listAdminChangeRequests", list_admin_change_requests.sync_detailed(client=viewer, state="open"), 200,
               m.ChangeRequestSummaryPage)
        expect("headAdminChangeRequests", head_admin_change_requests.sync_detailed(client=viewer), 200, None)
        read = get_admin_change_request.sync_detailed(rid, client=viewer)
        expect("getAdminChangeRequest", read, 200, m.AdminChangeRequest)
        expect("headAdminChangeRequest", head_admin_change_request.sync_detailed(rid, client=viewer), 200, None)
        commented = comment_admin_change_request.sync_detailed(rid, client=viewer, body=m.ChangeRequestComment.from_dict({"text": "?"}))
        problem("commentAdminChangeRequest by a viewer", commented, 403, "forbidden")
        commented = comment_admin_change_request.sync_detailed(rid, client=editor, body=m.ChangeRequestComment.from_dict({"text": "ok?"}))
        expect("commentAdminChangeRequest", commented, 201, m.AdminChangeRequest)
        problem("approveAdminChangeRequest by an editor", approve_admin_change_request.sync_detailed(
            rid, client=editor, body=m.ChangeRequestReviewAction.from_dict({"version": 1})), 403, "forbidden")
        problem("rejectAdminChangeRequest by an editor", reject_admin_change_request.sync_detailed(
            rid, client=editor, body=m.ChangeRequestReviewAction.from_dict({"version": 1})), 403, "forbidden")
        edited = edit_admin_change_request.sync_detailed(rid, client=editor, body=m.ChangeRequestEdit.from_dict(
            {"description": "edited"}), if_match=commented.headers["ETag"])
        expect("editAdminChangeRequest", edited, 200, m.AdminChangeRequest)
        rebased = rebase_admin_change_request.sync_detailed(rid, client=editor, if_match=edited.headers["ETag"])
        expect("rebaseAdminChangeRequest", rebased, 200, m.AdminChangeRequest)
        scheduled = schedule_admin_change_request.sync_detailed(rid, client=editor, body=m.ChangeRequestSchedule(
            at=datetime.now(timezone.utc) + timedelta(hours=1)), if_match=rebased.headers["ETag"])
        expect("scheduleAdminChangeRequest", scheduled, 200, m.AdminChangeRequest)
        unscheduled = unschedule_admin_change_request.sync_detailed(rid, client=editor, if_match=scheduled.headers["ETag"])
        expect("unscheduleAdminChangeRequest", unscheduled, 200, m.AdminChangeRequest)
        published = publish_admin_change_request.sync_detailed(rid, client=editor, if_match=unscheduled.headers["ETag"])
        expect("publishAdminChangeRequest", published, 200, m.AdminChangeRequest)
        problem("withdrawAdminChangeRequest published", withdraw_admin_change_request.sync_detailed(
            rid, client=editor, if_match=published.headers["ETag"]), 409, "change-request-closed")
        undo = expect("rollbackAdminChangeRequest", rollback_admin_change_request.sync_detailed(rid, client=editor), 201,
                      m.AdminChangeRequest)
        if isinstance(undo, m.AdminChangeRequest):
            # Preview tokens of the open rollback request: made, listed, used, revoked.
            from empty_state_client.api.admin import (
                create_admin_preview_token, list_admin_preview_tokens, revoke_admin_preview_token)
            problem("createAdminPreviewToken by a viewer", create_admin_preview_token.sync_detailed(
                undo.id, client=viewer, body=m.AdminPreviewTokenRequest.from_dict({"label": "py"})), 403, "forbidden")
            problem("createAdminPreviewToken lifetime 0", create_admin_preview_token.sync_detailed(
                undo.id, client=editor, body=m.AdminPreviewTokenRequest.from_dict({"lifetimeHours": 0})), 422,
                "validation-failed")
            made = expect("createAdminPreviewToken", create_admin_preview_token.sync_detailed(
                undo.id, client=editor, body=m.AdminPreviewTokenRequest.from_dict({"label": "py", "lifetimeHours": 1})),
                201, m.AdminPreviewTokenCreated)
            listed = expect("listAdminPreviewTokens", list_admin_preview_tokens.sync_detailed(undo.id, client=editor),
                            200, m.AdminPreviewTokenList)
            if isinstance(made, m.AdminPreviewTokenCreated) and isinstance(listed, m.AdminPreviewTokenList):
                check("listAdminPreviewTokens: the token, without its secret",
                      [t.id for t in listed.items] == [made.id] and "token" not in listed.items[0].to_dict())
                previewed = get_template.sync_detailed("loading", client=anonymous, locale="fr",
                                                       x_preview_token=made.token)
                expect("getTemplate with X-Preview-Token", previewed, 200, m.Template)
                check("getTemplate with X-Preview-Token: private, no-store",
                      previewed.headers.get("Cache-Control") == "private, no-store")
                expect("revokeAdminPreviewToken", revoke_admin_preview_token.sync_detailed(
                    undo.id, made.id, client=editor), 204, None)
                problem("getTemplate with a revoked X-Preview-Token", get_template.sync_detailed(
                    "loading", client=anonymous, x_preview_token=made.token), 401, "invalid-preview-token")
                problem("revokeAdminPreviewToken unknown", revoke_admin_preview_token.sync_detailed(
                    undo.id, 999, client=editor), 404, "unknown-preview-token")
            undo_read = get_admin_change_request.sync_detailed(undo.id, client=viewer)
            expect("withdrawAdminChangeRequest", withdraw_admin_change_request.sync_detailed(
                undo.id, client=editor, if_match=undo_read.headers["ETag"]), 200, m.AdminChangeRequest)
    # -- webhooks (to a name under .invalid: its deliveries fail at DNS, off the request path) ----
    from empty_state_client.api.admin import (
        create_admin_webhook, delete_admin_webhook, get_admin_webhook, get_admin_webhook_delivery,
        list_admin_webhook_deliveries, list_admin_webhooks, ping_admin_webhook, put_admin_webhook,
        redeliver_admin_webhook_delivery, rotate_admin_webhook_secret)
    subscription = m.WebhookSubscription.from_dict(
        {"url": "https://hooks.python-client.invalid/x", "events": ["appPolicy.published"], "description": "python client"})
    problem("createAdminWebhook as viewer", create_admin_webhook.sync_detailed(client=viewer, body=subscription), 403, "forbidden")
    problem("createAdminWebhook plain http", create_admin_webhook.sync_detailed(client=editor, body=m.WebhookSubscription.from_dict(
        {"url": "http://hooks.python-client.invalid/x", "events": ["appPolicy.published"]})), 422, "validation-failed")
    hook = expect("createAdminWebhook", create_admin_webhook.sync_detailed(client=editor, body=subscription), 201, m.AdminWebhookWithSecret)
    if isinstance(hook, m.AdminWebhookWithSecret):
        check("createAdminWebhook: the secret", hook.secret.startswith("whsec_"))
        listed = expect("listAdminWebhooks", list_admin_webhooks.sync_detailed(client=viewer), 200, m.AdminWebhookList)
        if isinstance(listed, m.AdminWebhookList):
            check("listAdminWebhooks: typed health", any(isinstance(w.health, m.WebhookHealth) for w in listed.items if w.id == hook.id))
        expect("getAdminWebhook", get_admin_webhook.sync_detailed(hook.id, client=viewer), 200, m.AdminWebhook)
        problem("getAdminWebhook unknown", get_admin_webhook.sync_detailed("wh_00000000000000000000", client=viewer), 404, "unknown-webhook")
        problem("putAdminWebhook stale", put_admin_webhook.sync_detailed(hook.id, client=editor, body=subscription, if_match='"r9"'),
                412, "precondition-failed")
        changed = expect("putAdminWebhook", put_admin_webhook.sync_detailed(hook.id, client=editor, body=subscription, if_match='"r1"'),
                         200, m.AdminWebhook)
        rotated = expect("rotateAdminWebhookSecret", rotate_admin_webhook_secret.sync_detailed(
            hook.id, client=editor, body=m.WebhookSecretRotation.from_dict({"previousSecretValidForSeconds": 0}), if_match='"r2"'),
            200, m.AdminWebhookWithSecret)
        if isinstance(changed, m.AdminWebhook) and isinstance(rotated, m.AdminWebhookWithSecret):
            check("rotateAdminWebhookSecret: a new secret", rotated.secret != hook.secret and rotated.revision == 3)
        ping = expect("pingAdminWebhook", ping_admin_webhook.sync_detailed(hook.id, client=editor), 202, m.AdminWebhookDelivery)
        expect("listAdminWebhookDeliveries", list_admin_webhook_deliveries.sync_detailed(hook.id, client=viewer), 200,
               m.AdminWebhookDeliveryPage)
        if isinstance(ping, m.AdminWebhookDelivery):
            expect("getAdminWebhookDelivery", get_admin_webhook_delivery.sync_detailed(hook.id, ping.id, client=viewer), 200,
                   m.AdminWebhookDelivery)
            expect("redeliverAdminWebhookDelivery", redeliver_admin_webhook_delivery.sync_detailed(hook.id, ping.id, client=editor),
                   202, m.AdminWebhookDelivery)
        expect("deleteAdminWebhook", delete_admin_webhook.sync_detailed(hook.id, client=editor, if_match='"r3"'), 204, None)

    # -- admin tokens (an admin token manages them) ------------------------------------------------
    from empty_state_client.api.admin import create_admin_token, head_admin_tokens, list_admin_tokens, revoke_admin_token
    problem("listAdminTokens as editor", list_admin_tokens.sync_detailed(client=editor), 403, "forbidden")
    listed = expect("listAdminTokens", list_admin_tokens.sync_detailed(client=admin), 200, m.AdminTokenList)
    if isinstance(listed, m.AdminTokenList):
        check("listAdminTokens: the configured tokens, from the configuration",
              sorted((t.name, t.source.value) for t in listed.items) == [
                  ("py-admin", "configuration"), ("py-editor", "configuration"), ("py-viewer", "configuration")],
              f"(got {[(t.name, t.source.value) for t in listed.items]})")
    expect("headAdminTokens", head_admin_tokens.sync_detailed(client=admin), 200, None)
    request = m.AdminTokenCreate(name="py-ci", role=m.AdminTokenRole.EDITOR)
    made = expect("createAdminToken", create_admin_token.sync_detailed(client=admin, body=request), 201, m.AdminTokenCreated)
    problem("createAdminToken again", create_admin_token.sync_detailed(client=admin, body=request), 409, "token-name-taken")
    if isinstance(made, m.AdminTokenCreated):
        made_client = AuthenticatedClient(base_url=args.base_url, token=made.secret, timeout=httpx.Timeout(15.0))
        expect("listAdminTemplates with the new token", list_admin_templates.sync_detailed(client=made_client), 200,
               m.TemplateSummaryPage)
        expect("revokeAdminToken", revoke_admin_token.sync_detailed(made.id, client=admin), 204, None)
        problem("listAdminTemplates with the revoked token", list_admin_templates.sync_detailed(client=made_client), 401,
                "unauthorized")
    problem("revokeAdminToken unknown", revoke_admin_token.sync_detailed("tok_0000000000000000", client=admin), 404,
            "unknown-token")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
