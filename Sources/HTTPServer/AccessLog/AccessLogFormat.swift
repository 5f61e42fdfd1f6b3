/// How an access-log line is laid out: `text` (one `key=value` line, greppable like the rest of
/// the log) or `json` (one JSON object per line, for log shippers).
package enum AccessLogFormat: String, Sendable, CaseIterable {
    case text
    case json
}
