import HTTPServer

/// How log lines are written (`--log-format`): the access log's formats, which swift-log's
/// lines follow.
package typealias LogFormat = AccessLogFormat

/// Everything the service reads at start. The defaults run from any directory: the catalogue and
/// the contract are compiled in (`BuiltinFiles`), and the data directory is created.
package struct ServiceConfiguration: Sendable {
    package var http = HTTPServerConfiguration()
    /// Holds `templates/`, the built-in catalogue; `nil`: the one compiled into the binary.
    package var configDirectory: String?
    /// Where the service keeps its state (without `--database-url`, the SQLite files
    /// `SQLiteStores` opens in it); created when missing.
    package var dataDirectory = "data"
    /// The contract served at `GET /openapi.yaml`; `nil`: the one compiled into the binary.
    package var openAPIPath: String?
    /// `Cache-Control` of client representations: fresh for `max-age`, then revalidated in the
    /// background for `stale-while-revalidate`, and usable for `stale-if-error` while the service
    /// is down.
    package var cacheMaxAge = 300
    package var staleWhileRevalidate = 86_400
    package var staleIfError = 604_800
    /// Where web pages get illustrations: `{name}` is replaced by the asset name, or the name is
    /// appended. `nil`: the HTML leaves illustrations out (the heading still says it all).
    package var illustrationBaseURL: String?
    /// How log lines are written: `text` (swift-log's layout, and `key=value` access lines) or
    /// `json` (one object per line, the access log's and every other).
    package var logFormat = LogFormat.text
    /// Where browsers reach the service (`--public-url`): the admin console's changes must come
    /// from this origin, and its session cookie is `Secure` when it is `https://`. `nil`: plain
    /// HTTP, and the request's own `Host`.
    package var publicOrigin: PublicOrigin?
    /// Bearer tokens of the admin API. Empty: an editor token is generated into the data directory.
    package var adminTokens: [AdminToken] = []
    /// `--admin-tokens-file`, read again while the server runs (`AdminTokensFile`): its path, and
    /// how many of `adminTokens` (the last ones) it held at start.
    package var adminTokensFile: (path: String, tokensAtStart: Int)?

    package init() {}

    /// Days analytics events are kept; older ones are pruned in the background.
    package var eventRetentionDays = 90

    /// The largest translation file `POST /v1/admin/translations/import` takes, in bytes (its own
    /// limit, in place of `http.maxBodySize`): 40 MiB holds one locale of a 10,000-template
    /// catalogue in XLIFF 2.0 with its notes (about 30 MB) and refuses a 50 MB upload before any
    /// of it is read. The readers refuse the same size.
    package var maxImportSize = 40 << 20

    /// `<configDirectory>/templates`; `nil` for the compiled-in catalogue.
    package var templatesDirectory: String? {
        configDirectory.map { $0.hasSuffix("/") ? $0 + "templates" : $0 + "/templates" }
    }

    package var cacheControl: String {
        "public, max-age=\(cacheMaxAge), stale-while-revalidate=\(staleWhileRevalidate), stale-if-error=\(staleIfError)"
    }
}
