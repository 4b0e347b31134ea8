import APNsCore

/// A token APNs said something about, on `pushline.token-events`. `unregistered` and `expired`
/// (410) are terminal for the token; `suspect` (`BadDeviceToken`, `DeviceTokenNotForTopic`) may only
/// mean the wrong environment or topic, so it is reported, never acted on.
/// Schema: `Config/schemas/token-event-v1.schema.json`.
public struct TokenEvent: Sendable, Equatable {
    public static let schemaVersion: Int64 = 1

    public enum Kind: String, Sendable, CaseIterable {
        case unregistered, expired, suspect
    }

    public var kind: Kind
    /// APNs' reason (`Unregistered`, `ExpiredToken`, `BadDeviceToken`, `DeviceTokenNotForTopic`).
    public var reason: String
    public var app: String
    public var environment: String
    public var token: String
    public var user: String?
    public var intentID: String
    /// APNs' `timestamp` (410 only), Unix milliseconds.
    public var apnsTimestamp: Int64?
    public var observedAt: Int64
    /// Whether the registry removed the token (false when it was registered again after the timestamp).
    public var removedFromRegistry: Bool

    public init(kind: Kind, reason: String, app: String, environment: String, token: String, user: String?, intentID: String,
                apnsTimestamp: Int64?, observedAt: Int64, removedFromRegistry: Bool) {
        self.kind = kind
        self.reason = reason
        self.app = app
        self.environment = environment
        self.token = token
        self.user = user
        self.intentID = intentID
        self.apnsTimestamp = apnsTimestamp
        self.observedAt = observedAt
        self.removedFromRegistry = removedFromRegistry
    }

    /// The event for an APNs rejection reason, or nil when the reason says nothing about the token.
    public static func kind(for reason: RejectionReason) -> Kind? {
        switch reason {
        case .unregistered: .unregistered
        case .expiredToken: .expired
        case .badDeviceToken, .deviceTokenNotForTopic: .suspect
        default: nil
        }
    }

    public var encoded: [UInt8] {
        var object: JSONObject = ["schema_version": .integer(Self.schemaVersion), "kind": .string(kind.rawValue),
                                  "reason": .string(reason), "app": .string(app), "environment": .string(environment),
                                  "token": .string(token)]
        object.append("user", user.map(JSONValue.string))
        object.append("intent_id", .string(intentID))
        object.append("apns_timestamp", apnsTimestamp.map(JSONValue.integer))
        object.append("observed_at", .integer(observedAt))
        object.append("removed_from_registry", .bool(removedFromRegistry))
        return object.encoded
    }
}
