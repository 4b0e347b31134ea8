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

    /// `name X µs, …; all Y µs (= Z cores at R deliveries/s)` for the CPU time used since `init`.
    func summary(deliveries: Int, rate: Double) -> String {
        var total = 0.0
        let parts = zip(processes, start).map { process, start -> String in
            guard let start, let now = ProcessCPUTime.seconds(of: process.id) else { return "\(process.name) unknown" }
            let microseconds = (now - start) / Double(deliveries) * 1_000_000
            total += microseconds
            return String(format: "%@ %.1f µs", process.name, microseconds)
        }
        return parts.joined(separator: ", ") + String(format: "; all %.1f µs (= %.2f cores at %.0f deliveries/s)", total, total * rate / 1_000_000, rate)
    }
}
