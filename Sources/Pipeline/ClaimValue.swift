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
        JSONFieldWriter.withWritten(capacity: textRoom, { write(claim, to: &$0) }) { Array($0) }
    }

    /// Appends the claim's text to `bytes` (one per settled delivery, on the record path: straight
    /// into the Redis command), written whole through a pointer and appended at once: appended
    /// piece by piece, about 25 pieces, it took some 3,300 instructions (docs/BENCHMARKS.md).
    static func encode(_ claim: SettledClaim, into bytes: inout [UInt8]) {
        JSONFieldWriter.withWritten(capacity: textRoom, { write(claim, to: &$0) }) { bytes.append(contentsOf: $0) }
    }

    /// Room for a claim's text on the stack: a settled outcome's is about 150 bytes; a longer one
    /// (a failure's detail for its reason) goes on in an array.
    private static let textRoom = 512

    private static func write(_ claim: SettledClaim, to writer: inout JSONFieldWriter) {
        guard let outcome = claim.outcome else { return writer.raw(claim.state.rawValue) }
        writeHead(claim.state, source: outcome.source, status: outcome.status, to: &writer)
        writer.element(outcome.completedAt)
        writer.element(Int64(outcome.attempts))
        writer.element(outcome.reason)
        writer.element(outcome.apnsUniqueID)
        writer.element(outcome.apnsStatus.map(Int64.init))
        writer.element(outcome.apnsTimestamp)
        writer.element(outcome.latencyMilliseconds)
        if let releaseAt = outcome.releaseAt { writer.element(releaseAt) }
        writer.closeArray()
    }

    /// Appends how the text of a claim settled `deferred` by the message at `source` begins (the
    /// state, then the kept outcome's source and status) to `bytes`, one per release claimed,
    /// written straight into the Redis command: a release read again whose own record deferred the
    /// delivery again finds its own decision, not a deferral to take over.
    static func appendDeferral(by source: SourcePosition, to bytes: inout [UInt8]) {
        JSONFieldWriter.withWritten(capacity: textRoom, { writer in
            writeHead(.failed, source: source, status: .deferred, to: &writer)
            writer.raw(literal: ",")
        }) { bytes.append(contentsOf: $0) }
    }

    /// A settled claim's text up to its kept outcome's status, `<state> [<topic>,<partition>,<offset>,<status>`:
    /// one writer for ``encode(_:into:)`` and ``appendDeferral(by:to:)``, whose prefix the release
    /// script matches byte for byte.
    private static func writeHead(_ state: SettledClaim.State, source: SourcePosition, status: OutcomeEvent.Status,
                                  to writer: inout JSONFieldWriter) {
        writer.raw(state.rawValue)
        writer.raw(literal: " ")
        writer.openArray()
        writer.element(source.topic)
        writer.element(Int64(source.partition))
        writer.element(source.offset)
        writer.element(status.rawValue)
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
