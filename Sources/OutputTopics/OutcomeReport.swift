import Kafka

/// The delivery funnel of a range of outcome events, with the top dead-letter reasons of the same
/// range: built record by record, each delivery counted once (``DeliveryIdentity``) however many
/// copies of its outcome were read.
public struct OutcomeReport: Sendable {
    /// One line of the funnel: deliveries of one app, template, push type and locale that ended with
    /// one status and reason. Absent fields are nil.
    public struct Line: Hashable, Sendable {
        public let app: String
        public let template: String?
        public let pushType: String?
        public let locale: String?
        public let status: String
        public let reason: String?
    }

    /// A token APNs called unregistered or expired (`rejected` with `Unregistered`/`ExpiredToken`):
    /// one to remove from the backend's own lists.
    public struct GoneToken: Hashable, Sendable {
        public let app: String
        public let environment: String
        public let token: String
        public let reason: String
    }

    /// The statuses of outcome-v1, in funnel order.
    public static let statuses = ["accepted", "rejected", "suppressed", "failed", "invalid", "expired", "unknown"]
    /// Rejection reasons that mean the token is gone for good.
    public static let goneTokenReasons: Set<String> = ["Unregistered", "ExpiredToken"]

    public let range: RecordRange
    /// Outcome records read in the range's offsets (copies and records outside its time included).
    public private(set) var recordsRead = 0
    /// Records read whose time is outside the range (read because the offsets of a time are approximate).
    public private(set) var outsideRange = 0
    /// Records that are not outcome-v1 events, with why (the first 20 kept).
    public private(set) var unreadable: [OutputRecordError] = []
    public private(set) var unreadableCount = 0
    /// Deliveries counted, each once.
    public private(set) var deliveries = 0
    /// Outcome records beyond the first of their delivery.
    public private(set) var copies = 0
    /// Of ``copies``, those not byte for byte the first record of their delivery.
    public private(set) var differingCopies = 0
    public private(set) var lines: [Line: [Double?]] = [:]
    /// The APNs time (or, without one, the outcome's time) each gone token was last reported at.
    public private(set) var goneTokens: [GoneToken: Int64] = [:]
    /// Dead letters in the range, by reason (each dead letter once: by its source position and reason).
    public private(set) var deadLetterReasons: [String: Int] = [:]
    public private(set) var deadLettersRead = 0
    private var firstCopy: [DeliveryIdentity: Int] = [:]
    private var deadLettersSeen: Set<String> = []

    public init(range: RecordRange) {
        self.range = range
    }

    /// Adds one record of the outcomes topic.
    public mutating func addOutcome(_ message: KafkaConsumerMessage) {
        recordsRead += 1
        let outcome: OutcomeRecord
        do {
            outcome = try OutcomeRecord(message)
        } catch {
            noteUnreadable(error)
            return
        }
        guard range.contains(time: outcome.completedAt) else {
            outsideRange += 1
            return
        }
        var hasher = Hasher()
        hasher.combine(outcome.bytes)
        let fingerprint = hasher.finalize()
        if let first = firstCopy[outcome.delivery] {
            copies += 1
            if first != fingerprint { differingCopies += 1 }
            return
        }
        firstCopy[outcome.delivery] = fingerprint
        deliveries += 1
        let line = Line(app: outcome.app, template: outcome.template, pushType: outcome.pushType, locale: outcome.locale,
                        status: outcome.status, reason: outcome.reason)
        lines[line, default: []].append(outcome.latency)
        if outcome.status == "rejected", let reason = outcome.reason, Self.goneTokenReasons.contains(reason),
           let token = outcome.delivery.token {
            let gone = GoneToken(app: outcome.app, environment: outcome.environment, token: token, reason: reason)
            goneTokens[gone] = max(goneTokens[gone] ?? .min, outcome.apnsTimestamp ?? outcome.completedAt)
        }
    }

    /// Adds one record of the dead-letter topic.
    public mutating func addDeadLetter(_ message: KafkaConsumerMessage) {
        let deadLetter: DeadLetterRecord
        do {
            deadLetter = try DeadLetterRecord(message)
        } catch {
            noteUnreadable(error)
            return
        }
        guard range.contains(time: deadLetter.recordedAt),
              deadLettersSeen.insert("\(deadLetter.source) \(deadLetter.reason) \(deadLetter.intentID ?? "")").inserted else { return }
        deadLettersRead += 1
        deadLetterReasons[deadLetter.reason, default: 0] += 1
    }

    private mutating func noteUnreadable(_ error: OutputRecordError) {
        unreadableCount += 1
        if unreadable.count < 20 { unreadable.append(error) }
    }

    /// Deliveries by status, every status of outcome-v1 present (0 when none).
    public var byStatus: [(status: String, count: Int)] {
        var counts: [String: Int] = [:]
        for (line, latencies) in lines { counts[line.status, default: 0] += latencies.count }
        let known = Self.statuses.map { ($0, counts[$0] ?? 0) }
        let others = counts.keys.filter { !Self.statuses.contains($0) }.sorted().map { ($0, counts[$0]!) }
        return known + others
    }

    /// The funnel's lines, by app, template, push type, locale, then status in funnel order and reason.
    public var sortedLines: [(line: Line, count: Int, latency: LatencySummary?)] {
        lines.map { (line: $0.key, count: $0.value.count, latency: LatencySummary($0.value.compactMap { $0 })) }
            .sorted { left, right in
                let a = left.line
                let b = right.line
                return (a.app, a.template ?? "", a.pushType ?? "", a.locale ?? "", Self.rank(a.status), a.reason ?? "")
                    < (b.app, b.template ?? "", b.pushType ?? "", b.locale ?? "", Self.rank(b.status), b.reason ?? "")
            }
    }

    /// Latencies of every delivery that has one.
    public var latency: LatencySummary? {
        LatencySummary(lines.values.flatMap { $0.compactMap { $0 } })
    }

    /// Latencies of accepted deliveries: the time from the intent to APNs' acceptance.
    public var acceptedLatency: LatencySummary? {
        LatencySummary(lines.filter { $0.key.status == "accepted" }.values.flatMap { $0.compactMap { $0 } })
    }

    /// Gone tokens, by app, environment and token.
    public var sortedGoneTokens: [(token: GoneToken, at: Int64)] {
        goneTokens.map { (token: $0.key, at: $0.value) }
            .sorted { ($0.token.app, $0.token.environment, $0.token.token) < ($1.token.app, $1.token.environment, $1.token.token) }
    }

    /// Dead-letter reasons, most frequent first, at most `limit`.
    public func topDeadLetterReasons(_ limit: Int = 10) -> [(reason: String, count: Int)] {
        Array(deadLetterReasons.map { (reason: $0.key, count: $0.value) }
            .sorted { ($1.count, $0.reason) < ($0.count, $1.reason) }.prefix(limit))
    }

    private static func rank(_ status: String) -> Int {
        statuses.firstIndex(of: status) ?? statuses.count
    }
}
