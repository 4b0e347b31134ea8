import APNsCore

/// The text of a settled claim in Redis: `sent` or `failed`, then the ``SettledOutcome`` as a JSON
/// array — `[topic, partition, offset, status, completed_at, attempts, reason, apns_unique_id,
/// apns_status, apns_timestamp, latency_ms]`, `null` where absent. A plain `sent`/`failed` (a claim
/// settled without an outcome, or by a Pushline that kept none) is read with no outcome.
enum ClaimValue {
    /// The claim's text, written field by field (one per settled delivery, on the record path).
    static func encode(_ claim: SettledClaim) -> [UInt8] {
        var bytes = Array(claim.state.rawValue.utf8)
        guard let outcome = claim.outcome else { return bytes }
        bytes.reserveCapacity(160)
        bytes.append(contentsOf: " [".utf8)
        JSONWriter.appendString(outcome.source.topic, to: &bytes)
        for number in [Int64(outcome.source.partition), outcome.source.offset] {
            bytes.append(UInt8(ascii: ","))
            JSONWriter.appendInteger(number, to: &bytes)
        }
        bytes.append(UInt8(ascii: ","))
        JSONWriter.appendString(outcome.status.rawValue, to: &bytes)
        for number in [outcome.completedAt, Int64(outcome.attempts)] {
            bytes.append(UInt8(ascii: ","))
            JSONWriter.appendInteger(number, to: &bytes)
        }
        for text in [outcome.reason, outcome.apnsUniqueID] {
            bytes.append(UInt8(ascii: ","))
            if let text { JSONWriter.appendString(text, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        }
        for number in [outcome.apnsStatus.map(Int64.init), outcome.apnsTimestamp] {
            bytes.append(UInt8(ascii: ","))
            if let number { JSONWriter.appendInteger(number, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        }
        bytes.append(UInt8(ascii: ","))
        if let latency = outcome.latencyMilliseconds { JSONWriter.appendDouble(latency, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    /// The state and outcome of a settled claim's text; nil when it is not a settled claim
    /// (`pending …`). An outcome that cannot be read is left out: the claim still counts as settled.
    static func decode(_ bytes: [UInt8]) -> (state: SettledClaim.State, outcome: SettledOutcome?)? {
        let space = bytes.firstIndex(of: UInt8(ascii: " ")) ?? bytes.endIndex
        guard let state = SettledClaim.State(rawValue: String(decoding: bytes[..<space], as: UTF8.self)) else { return nil }
        guard space < bytes.endIndex, case .array(let fields)? = try? JSONParser.parse(Array(bytes[(space + 1)...])),
              fields.count == 11, let topic = fields[0].stringValue, case .integer(let partition) = fields[1],
              case .integer(let offset) = fields[2], let status = fields[3].stringValue.flatMap(OutcomeEvent.Status.init(rawValue:)),
              case .integer(let completedAt) = fields[4], case .integer(let attempts) = fields[5]
        else { return (state, nil) }
        let source = SourcePosition(topic: topic, partition: Int32(truncatingIfNeeded: partition), offset: offset)
        var apnsStatus: Int?
        if case .integer(let value) = fields[8] { apnsStatus = Int(value) }
        var apnsTimestamp: Int64?
        if case .integer(let value) = fields[9] { apnsTimestamp = value }
        return (state, SettledOutcome(source: source, status: status, completedAt: completedAt, reason: fields[6].stringValue,
                                      apnsUniqueID: fields[7].stringValue, apnsStatus: apnsStatus, apnsTimestamp: apnsTimestamp,
                                      attempts: Int(attempts), latencyMilliseconds: fields[10].numberValue))
    }
}
