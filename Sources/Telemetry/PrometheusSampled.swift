/// A metric that writes its own samples in the Prometheus text format.
protocol PrometheusSampled: AnyObject, Sendable {
    /// Which naming rules apply and which `# TYPE` it has.
    static var kind: MetricKind { get }
    /// Appends this metric's sample lines (no `# HELP`/`# TYPE`: the family writes those once).
    func appendSamples(to buffer: inout [UInt8])
}
