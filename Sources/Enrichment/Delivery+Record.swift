import APNsCore
import IntentCore

/// A delivery kept as fields (``RecordFieldWriter``) and read back as it was: a deferred delivery's
/// release carries the notification as it was composed, so it is not decoded and composed again
/// (docs/policies.md).
extension Delivery {
    /// Appends every field of the delivery, its locale, what it waits to seal and its policy traits.
    public func write(to writer: inout RecordFieldWriter) {
        writer.append(token.hex)
        writer.append(environment.rawValue)
        writer.append(notificationID.description)
        writer.append(topic)
        writer.append(pushType.rawValue)
        writer.append(Int64(priority.rawValue))
        writer.append(expiration.headerValue)
        writer.append(collapseID)
        writer.append(payload)
        writer.append(locale?.requested)
        writer.append(locale?.source.rawValue)
        writer.append(locale?.resolved)
        writer.append(wasShortened)
        writer.append(sealing != nil)
        if let sealing {
            writer.append(sealing.plaintext)
            writer.append(Int64(sealing.prefixCount))
            writer.append(sealing.withoutKey.rawValue)
            writer.append(sealing.placeholderPayload)
            writer.append(Int64(sealing.limit))
        }
        writer.append(policy.category)
        writer.append(policy.lane)
        writer.append(policy.expiresAt)
        writer.append(policy.timeToLiveSeconds)
        writer.append(policy.respectQuietHours)
        writer.append(policy.campaign)
        writer.append(policy.liveActivityEvent?.rawValue)
        writer.append(policy.interruptionLevel?.rawValue)
    }

    /// Reads what ``write(to:)`` wrote. A record is read from the intents topic, where anything may
    /// be written: its headers must keep the APNs rules the composer kept, and its payload the push
    /// type's limit, or it is not a delivery (sending it could stop the worker).
    public init(reading reader: inout RecordFieldReader) throws(RecordFieldError) {
        // Read into locals and made whole at the end: an initialiser that assigns `sealing` or
        // `policy`, which start with a value, ends with a copy of the whole delivery
        // (docs/BENCHMARKS.md, "Whole copies at the end of initialisers").
        let token = try reader.value { try? DeviceToken($0) }
        let environment = try reader.value(Intent.Environment.init(rawValue:))
        let notificationID = try reader.value(NotificationID.init)
        let topic = try reader.string()
        let pushType = try reader.value(PushType.init(rawValue:))
        guard let priority = Int(exactly: try reader.number()).flatMap(APNsPriority.init(rawValue:)) else { throw RecordFieldError() }
        let expiration = try reader.valueIfPresent(APNsExpiration.init(headerValue:)) ?? .unspecified
        let collapseID = try reader.stringIfPresent()
        let payload = Array(try reader.bytes())
        let request = NotificationRequest(pushType: pushType, topic: topic, priority: priority, collapseID: collapseID, payload: payload)
        guard NotificationValidator.headerViolations(in: request).isEmpty, payload.count <= request.payloadLimit else { throw RecordFieldError() }
        let requested = try reader.stringIfPresent()
        let source = try reader.valueIfPresent(LocaleResolution.Source.init(rawValue:))
        let resolved = try reader.stringIfPresent()
        let locale: LocaleResolution? = switch (requested, source, resolved) {
        case (_, let source?, let resolved?): LocaleResolution(requested: requested, source: source, resolved: resolved)
        case (nil, nil, nil): nil
        default: throw RecordFieldError()
        }
        let wasShortened = try reader.flag()
        var sealing: SealingRequest?
        if try reader.flag() {
            let plaintext = Array(try reader.bytes())
            // The sealer copies the payload up to here: a count past its end would trap.
            let prefixCount = try reader.number()
            guard (0...Int64(payload.count)).contains(prefixCount) else { throw RecordFieldError() }
            let withoutKey = try reader.value(MissingKeyRule.init(rawValue:))
            let placeholderPayload = try reader.bytesIfPresent().map(Array.init)
            let limit = try reader.number()
            guard (1...Int64(request.payloadLimit)).contains(limit) else { throw RecordFieldError() }
            sealing = SealingRequest(plaintext: plaintext, prefixCount: Int(prefixCount), withoutKey: withoutKey,
                                     placeholderPayload: placeholderPayload, limit: Int(limit))
        }
        let policy = DeliveryPolicyTraits(category: try reader.stringIfPresent(), lane: try reader.stringIfPresent(),
                                          expiresAt: try reader.numberIfPresent(), timeToLiveSeconds: try reader.numberIfPresent(),
                                          respectQuietHours: try reader.flag(), campaign: try reader.stringIfPresent(),
                                          liveActivityEvent: try reader.valueIfPresent(LiveActivityEvent.init(rawValue:)),
                                          interruptionLevel: try reader.valueIfPresent(InterruptionLevel.init(rawValue:)))
        self.init(token: token, environment: environment, notificationID: notificationID, topic: topic, pushType: pushType,
                  priority: priority, expiration: expiration, collapseID: collapseID, payload: payload, locale: locale,
                  wasShortened: wasShortened, sealing: sealing, policy: policy)
    }
}
