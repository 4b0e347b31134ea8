/// A family the registry can write out and check registrations against, whatever its metric type.
protocol ExposableFamily: AnyObject, Sendable {
    var kind: MetricKind { get }
    /// Appends `# HELP`, `# TYPE` and every member's samples; nothing when the family has no member.
    func emit(into buffer: inout [UInt8])
}

extension MetricFamily: ExposableFamily where Metric: PrometheusSampled {
    var kind: MetricKind { Metric.kind }

    func emit(into buffer: inout [UInt8]) {
        let members = sortedMembers()
        guard !members.isEmpty else { return }
        PrometheusText.appendHeader(name: name, help: help, type: kind.prometheusType, to: &buffer)
        for member in members {
            member.appendSamples(to: &buffer)
        }
    }
}
