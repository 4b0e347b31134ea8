import Foundation
import Runtime

/// Waiting for a server started as a subprocess to accept connections.
public enum ListeningPort {
    /// Polls until something accepts TCP connections on 127.0.0.1:`port`; throws after `timeout`.
    public static func waitUntilAccepting(_ port: UInt16, timeout: Duration = .seconds(5)) throws {
        try Deadline.wait(timeout, for: "something to listen on port \(port)", until: { accepts(port) })
    }

    private static func accepts(_ port: UInt16) -> Bool {
        guard let descriptor = try? Socket.connect(host: "127.0.0.1", port: port) else { return false }
        defer { close(descriptor) }
        var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        _ = poll(&pollDescriptor, 1, 100)
        return Socket.pendingError(descriptor) == 0 && pollDescriptor.revents & Int16(POLLOUT) != 0
    }
}
