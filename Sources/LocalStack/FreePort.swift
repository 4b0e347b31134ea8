import Foundation
import Runtime

/// A TCP port on 127.0.0.1 for a server started next (a worker's metrics port): one the kernel
/// handed out for port 0 a moment ago, then released.
public enum FreePort {
    public static func next() throws -> Int {
        let (descriptor, port) = try Socket.listen(host: "127.0.0.1", port: 0)
        close(descriptor)
        return Int(port)
    }
}
