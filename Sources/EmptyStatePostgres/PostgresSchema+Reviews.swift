extension PostgresSchema {
    /// Version 10: review states (issue 36). How far each translation was confirmed
    /// (`ReviewState`: translated, reviewed, final), so a reviewer's `final` comes back out of the
    /// next export and XLIFF 1.2 says `approved="yes"` for it. Every row there is `translated`,
    /// which is all an earlier release knew. One column on its own: a step that can be renumbered
    /// beside the others (it is 10 so that 8 and 9, written beside it, keep theirs).
    static let stringReviews = Migration(
        version: 10,
        description: "string review states",
        statements: [
            """
            ALTER TABLE template_string ADD COLUMN review TEXT NOT NULL DEFAULT 'translated'
                CHECK (review IN ('translated', 'reviewed', 'final'))
            """
        ]
    )
}
