import EmptyStateStore

extension PostgresSchema {
    /// Version 6: the exact exposures of copy experiments (`ExperimentExposures`), written by the
    /// group commit's statement beside the events it inserts.
    ///
    /// - **`experiment_install`**: one row per experiment and install, its first variant, when it
    ///   was first seen, its first tap (`converted_at`) and whether it was seen in another variant
    ///   too (`crossed`). The results count it by `experiment_install_by_variant`.
    /// - **`experiment_install_tap`**: an install's first tap of each action in each variant it
    ///   tapped in, for experiments whose metric is one action: counted per variant by its
    ///   primary key, less the taps of crossed installs (found by `…_by_install`).
    static let experiments = Migration(
        version: 6,
        description: "experiment exposures",
        statements: [
            """
            CREATE TABLE experiment_install (
                experiment_id TEXT COLLATE "C" NOT NULL,
                install_id TEXT COLLATE "C" NOT NULL,
                variant TEXT COLLATE "C" NOT NULL,      -- the key of the variant it was first seen in
                first_seen_at BIGINT NOT NULL,          -- ms since the epoch (the earliest event)
                converted_at BIGINT,                    -- its first tap of any action
                crossed BOOLEAN NOT NULL DEFAULT false, -- seen in another variant too (excluded from results)
                PRIMARY KEY (experiment_id, install_id)
            )
            """,
            """
            CREATE INDEX experiment_install_by_variant ON experiment_install (experiment_id, crossed, variant)
                INCLUDE (converted_at)
            """,
            """
            CREATE TABLE experiment_install_tap (
                experiment_id TEXT COLLATE "C" NOT NULL,
                action_id TEXT COLLATE "C" NOT NULL,
                variant TEXT COLLATE "C" NOT NULL,      -- the variant tapped in (one, unless the install crossed)
                install_id TEXT COLLATE "C" NOT NULL,
                first_tapped_at BIGINT NOT NULL,
                PRIMARY KEY (experiment_id, action_id, variant, install_id)
            )
            """,
            "CREATE INDEX experiment_install_tap_by_install ON experiment_install_tap (experiment_id, install_id)",
        ]
    )

    /// Version 12: the attributes an experiment's results are segmented by (`ExperimentSegment`):
    /// each install's platform, locale, app version and install time (ms, as the app said), those
    /// of its earliest event. Rows already
    /// there, and rows a replica of an earlier release writes during a rolling upgrade, have none:
    /// their installs are the "unknown" segment. Nullable columns without a default: adding them
    /// rewrites nothing.
    static let experimentSegments = Migration(
        version: 12,
        description: "the attributes of an experiment's install",
        statements: [
            """
            ALTER TABLE experiment_install
                ADD COLUMN platform TEXT COLLATE "C",
                ADD COLUMN locale TEXT COLLATE "C",
                ADD COLUMN app_version TEXT COLLATE "C",
                ADD COLUMN installed_at BIGINT
            """
        ]
    )
}
