import APNsCore
import Foundation
import Testing

/// Shared fixtures: realistic header values and small helpers that keep the tests about behaviour.
enum Fixture {
    static let bundleID = "com.example.app"
    /// The historical 64-character token, in lower case.
    static let deviceToken = String(repeating: "a1b2c3d4", count: 8)

    /// The topic a push type must be sent to for ``bundleID``.
    static func topic(for pushType: PushType) -> String { bundleID + pushType.topicSuffix }

    /// A request with a correct topic and token for its push type, carrying `json` as its body.
    static func request(
        _ json: String,
        pushType: PushType = .alert,
        destination: NotificationRequest.Destination = .device(token: deviceToken),
        topic: String? = nil,
        priority: APNsPriority? = nil,
        collapseID: String? = nil
    ) -> NotificationRequest {
        request(bytes: Array(json.utf8), pushType: pushType, destination: destination, topic: topic,
                priority: priority, collapseID: collapseID)
    }

    static func request(
        bytes: [UInt8],
        pushType: PushType = .alert,
        destination: NotificationRequest.Destination = .device(token: deviceToken),
        topic: String? = nil,
        priority: APNsPriority? = nil,
        collapseID: String? = nil
    ) -> NotificationRequest {
        NotificationRequest(
            destination: destination, pushType: pushType,
            topic: topic ?? (destination == .broadcast ? bundleID : Self.topic(for: pushType)),
            priority: priority, collapseID: collapseID, payload: bytes
        )
    }

    /// `template` with `%FILL%` replaced by `unit` repeated, topped up with ASCII `x`, so that the
    /// whole document is exactly `byteCount` UTF-8 bytes.
    static func padded(_ template: String, toBytes byteCount: Int, repeating unit: String = "x") -> [UInt8] {
        let room = byteCount - (template.utf8.count - "%FILL%".utf8.count)
        let unitBytes = unit.utf8.count
        let fill = String(repeating: unit, count: room / unitBytes) + String(repeating: "x", count: room % unitBytes)
        return Array(template.replacingOccurrences(of: "%FILL%", with: fill).utf8)
    }

    static let alertTemplate = #"{"aps":{"alert":"%FILL%"}}"#
    static let liveActivityUpdateTemplate = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"note":"%FILL%"}}}"#
}

/// The reasons of every violation the validator finds, in its order.
func reasons(_ request: NotificationRequest) -> [Violation.Reason] {
    NotificationValidator.violations(in: request).map(\.reason)
}

/// Parses `bytes` with Foundation, independently of Pushline's own parser.
func foundationObject(_ bytes: [UInt8]) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(bytes))
    return try #require(value as? [String: Any])
}

/// The `aps` dictionary of `bytes`, parsed with Foundation.
func foundationAps(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try foundationObject(bytes)["aps"] as? [String: Any])
}
