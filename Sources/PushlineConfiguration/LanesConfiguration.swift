/// A pipeline's priority lanes (`policies.lanes`): named lanes with weights, the lane of an intent
/// that names none, and how many planned deliveries the worker may read ahead of its batches so
/// that a later intent of a higher lane can overtake them (docs/policies.md).
public struct LanesConfiguration: Sendable, Equatable {
    /// One lane: under load it gets `weight / (sum of the weights of lanes with work)` of the batches.
    public struct Lane: Sendable, Equatable {
        public var name: String
        public var weight: Int

        public init(name: String, weight: Int) {
            self.name = name
            self.weight = weight
        }
    }

    /// In the order written; empty when the pipeline has no lanes (one queue, first in first out).
    public var lanes: [Lane] = []
    /// The lane of an intent that names none (and whose template names none), or names one the
    /// pipeline does not have; the first lane written unless `default` says otherwise.
    public var defaultLane: String?
    /// Planned deliveries the worker may keep waiting for a batch beyond the batch it fills
    /// (`read_ahead`): it keeps reading intents while the sender is busy, up to this, so the lanes
    /// have something to choose from. Only with lanes.
    public var readAhead = 5_000
    /// Batches of the lightest lanes the worker keeps out (claimed or at the sender) while a lane
    /// above them had a delivery within `lightestQuiet` (`lightest_batches`; not set: `concurrency`,
    /// no bound), so that bulk leaves the machine room for the lanes above (docs/policies.md).
    public var lightestBatches: Int?
    /// How long after its last delivery a lane above still counts as active (`lightest_quiet`).
    public var lightestQuiet = Duration.seconds(1)

    public init() {}

    /// The index of the lane named `name`, else of the default lane; 0 without lanes.
    public func index(of name: String?) -> Int {
        if let name, let index = lanes.firstIndex(where: { $0.name == name }) { return index }
        return defaultLane.flatMap { name in lanes.firstIndex { $0.name == name } } ?? 0
    }

    /// Reads `lanes:` (`default`, `read_ahead`, `lightest_batches`, `lightest_quiet`,
    /// `weights: {<lane>: <weight>}`).
    static func read(_ section: inout ConfigurationSection) -> LanesConfiguration {
        defer { section.finish() }
        var lanes = LanesConfiguration()
        let weightType = ConfigurationValueType<Int>.integer(1...1_000)
        for entry in section.dictionary("weights") {
            let key = "weights." + entry.name
            guard (try? ConfigurationValueType.name.convert(entry.name)) != nil else {
                section.report(.invalidValue, key, at: entry.origin, "a lane name may hold only letters, digits, \"-\" and \"_\"")
                continue
            }
            guard let weight = try? weightType.convert(entry.value) else {
                section.report(.outOfRange, key, at: entry.origin, "\"\(entry.value)\" is not a weight: must be \(weightType.expectation)")
                continue
            }
            lanes.lanes.append(Lane(name: entry.name, weight: weight))
        }
        if let name = section.value("default", .name) {
            if lanes.lanes.contains(where: { $0.name == name }) {
                lanes.defaultLane = name
            } else {
                section.report(.unknownReference, "default", at: section.origin("default"),
                               "\"\(name)\" is not a lane of weights (\(lanes.lanes.map(\.name).joined(separator: ", ")))")
            }
        }
        lanes.readAhead = section.value("read_ahead", .integer(0...1_000_000)) ?? lanes.readAhead
        lanes.lightestBatches = section.value("lightest_batches", .integer(1...64))
        lanes.lightestQuiet = section.value("lightest_quiet", .duration(.milliseconds(1)...Duration.seconds(3_600))) ?? lanes.lightestQuiet
        return lanes
    }
}
