import Synchronization

/// The catalog in use, replaced as a whole on reload. Callers take a snapshot (``catalog`` or
/// ``enricher``) for each piece of work (the worker's planner, per batch of messages); a reload never changes a
/// snapshot already taken, so no work in flight is dropped or sees half a catalog, and a failed
/// reload keeps the previous catalog.
public final class CatalogStore: Sendable {
    public let templatesDirectory: String
    public let localesDirectory: String
    private let current: Mutex<EnrichmentCatalog>

    /// Loads the catalog once; a broken configuration at start-up is an error.
    public init(templatesDirectory: String, localesDirectory: String) throws(CatalogLoadError) {
        self.templatesDirectory = templatesDirectory
        self.localesDirectory = localesDirectory
        current = Mutex(try EnrichmentCatalog.load(templatesDirectory: templatesDirectory, localesDirectory: localesDirectory))
    }

    /// The catalog now in use.
    public var catalog: EnrichmentCatalog {
        current.withLock { $0 }
    }

    /// An enricher over the catalog now in use.
    public var enricher: Enricher {
        Enricher(catalog: catalog)
    }

    /// Compiles the files again and swaps the new catalog in. On an error the previous catalog
    /// stays in use and the error is thrown for the caller to log.
    public func reload() throws(CatalogLoadError) {
        let fresh = try EnrichmentCatalog.load(templatesDirectory: templatesDirectory, localesDirectory: localesDirectory)
        current.withLock { $0 = fresh }
    }
}
