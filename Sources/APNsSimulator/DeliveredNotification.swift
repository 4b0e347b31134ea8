import APNsCore

/// One notification the simulator accepted: what a device (or a broadcast channel) received.
public struct DeliveredNotification: Sendable, Equatable {
    /// When it was accepted, UNIX milliseconds.
    public let receivedAt: Int64
    /// The device token (lower-case hex), or nil for a broadcast.
    public let token: String?
    /// The broadcast channel, or nil for a device push.
    public let channelID: String?
    public let topic: String
    /// `apns-push-type` as sent, or as inferred from the topic when absent.
    public let pushType: String
    /// `apns-priority`; 10 when absent, as APNs assumes.
    public let priority: Int
    /// `apns-expiration` in UNIX seconds, or nil when absent.
    public let expiration: Int64?
    public let collapseID: String?
    /// The `apns-id` (or broadcast `apns-request-id`) the answer carried.
    public let apnsID: String
    /// The request body, as received.
    public let body: [UInt8]

    init(receivedAt: Int64, token: String?, channelID: String?, topic: String, pushType: String, priority: Int,
         expiration: APNsExpiration, collapseID: String?, apnsID: String, body: [UInt8]) {
        let seconds: Int64? = switch expiration {
        case .unspecified: nil
        case .immediately: 0
        case .at(let seconds): seconds
        }
        self.init(receivedAt: receivedAt, token: token, channelID: channelID, topic: topic, pushType: pushType,
                  priority: priority, expirationSeconds: seconds, collapseID: collapseID, apnsID: apnsID, body: body)
    }

    /// A notification with `expiration` as stored: UNIX seconds, or nil when absent.
    init(receivedAt: Int64, token: String?, channelID: String?, topic: String, pushType: String, priority: Int,
         expirationSeconds: Int64?, collapseID: String?, apnsID: String, body: [UInt8]) {
        self.receivedAt = receivedAt
        self.token = token
        self.channelID = channelID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expirationSeconds
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.body = body
    }

    /// The payload, parsed when asked for (not on the hot path); a body that is not JSON is a JSON
    /// string of its text.
    public var payload: JSONValue {
        (try? JSONParser.parse(body)) ?? .string(String(decoding: body, as: UTF8.self))
    }

    /// The JSON object of `GET /inbox` and of each inbox-file line (snake_case names, absent
    /// values as `null`).
    public var json: JSONObject {
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        return [
            "received_at": .integer(receivedAt),
            "token": optional(token),
            "channel_id": optional(channelID),
            "topic": .string(topic),
            "push_type": .string(pushType),
            "priority": .integer(Int64(priority)),
            "expiration": expiration.map(JSONValue.integer) ?? .null,
            "collapse_id": optional(collapseID),
            "apns_id": .string(apnsID),
            "payload": payload,
        ]
    }
}
