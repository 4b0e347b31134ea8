import Foundation
import LocalStack

/// CPU time each process of the benchmark used over a phase, per delivery: steadier than rates on a
/// shared machine, and it says which process the time went to.
struct CPUPerDelivery {
    private let processes: [(name: String, id: pid_t)]
    private let start: [Double?]

    /// Notes the CPU time `processes` have used so far.
    init(_ processes: [(name: String, id: pid_t)]) {
        self.processes = processes
        start = processes.map { ProcessCPUTime.seconds(of: $0.id) }
    }

    /// Each process's CPU time since `init` per delivery, µs, in the order given; nil when unknown.
    func microseconds(deliveries: Int) -> [Double?] {
        zip(processes, start).map { process, start in
            guard let start, let now = ProcessCPUTime.seconds(of: process.id) else { return nil }
            return (now - start) / Double(deliveries) * 1_000_000
        }
    }

    /// `name X µs, …; all Y µs (= Z cores at R deliveries/s)` for `microseconds` of ``microseconds(deliveries:)``.
    func summary(_ microseconds: [Double?], rate: Double) -> String {
        let parts = zip(processes, microseconds).map { process, microseconds in
            microseconds.map { String(format: "%@ %.1f µs", process.name, $0) } ?? "\(process.name) unknown"
        }
        let total = microseconds.compactMap { $0 }.reduce(0, +)
        return parts.joined(separator: ", ") + String(format: "; all %.1f µs (= %.2f cores at %.0f deliveries/s)", total, total * rate / 1_000_000, rate)
    }
}
