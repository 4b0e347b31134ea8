#if canImport(Glibc)
import Glibc
#endif
import APNsCore

/// The inbox as an append-only file of JSON lines: one line per accepted notification, with
/// `"replaces": "<apns-id>"` when its collapse id replaced an earlier one.
final class InboxFile: Sendable {
    private let descriptor: Int32

    init(path: String) throws(SimulatorConfigurationError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SimulatorConfigurationError(source: path, message: "cannot open the inbox file (errno \(errno))")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Appends one line; false when the write failed. One `write` per line with `O_APPEND`, so
    /// lines from several threads never interleave.
    func append(_ notification: DeliveredNotification, replacing replaced: DeliveredNotification?) -> Bool {
        var object = notification.json
        if let replaced { object.members.append(.init("replaces", .string(replaced.apnsID))) }
        var line: [UInt8] = []
        JSONWriter.appendValue(.object(object), to: &line)
        line.append(0x0A)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        return written == line.count
    }
}
