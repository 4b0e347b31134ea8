import APNsCore
import Foundation

/// The devices the simulator knows: in open mode any well-formed token is a device that accepts
/// everything; registered tokens are checked against their entry in either mode.
///
/// JSON format (a file given to `apns-sim`, or the body of `POST /devices`):
///
/// ```json
/// {"devices": [
///   {"token": "<hex>", "topic": "com.example.app", "environment": "sandbox"},
///   {"token": "<hex>", "topic": "com.example.app", "environment": "production", "unregistered_at": 1767225600000}
/// ]}
/// ```
///
/// `topic` is the app's bundle id: the token also accepts the bundle id with a push-type suffix
/// (`com.example.app.voip`). `unregistered_at` (milliseconds) makes the token answer 410.
public struct DeviceRegistry: Sendable, Equatable {
    /// One registered device token.
    public struct Entry: Sendable, Equatable {
        public var token: DeviceToken
        /// The app's bundle id.
        public var topic: String
        public var environment: SimulatorEnvironment
        /// When the app was uninstalled, UNIX milliseconds: pushes then get 410 `Unregistered`.
        public var unregisteredAt: Int64?

        /// An entry; `unregisteredAt` nil means the app is installed.
        public init(token: DeviceToken, topic: String, environment: SimulatorEnvironment, unregisteredAt: Int64? = nil) {
            self.token = token
            self.topic = topic
            self.environment = environment
            self.unregisteredAt = unregisteredAt
        }
    }

    /// Whether a token with no entry is accepted (open mode) or answered `BadDeviceToken`.
    public var acceptsUnknownTokens: Bool
    /// The entries by lower-case token.
    public private(set) var entries: [String: Entry] = [:]

    /// An open registry: every well-formed token is accepted until entries say otherwise.
    public static let open = DeviceRegistry(acceptsUnknownTokens: true)

    /// A registry with these entries; open when `acceptsUnknownTokens`.
    public init(acceptsUnknownTokens: Bool, entries: [Entry] = []) {
        self.acceptsUnknownTokens = acceptsUnknownTokens
        add(entries)
    }

    /// A closed registry from a JSON file: tokens not in it are answered `BadDeviceToken`.
    public init(file: String) throws(SimulatorConfigurationError) {
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            throw SimulatorConfigurationError(source: file, message: "cannot read the device registry (\(error.localizedDescription))")
        }
        self.init(acceptsUnknownTokens: false, entries: try Self.entries(json: bytes, source: file))
    }

    /// Adds entries, replacing those with the same token.
    public mutating func add(_ newEntries: [Entry]) {
        for entry in newEntries { entries[entry.token.hex] = entry }
    }

    /// Reads the `{"devices": […]}` document.
    public static func entries(json: [UInt8], source: String) throws(SimulatorConfigurationError) -> [Entry] {
        let document: JSONValue
        do {
            document = try JSONParser.parse(json)
        } catch {
            throw SimulatorConfigurationError(source: source, message: "not JSON: \(error)")
        }
        guard case .object(let root) = document, case .array(let devices)? = root["devices"] else {
            throw SimulatorConfigurationError(source: source, key: "devices", message: "expected {\"devices\": [ … ]}")
        }
        var entries: [Entry] = []
        for (index, device) in devices.enumerated() {
            entries.append(try entry(device, key: "devices[\(index)]", source: source))
        }
        return entries
    }

    private static func entry(_ value: JSONValue, key: String, source: String) throws(SimulatorConfigurationError) -> Entry {
        guard case .object(let object) = value else {
            throw SimulatorConfigurationError(source: source, key: key, message: "expected an object")
        }
        func string(_ name: String) throws(SimulatorConfigurationError) -> String {
            guard let text = object[name]?.stringValue, !text.isEmpty else {
                throw SimulatorConfigurationError(source: source, key: "\(key).\(name)", message: "expected a non-empty string")
            }
            return text
        }
        let tokenText = try string("token")
        let token: DeviceToken
        do {
            token = try DeviceToken(tokenText)
        } catch {
            throw SimulatorConfigurationError(source: source, key: "\(key).token", message: error.detail)
        }
        let environmentName = try string("environment")
        guard let environment = SimulatorEnvironment(name: environmentName) else {
            throw SimulatorConfigurationError(source: source, key: "\(key).environment",
                                              message: "expected sandbox or production, got \"\(environmentName)\"")
        }
        var unregisteredAt: Int64?
        switch object["unregistered_at"] {
        case nil, .null?: unregisteredAt = nil
        case .integer(let milliseconds)?: unregisteredAt = milliseconds
        default:
            throw SimulatorConfigurationError(source: source, key: "\(key).unregistered_at", message: "expected UNIX milliseconds")
        }
        return Entry(token: token, topic: try string("topic"), environment: environment, unregisteredAt: unregisteredAt)
    }

    /// The rejection for a push to `token` (lower-case hex) on `topic` in `environment`, or nil when
    /// it is delivered. An empty registry is not searched: hashing the token would cost more.
    func rejection(token: String, topic: String, environment: SimulatorEnvironment) -> Rejection? {
        guard !entries.isEmpty, let entry = entries[token] else {
            return acceptsUnknownTokens ? nil : Rejection(.badDeviceToken)
        }
        // Apple DTS: a token of the other environment gets BadDeviceToken (spec §2.1).
        guard entry.environment == environment else { return Rejection(.badDeviceToken) }
        let bundleID = PushType.owningSuffix(of: topic).map { String(topic.dropLast($0.topicSuffix.count)) } ?? topic
        guard bundleID == entry.topic else { return Rejection(.deviceTokenNotForTopic) }
        if let unregisteredAt = entry.unregisteredAt { return Rejection(.unregistered, timestamp: unregisteredAt) }
        return nil
    }
}
