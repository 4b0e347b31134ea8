import APNsCore
import Runtime

/// The figures of one row of `pushline-dev bench faults`, and its goals met or not.
struct BenchFaultsResult {
    let row: String
    /// Intents Kafka acknowledged (poison included).
    var intents = 0
    /// Outcome events read, duplicates included.
    var outcomes = 0
    /// Intents with no outcome when the outputs went quiet.
    var withoutOutcome = 0
    /// Devices that received the notification more than once, and the notifications beyond the first.
    var devicesTwice = 0
    var extraNotifications = 0
    var deadLetters = 0
    var byStatus: [String: Int] = [:]
    /// Times the worker exited by itself.
    var workerExits = 0
    /// From the fault's end to the first `accepted` outcome after it (the worst, for several faults).
    var recovery: Duration?
    /// Whether the row has a fault that ends (then a missing ``recovery`` means none was accepted after it).
    var recoveryExpected = false
    /// From the fault's end (the last restart, for the SIGKILL rows) to the moment the last intent got
    /// its first outcome, when every intent has one.
    var backlogDone: Duration?
    var details: [String] = []
    /// Each goal and whether it was met.
    var goals: [(name: String, met: Bool)] = []

    init(row: String) {
        self.row = row
    }

    var failed: Int { byStatus["failed", default: 0] }

    var met: Bool { goals.allSatisfy(\.met) }

    /// The goals of every row: no intent without an outcome, no exit on input, recovery within 5 s.
    mutating func addCommonGoals() {
        goals.append(("0 without outcome", withoutOutcome == 0))
        goals.append(("worker never exits", workerExits == 0))
        if recoveryExpected { goals.append(("recovery ≤ 5 s", recovery.map { $0 <= .seconds(5) } ?? false)) }
    }

    /// Seconds with one decimal, or "—".
    static func seconds(_ duration: Duration?, missing: String = "—") -> String {
        guard let duration else { return missing }
        return String(format: "%.1f s", duration.inSeconds)
    }

    /// One line of the table.
    var tableLine: String {
        let verdict = met ? "met" : "NOT met: " + goals.filter { !$0.met }.map(\.name).joined(separator: ", ")
        return [row.padding(toLength: 18, withPad: " ", startingAt: 0)] .joined() + [
            intents, outcomes, withoutOutcome, devicesTwice, deadLetters, failed, workerExits,
        ].map { String($0).leftPadded(9) }.joined() + Self.seconds(recovery, missing: recoveryExpected ? "never" : "—").leftPadded(10) + "  " + verdict
    }

    static let tableHeader = "row".padding(toLength: 18, withPad: " ", startingAt: 0)
        + ["intents", "outcomes", "no outc.", "twice", "DLQ", "failed", "exits"].map { $0.leftPadded(9) }.joined()
        + "recovery".leftPadded(10) + "  goal"

    /// The row as one JSON object, for scripts and the tests.
    var json: [UInt8] {
        var object: JSONObject = [
            "row": .string(row), "intents": .integer(Int64(intents)), "outcomes": .integer(Int64(outcomes)),
            "without_outcome": .integer(Int64(withoutOutcome)), "devices_twice": .integer(Int64(devicesTwice)),
            "extra_notifications": .integer(Int64(extraNotifications)), "dead_letters": .integer(Int64(deadLetters)),
            "failed": .integer(Int64(failed)), "worker_exits": .integer(Int64(workerExits)), "met": .bool(met),
        ]
        object.members.append(.init("recovery_seconds", recovery.map { .double($0.inSeconds) } ?? .null))
        object.members.append(.init("backlog_done_seconds", backlogDone.map { .double($0.inSeconds) } ?? .null))
        object.members.append(.init("goals", .object(JSONObject(goals.map { .init($0.name, .bool($0.met)) }))))
        object.members.append(.init("by_status", .object(JSONObject(byStatus.sorted { $0.key < $1.key }.map { .init($0.key, .integer(Int64($0.value))) }))))
        var bytes: [UInt8] = []
        JSONWriter.appendValue(.object(object), to: &bytes)
        return bytes
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? " " + self : String(repeating: " ", count: width - count) + self
    }
}
