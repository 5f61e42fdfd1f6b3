import EmptyStateStore

/// The events of a catalogue transaction on PostgreSQL (`CatalogueTransaction.record`).
extension PostgresCatalogueTransaction {
    /// Nothing keeps them yet: the webhooks' outbox (issue 34, part B) writes its rows here, in
    /// this transaction, under the catalogue write lock.
    func record(_ events: [CatalogueEvent]) throws(StoreError) {}
}
