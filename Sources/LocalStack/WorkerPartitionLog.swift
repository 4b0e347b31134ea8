import Foundation

/// What a `pushline run`'s JSON log (level `info`) says about its partitions: the worker logs
/// `"message":"partitions assigned"` (incrementally, under the cooperative-sticky assignor),
/// `"partitions revoked"` and `"partitions lost"`, each with `"partitions":"topic[0],topic[3]"`.
public struct WorkerPartitionLog {
    /// One rebalance line: its message and the partitions of `topic` it names.
    public struct Event: Sendable {
        public let message: String
        public let partitions: [Int32]
    }

    public let events: [Event]

    /// Reads the rebalance lines of `log` about `topic`.
    public init(_ log: String, topic: String) {
        let prefix = topic + "["
        events = log.split(separator: "\n").compactMap { line in
            guard line.contains("\"partitions "),
                  let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let message = json["message"] as? String, let list = json["partitions"] as? String else { return nil }
            let partitions = list.split(separator: ",").compactMap { item -> Int32? in
                guard item.hasPrefix(prefix) else { return nil }
                return Int32(item.dropFirst(prefix.count).dropLast())
            }
            return Event(message: message, partitions: partitions)
        }
    }

    /// Each partition of each assignment, in order.
    public var assignments: [Int32] {
        events.filter { $0.message == "partitions assigned" }.flatMap(\.partitions)
    }

    /// The partitions the worker owns after the last line: assigned, less revoked and lost.
    public var owned: Set<Int32> {
        events.reduce(into: []) { owned, event in
            switch event.message {
            case "partitions assigned": owned.formUnion(event.partitions)
            case "partitions revoked", "partitions lost": owned.subtract(event.partitions)
            default: break
            }
        }
    }

    /// Whether `logs` (one per member of a group) show every member owning some of `topic`'s
    /// `partitions`, and together each of them once: the group has settled.
    public static func isSettled(_ logs: [String], topic: String, partitions: Int) -> Bool {
        let owned = logs.map { WorkerPartitionLog($0, topic: topic).owned }
        return owned.allSatisfy { !$0.isEmpty } && owned.map(\.count).reduce(0, +) == partitions
            && owned.reduce(Set<Int32>()) { $0.union($1) }.count == partitions
    }
}
