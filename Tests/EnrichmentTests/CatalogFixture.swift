import APNsCore
import Enrichment
import Foundation

/// A template file and locale files for one test app, written to a fresh temporary directory and
/// loaded as a real catalog would be.
struct CatalogFixture {
    static let app = "com.example.test"
    static let token = "0a1b2c3d4e5f"

    let templatesDirectory: String
    let localesDirectory: String

    /// `locales` maps file names under `Config/locales/<app>/` to their contents.
    init(templates: String, locales: [String: String] = [:]) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-enrichment-\(UUID().uuidString)")
        templatesDirectory = root.appendingPathComponent("templates").path
        localesDirectory = root.appendingPathComponent("locales").path
        let appLocales = "\(localesDirectory)/\(Self.app)"
        try FileManager.default.createDirectory(atPath: templatesDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: appLocales, withIntermediateDirectories: true)
        try Data(templates.utf8).write(to: URL(fileURLWithPath: "\(templatesDirectory)/\(Self.app).yaml"))
        for (name, contents) in locales {
            try Data(contents.utf8).write(to: URL(fileURLWithPath: "\(appLocales)/\(name)"))
        }
    }

    func catalog() throws -> EnrichmentCatalog {
        try EnrichmentCatalog.load(templatesDirectory: templatesDirectory, localesDirectory: localesDirectory)
    }

    /// The deliveries of an intent for the test app, whose members are spliced into the JSON.
    func deliveries(_ members: String, devices: [RecipientDevice]? = nil) throws -> [Delivery] {
        let json = #"{"id":"intent-1","app":"\#(Self.app)","tokens":["\#(Self.token)"],\#(members)}"#
        let intent = try IntentDecoder.decode(Array(json.utf8))
        let enricher = Enricher(catalog: try catalog())
        if let devices { return try enricher.deliveries(for: intent, devices: devices) }
        return try enricher.deliveries(for: intent)
    }

    /// The single delivery's payload, parsed.
    func payload(_ members: String) throws -> JSONObject {
        let deliveries = try deliveries(members)
        guard deliveries.count == 1, case .object(let object) = try JSONParser.parse(deliveries[0].payload) else {
            throw FixtureError.unexpectedShape
        }
        return object
    }

    enum FixtureError: Error {
        case unexpectedShape
    }
}

extension JSONObject {
    /// The value at a dotted path (`aps.alert.body`).
    func at(_ path: String) -> JSONValue? {
        var current: JSONValue = .object(self)
        for key in path.split(separator: ".") {
            guard case .object(let object) = current, let next = object[String(key)] else { return nil }
            current = next
        }
        return current
    }
}
