import APNsCore

/// The text of a settled claim in Redis: `sent` or `failed`, then the ``SettledOutcome`` as a JSON
/// array — `[topic, partition, offset, status, completed_at, attempts, reason, apns_unique_id,
/// apns_status, apns_timestamp, latency_ms]`, `null` where absent, and a twelfth field, `release_at`, only
/// when the outcome has one (a `deferred` delivery's). A plain `sent`/`failed` (a claim
/// settled without an outcome, or by a Pushline that kept none) is read with no outcome.
enum ClaimValue {
    /// A `pending` claim's text: `pending <owner>`, or a plain `pending` without one.
    static func pending(owner: String?) -> String {
        owner.map { "pending " + $0 } ?? "pending"
    }

    /// The owner a `pending <owner>` claim names; nil for a plain `pending` or any other text.
    static func pendingOwner(_ bytes: [UInt8]) -> String? {
        let prefix = "pending ".utf8
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        return String(decoding: bytes[prefix.count...], as: UTF8.self)
    }

    /// The key that says an owner lives (`pushline:owner:<owner>`), refreshed while it runs.
    static func ownerKey(_ owner: String) -> String {
        "pushline:owner:" + owner
    }

    /// The claim's text.
    static func encoded(_ claim: SettledClaim) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(claim, into: &bytes)
        return bytes
    }

    /// Appends the claim's text to `bytes`, field by field (one per settled delivery, on the record
    /// path: written straight into the Redis command).
    static func encode(_ claim: SettledClaim, into bytes: inout [UInt8]) {
        guard let outcome = claim.outcome else {
            bytes.append(contentsOf: claim.state.rawValue.utf8)
            return
        }
        appendHead(claim.state, source: outcome.source, status: outcome.status, to: &bytes)
        appendField(outcome.completedAt, to: &bytes)
        appendField(Int64(outcome.attempts), to: &bytes)
        appendField(outcome.reason, to: &bytes)
        appendField(outcome.apnsUniqueID, to: &bytes)
        appendField(outcome.apnsStatus.map(Int64.init), to: &bytes)
        appendField(outcome.apnsTimestamp, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        if let latency = outcome.latencyMilliseconds { JSONWriter.appendDouble(latency, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        if let releaseAt = outcome.releaseAt { appendField(releaseAt, to: &bytes) }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends how the text of a claim settled `deferred` by the message at `source` begins (the
    /// state, then the kept outcome's source and status) to `bytes`, one per release claimed,
    /// written straight into the Redis command: a release read again whose own record deferred the
    /// delivery again finds its own decision, not a deferral to take over.
    static func appendDeferral(by source: SourcePosition, to bytes: inout [UInt8]) {
        appendHead(.failed, source: source, status: .deferred, to: &bytes)
        bytes.append(UInt8(ascii: ","))
    }

    /// A settled claim's text up to its kept outcome's status, `<state> [<topic>,<partition>,<offset>,<status>`:
    /// one writer for ``encode(_:into:)`` and ``appendDeferral(by:to:)``, whose prefix the release
    /// script matches byte for byte.
    private static func appendHead(_ state: SettledClaim.State, source: SourcePosition, status: OutcomeEvent.Status,
                                   to bytes: inout [UInt8]) {
        bytes.append(contentsOf: state.rawValue.utf8)
        bytes.append(contentsOf: " [".utf8)
        JSONWriter.appendString(source.topic, to: &bytes)
        appendField(Int64(source.partition), to: &bytes)
        appendField(source.offset, to: &bytes)
        appendField(status.rawValue, to: &bytes)
    }

    /// `,` and the number, or `null`.
    private static func appendField(_ number: Int64?, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ","))
        if let number { JSONWriter.appendInteger(number, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
    }

    /// `,` and the string, or `null`.
    private static func appendField(_ text: String?, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ","))
        if let text { JSONWriter.appendString(text, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
    }

    /// The state and outcome of a settled claim's text; nil when it is not a settled claim
    /// (`pending …`). An outcome that cannot be read is left out: the claim still counts as settled.
    static func decode(_ bytes: [UInt8]) -> (state: SettledClaim.State, outcome: SettledOutcome?)? {
        let space = bytes.firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
        guard let state = SettledClaim.State(rawValue: String(decoding: bytes[..<space], as: UTF8.self)) else { return nil }
        guard space < bytes.endIndex, case .array(let fields)? = try? JSONParser.parse(Array(bytes[(space + 1)...])),
              fields.count == 11 || fields.count == 12, let topic = fields[0].stringValue, case .integer(let partition) = fields[1],
              case .integer(let offset) = fields[2], let status = fields[3].stringValue.flatMap(OutcomeEvent.Status.init(rawValue:)),
              case .integer(let completedAt) = fields[4], case .integer(let attempts) = fields[5]
        else { return (state, nil) }
        let source = SourcePosition(topic: topic, partition: Int32(truncatingIfNeeded: partition), offset: offset)
        var apnsStatus: Int?
        if case .integer(let value) = fields[8] { apnsStatus = Int(value) }
        var apnsTimestamp: Int64?
        if case .integer(let value) = fields[9] { apnsTimestamp = value }
        var releaseAt: Int64?
        if fields.count == 12, case .integer(let value) = fields[11] { releaseAt = value }
        return (state, SettledOutcome(source: source, status: status, completedAt: completedAt, reason: fields[6].stringValue,
                                      apnsUniqueID: fields[7].stringValue, apnsStatus: apnsStatus, apnsTimestamp: apnsTimestamp,
                                      attempts: Int(attempts), latencyMilliseconds: fields[10].numberValue,
                                      releaseAt: releaseAt))
    }
}
