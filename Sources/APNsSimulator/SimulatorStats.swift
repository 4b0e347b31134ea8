import APNsCore

/// Counts of what the simulator answered, for `GET /stats` and the shutdown summary.
public struct SimulatorStats: Sendable, Equatable {
    /// Requests received, answered or not.
    public internal(set) var requests = 0
    /// Answers by `:status`.
    public internal(set) var responsesByStatus: [Int: Int] = [:]
    /// Rejections by `reason`.
    public internal(set) var rejectionsByReason: [String: Int] = [:]
    /// Streams left unanswered on purpose (fault injection).
    public internal(set) var neverResponded = 0
    /// Connections dropped on purpose (fault injection).
    public internal(set) var connectionResets = 0
    /// GOAWAYs the simulator decided, by reason.
    public internal(set) var goAwaysByReason: [String: Int] = [:]
    public internal(set) var connectionsOpened = 0
    public internal(set) var connectionsClosed = 0
    /// Inbox-file lines that could not be written.
    public internal(set) var inboxWriteFailures = 0

    mutating func recordAnswer(status: Int, reason: RejectionReason?) {
        responsesByStatus[status, default: 0] += 1
        if let reason { rejectionsByReason[reason.rawValue, default: 0] += 1 }
    }

    /// The `GET /stats` document.
    public var json: JSONValue {
        func counts<Key>(_ counts: [Key: Int], name: (Key) -> String) -> JSONValue {
            .object(JSONObject(counts.map { (name($0.key), $0.value) }.sorted { $0.0 < $1.0 }
                .map { JSONObject.Member($0.0, .integer(Int64($0.1))) }))
        }
        return .object([
            "requests": .integer(Int64(requests)),
            "responses_by_status": counts(responsesByStatus) { String($0) },
            "rejections_by_reason": counts(rejectionsByReason) { $0 },
            "never_responded": .integer(Int64(neverResponded)),
            "connection_resets": .integer(Int64(connectionResets)),
            "goaways_by_reason": counts(goAwaysByReason) { $0 },
            "connections_opened": .integer(Int64(connectionsOpened)),
            "connections_closed": .integer(Int64(connectionsClosed)),
            "inbox_write_failures": .integer(Int64(inboxWriteFailures)),
        ])
    }

    /// A few human-readable lines, printed when `apns-sim` shuts down.
    public var summary: String {
        var lines = ["apns-sim: \(requests) requests on \(connectionsOpened) connections"]
        for (status, count) in responsesByStatus.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(status): \(count)")
        }
        for (reason, count) in rejectionsByReason.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(reason): \(count)")
        }
        let goAways = goAwaysByReason.values.reduce(0, +)
        lines.append("  never answered: \(neverResponded), connections reset: \(connectionResets), GOAWAYs: \(goAways)")
        if inboxWriteFailures > 0 { lines.append("  inbox-file lines not written: \(inboxWriteFailures)") }
        return lines.joined(separator: "\n")
    }
}
