import APNsCore
import IntentCore

/// A record on `pushline.tokens`: a device registered its token for a user of an app in an APNs
/// environment, or the user gave it up (logout), and when. The token registry applies it
/// (``TokenRegistry/apply(_:)``); `pushline tokens register` writes the same change directly.
/// Schema: `Config/schemas/token-registration-v1.schema.json`.
public struct TokenRegistration: Sendable, Equatable {
    public static let schemaVersion: Int64 = 1

    public enum Action: String, Sendable, CaseIterable {
        /// The device registered (or re-registered) the token for the user.
        case register
        /// The token no longer reaches the user (logout, notifications turned off in the app).
        case unregister
    }

    public var action: Action
    /// The app's bundle id.
    public var app: String
    public var environment: Intent.Environment
    public var user: String
    public var token: DeviceToken
    /// When the device registered or unregistered the token, Unix milliseconds: a removal never
    /// undoes a registration that happened after it.
    public var occurredAt: Int64
    /// The user's profile locale (BCP 47), when the record carries it.
    public var locale: String?
    /// The user's time zone (an IANA name, ``TimeZoneName``), when the record carries it: quiet
    /// hours are kept in it.
    public var timeZone: String?

    public init(action: Action, app: String, environment: Intent.Environment, user: String, token: DeviceToken,
                occurredAt: Int64, locale: String? = nil, timeZone: String? = nil) {
        self.action = action
        self.app = app
        self.environment = environment
        self.user = user
        self.token = token
        self.occurredAt = occurredAt
        self.locale = locale
        self.timeZone = timeZone
    }

    /// The Kafka key: the token, so that every record of one token lands on one partition, in order.
    public var key: [UInt8] { Array(token.hex.utf8) }

    public var encoded: [UInt8] {
        var object: JSONObject = ["schema_version": .integer(Self.schemaVersion), "action": .string(action.rawValue),
                                  "app": .string(app), "environment": .string(environment.rawValue), "user": .string(user),
                                  "token": .string(token.hex), "occurred_at": .integer(occurredAt)]
        object.append("locale", locale.map(JSONValue.string))
        object.append("time_zone", timeZone.map(JSONValue.string))
        return object.encoded
    }
}
