import Foundation

/// An APNs stand-in running as a process of its own on 127.0.0.1 over TLS, for benchmarks:
/// ``SimulatorProcess`` (`apns-sim`) or ``NghttpdProcess``.
public protocol APNsServerProcess: Sendable {
    /// The port of `POST /3/device/<token>`.
    var devicePort: UInt16 { get }
    /// The certificate it serves; clients trust it as their CA.
    var certificateFile: String { get }
    var processID: pid_t { get }
    /// The process's largest resident set so far (`VmHWM`), in bytes.
    var peakResidentBytes: Int? { get }
    /// Stops it and waits.
    func stop()
}

extension SimulatorProcess: APNsServerProcess {}
extension NghttpdProcess: APNsServerProcess {}
