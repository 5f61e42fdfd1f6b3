extension PostgresSchema {
    /// Version 7: `event_id` loses its index by day. Every event claimed its id in two indexes,
    /// the primary key (what makes a resent event a duplicate) and `event_id_by_day` (what
    /// retention deleted by); retention now deletes the ids of an expired partition by that
    /// partition's own rows, before dropping it (`PostgresEventStore.prune(before:chunk:)`),
    /// so each event costs one index insert fewer at ingestion.
    ///
    /// The ids of days whose partitions are already gone (a retention run interrupted between
    /// dropping a partition and deleting its ids, in an earlier release) are deleted here, while
    /// the index still finds them: every day before the oldest partition left.
    static let eventIDsByPartition = Migration(
        version: 7,
        description: "event ids deleted with their partition",
        statements: [
            """
            DELETE FROM event_id WHERE day < (
                SELECT COALESCE(MIN(to_date(substr(c.relname, 8), 'YYYYMMDD') - DATE '1970-01-01'), -2147483648)
                FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = 'event'::regclass AND c.relname ~ '^event_p[0-9]{8}$'
            )
            """,
            "DROP INDEX event_id_by_day",
        ]
    )
}
