import EmptyStateStore

/// The events of a catalogue transaction on SQLite (`CatalogueTransaction.record`).
extension SQLiteCatalogueTransaction {
    /// Nothing keeps them yet: the webhooks' outbox (issue 34, part B) writes its rows here, in
    /// this transaction.
    func record(_ events: [CatalogueEvent]) throws(StoreError) {}
}
