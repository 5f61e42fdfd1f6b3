/// The stores one process runs on, as `empty-state-server` opened them: SQLite in the data
/// directory (`SQLiteStores`), or PostgreSQL shared by replicas (a `SharedStore`). The
/// application is given one and never learns which.
package protocol Stores: Sendable {
    var templates: any TemplateStoring { get }
    /// Analytics events (a database of its own on SQLite: its write rate has nothing to do with
    /// the catalogue's).
    var events: any EventStoring { get }
    /// The admin console's sessions.
    var sessions: any SessionStoring { get }
    /// Webhook subscriptions as read, and their outbox (in the templates database: deliveries are
    /// written in the transactions of the changes they tell of).
    var webhooks: any WebhookStoring { get }
    /// The admin tokens made through the admin API (in the templates database: they are created
    /// and revoked in catalogue transactions, with a revision each).
    var tokens: any AdminTokenStoring { get }
    /// Where they are, for logs (a path, or a URL without its password).
    var location: String { get }

    /// Tells `observer` the duration of each write transaction (for metrics), by store name
    /// (`templates`, `events`).
    func observeCommits(_ observer: @escaping @Sendable (_ store: String, _ seconds: Double) -> Void)
}
