import Synchronization

/// Every metric of one name, one member per set of label values: a Prometheus metric family, like
/// client_golang's `CounterVec`. The registry validates the name and the label names once, when it
/// makes the family, so looking up a member never fails.
///
/// Looking up a member holds a lock for one comparison with the member looked up last (a caller
/// that counts one result after another mostly asks for the same labels again), or else one
/// dictionary access; keep the member when its labels are fixed. Updating a member is lock-free.
public final class MetricFamily<Metric: AnyObject & Sendable>: Sendable {
    /// The metric name shared by every member.
    public let name: String
    /// The label names, in the order ``metric(labelValues:)`` takes their values.
    public let labelNames: [String]
    /// The `# HELP` text.
    let help: String
    /// The bucket bounds of histograms and timers; empty for counters and gauges.
    let buckets: [Double]
    private let makeMember: @Sendable (_ dimensions: [(String, String)]) -> Metric
    private let members = Mutex<MetricMembers>(MetricMembers())

    init(name: String, labelNames: [String], help: String, buckets: [Double],
         makeMember: @escaping @Sendable (_ dimensions: [(String, String)]) -> Metric) {
        self.name = name
        self.labelNames = labelNames
        self.help = help
        self.buckets = buckets
        self.makeMember = makeMember
    }

    /// The member with these label values, one per label name in the same order; made on first use.
    /// A different number of values than label names is a programming error.
    public func metric(labelValues: [String]) -> Metric {
        checkCount(labelValues.count)
        let member: AnyObject = members.withLock { members in
            if let last = members.lastMember, members.lastLabelValues == labelValues { return last }
            return findOrMake(labelValues, in: &members)
        }
        // Every member was made by `makeMember`, so it is a `Metric`.
        return unsafeDowncast(member, to: Metric.self)
    }

    /// As ``metric(labelValues:)``, with the values inline: when they are those of the member looked
    /// up last, it is found without an array of them (a hot path counting one result after another
    /// allocates nothing); an array is made only for another member.
    public func metric<let count: Int>(_ labelValues: InlineArray<count, String>) -> Metric {
        checkCount(count)
        let member: AnyObject = members.withLock { members in
            if let last = members.lastMember, members.lastLabelValues.count == count,
               (0..<count).allSatisfy({ members.lastLabelValues[$0] == labelValues[$0] }) {
                return last
            }
            var values: [String] = []
            values.reserveCapacity(count)
            for index in 0..<count { values.append(labelValues[index]) }
            return findOrMake(values, in: &members)
        }
        return unsafeDowncast(member, to: Metric.self)
    }

    private func checkCount(_ count: Int) {
        precondition(count == labelNames.count, "metric \(name) takes \(labelNames.count) label values (\(labelNames)), got \(count)")
    }

    /// The member with `labelValues` (not the last one looked up), made when new; it becomes the last.
    private func findOrMake(_ labelValues: [String], in members: inout MetricMembers) -> AnyObject {
        let member: AnyObject
        if let known = members.byLabelValues[labelValues] {
            member = known
        } else {
            member = makeMember(Array(zip(labelNames, labelValues)))
            members.byLabelValues[labelValues] = member
        }
        members.lastLabelValues = labelValues
        members.lastMember = member
        return member
    }

    /// The members, ordered by their label values so that expositions are stable.
    func sortedMembers() -> [Metric] {
        members.withLock { members in
            members.byLabelValues.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { unsafeDowncast($0.value, to: Metric.self) }
        }
    }
}

/// A family's members by label values, and the one looked up last. Neither generic nor nested in
/// the generic family: other modules call ``MetricFamily/metric(labelValues:)`` unspecialized, and
/// storage whose type depends on `Metric` made every lookup ask the runtime for its type metadata
/// (the sender looks up members per delivery).
private struct MetricMembers {
    var byLabelValues: [[String]: AnyObject] = [:]
    var lastLabelValues: [String] = []
    var lastMember: AnyObject?
}
