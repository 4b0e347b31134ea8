/// A configuration input the simulator cannot use: a key file, a device registry, a faults
/// document. Names where the problem is (the file or the admin request) and which key.
public struct SimulatorConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file path, or the admin request (`POST /devices`) the input came from.
    public let source: String
    /// The JSON key or flag at fault (`devices[2].environment`), or nil for the whole input.
    public let key: String?
    public let message: String

    /// An error about `source`, at `key` when one key is at fault.
    public init(source: String, key: String? = nil, message: String) {
        self.source = source
        self.key = key
        self.message = message
    }

    public var description: String {
        if let key { "\(source): \(key): \(message)" } else { "\(source): \(message)" }
    }
}
