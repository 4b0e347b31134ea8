/// Why a worker or the token feed stopped on its own.
public struct WorkerError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
