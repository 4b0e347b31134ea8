import APNsCore
import Enrichment

/// A deferred delivery's way back into the send path (quiet hours, docs/policies.md): the record
/// the releaser produces onto the intents topic when the delivery is due, and the body its
/// ``DeferredEntry`` keeps until then. Written as version 2, the delivery as it was planned:
///
/// ```
/// pushline-release 2\n<fields>
/// ```
///
/// the fields (``RecordFieldWriter``): the ``DeliveryOrigin`` — the intent's id, app, template,
/// `created_at` and `dedupe_window`, the user, the recipient's profile locale and time zone — then
/// the ``Delivery`` — headers, payload, locale, what it waits to seal, policy traits. Read back, it is
/// one planned delivery at once: not decoded and composed again (a template changed meanwhile
/// does not apply to it).
///
/// Version 1, written before 2026-12-05 and still read (entries deferred then may still be due):
///
/// ```
/// pushline-release 1 <token hex> <profile locale, or -> <profile time zone, or ->\n<the intent message's bytes>
/// ```
///
/// one device of an intent, planned again like the original message for that device only.
///
/// A v1 intent is a JSON object, so it never starts with the marker. Either way the delivery is
/// marked as a release, so the policy stage skips quiet hours and the claim takes over the
/// `deferred` claim exactly once (``ClaimRequest/releasing``).
enum ReleaseRecord: Sendable, Equatable {
    /// Version 2: the delivery as planned.
    case planned(Planned)
    /// Version 1: the device and the intent message's bytes, to be planned again.
    case intent(device: RecipientDevice, intent: [UInt8])

    /// What a version-2 record carries: the delivery, and what its outcomes need of its intent and
    /// recipient.
    struct Planned: Sendable, Equatable {
        var origin: DeliveryOrigin
        var delivery: Delivery
    }

    private static let marker = Array("pushline-release ".utf8)
    private static let version2 = marker + Array("2\n".utf8)
    private static let version1 = marker + Array("1 ".utf8)

    /// Whether `bytes` begin as a release record does (what the deferred store's entries hold).
    static func isRecord(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: marker)
    }

    /// The record (version 2) of `planned`, a delivery deferred now.
    static func encoded(_ planned: PlannedDelivery) -> [UInt8] {
        let delivery = planned.delivery
        var writer = RecordFieldWriter(appendingTo: version2, reservingCapacity: 512 + delivery.payload.count * (delivery.sealing == nil ? 1 : 3))
        planned.origin.write(to: &writer)
        delivery.write(to: &writer)
        return writer.bytes
    }

    /// The release in a message's bytes; nil when they are not one (an intent), or a broken one.
    /// A version-1 device's environment is the intent's, set by the planner once it is decoded.
    init?(_ bytes: [UInt8]) {
        // Every intent message comes here: one comparison turns it away.
        guard Self.isRecord(bytes) else { return nil }
        if bytes.starts(with: Self.version2) {
            guard let planned = Self.planned(bytes) else { return nil }
            self = .planned(planned)
        } else if bytes.starts(with: Self.version1), let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
            let fields = bytes[Self.version1.count..<newline].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard fields.count == 3, let token = try? DeviceToken(String(decoding: fields[0], as: UTF8.self)) else { return nil }
            let optional = { (field: ArraySlice<UInt8>) -> String? in field.elementsEqual("-".utf8) ? nil : String(decoding: field, as: UTF8.self) }
            self = .intent(device: RecipientDevice(token: token, environment: .production, profileLocale: optional(fields[1]),
                                                   profileTimeZone: optional(fields[2])),
                           intent: Array(bytes[(newline + 1)...]))
        } else {
            return nil
        }
    }

    private static func planned(_ bytes: [UInt8]) -> Planned? {
        var reader = RecordFieldReader(bytes, from: version2.count)
        do {
            let planned = Planned(origin: try DeliveryOrigin(reading: &reader), delivery: try Delivery(reading: &reader))
            return reader.isAtEnd ? planned : nil
        } catch {
            return nil
        }
    }
}

extension DeliveryOrigin {
    /// Its fields in a release record, in the order ``init(reading:)`` reads them.
    fileprivate func write(to writer: inout RecordFieldWriter) {
        writer.append(intentID)
        writer.append(app)
        writer.append(template)
        writer.append(createdAt)
        writer.append(dedupeWindow)
        writer.append(user)
        writer.append(profileLocale)
        writer.append(profileTimeZone)
    }

    fileprivate init(reading reader: inout RecordFieldReader) throws(RecordFieldError) {
        self.init(intentID: try reader.string(), app: try reader.string(), template: try reader.stringIfPresent(),
                  createdAt: try reader.numberIfPresent(), dedupeWindow: try reader.numberIfPresent(), user: try reader.stringIfPresent(),
                  profileLocale: try reader.stringIfPresent(), profileTimeZone: try reader.stringIfPresent())
    }
}
