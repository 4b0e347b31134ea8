import APNsCore
import Enrichment

/// A deferred delivery's way back into the send path (quiet hours, docs/policies.md): the record
/// the releaser produces onto the intents topic when the delivery is due, and the body its
/// ``DeferredEntry`` keeps until then. It names one device of one intent:
///
/// ```
/// pushline-release 1 <token hex> <profile locale, or -> <profile time zone, or ->\n<the intent message's bytes>
/// ```
///
/// A v1 intent is a JSON object, so it never starts with the marker. Planned again like the
/// original message, for that device only (no registry round trip: the profile it was planned
/// with travels here), marked so the policy stage skips quiet hours and the claim takes over the
/// `deferred` claim exactly once (``ClaimRequest/releasing``).
struct ReleaseRecord: Sendable, Equatable {
    var device: RecipientDevice
    /// The original intent message's bytes.
    var intent: [UInt8]

    private static let marker = Array("pushline-release 1 ".utf8)

    /// Whether `bytes` begin as a release record does (what the deferred store's entries hold).
    static func isRecord(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: marker)
    }

    /// The record for `planned`, a delivery deferred now (a release deferred again, over the
    /// background budget, keeps its original intent's bytes).
    init(_ planned: PlannedDelivery) {
        device = RecipientDevice(token: planned.delivery.token, environment: planned.environment,
                                 profileLocale: planned.profileLocale, profileTimeZone: planned.profileTimeZone)
        let value = planned.message.value ?? []
        intent = planned.isRelease ? ReleaseRecord(value)?.intent ?? value : value
    }

    init(device: RecipientDevice, intent: [UInt8]) {
        self.device = device
        self.intent = intent
    }

    /// The release in a message's bytes; nil when they are not one (an intent). The environment is
    /// the intent's, set by the planner once it is decoded.
    init?(_ bytes: [UInt8]) {
        guard Self.isRecord(bytes), let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let fields = bytes[Self.marker.count..<newline].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count == 3, let token = try? DeviceToken(String(decoding: fields[0], as: UTF8.self)) else { return nil }
        let optional = { (field: ArraySlice<UInt8>) -> String? in field.elementsEqual("-".utf8) ? nil : String(decoding: field, as: UTF8.self) }
        device = RecipientDevice(token: token, environment: .production, profileLocale: optional(fields[1]), profileTimeZone: optional(fields[2]))
        intent = Array(bytes[(newline + 1)...])
    }

    /// The record's bytes.
    var encoded: [UInt8] {
        var bytes = Self.marker
        bytes.reserveCapacity(Self.marker.count + 160 + intent.count)
        bytes += device.token.hex.utf8
        for field in [device.profileLocale, device.profileTimeZone] {
            bytes.append(UInt8(ascii: " "))
            bytes += (field ?? "-").utf8
        }
        bytes.append(UInt8(ascii: "\n"))
        bytes += intent
        return bytes
    }
}
