import EmptyStateSQLite
import Logging

@testable import EmptyStateService

extension EmptyStateApplication {
    /// The application as `empty-state-server` builds it without `--database-url`: the SQLite
    /// stores opened in the configuration's data directory (`SQLiteStores`, as the executable
    /// opens them), handed to the same initializer.
    static func embedded(configuration: ServiceConfiguration, logger: Logger) throws -> EmptyStateApplication {
        let stores = try SQLiteStores(directory: configuration.dataDirectory, logger: logger)
        return try EmptyStateApplication(configuration: configuration, stores: stores, logger: logger)
    }
}
