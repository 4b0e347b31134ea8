/// Why the sender gave up on a connection or refused work.
public struct SenderError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String

    public var description: String { "\(code): \(message)" }

    static let pingUnanswered = SenderError(code: "PingUnanswered", message: "the connection did not answer a PING in time")
    static func connectTimedOut(afterMilliseconds milliseconds: Int) -> SenderError {
        SenderError(code: "ConnectTimedOut", message: "the connection was not ready (TCP, TLS, SETTINGS) after \(milliseconds) ms")
    }
    /// A `send` after ``APNsSender/shutdown()``: nothing of it was sent.
    public static let shutDown = SenderError(code: "SenderShutDown", message: "the sender has shut down; nothing of this batch was sent")
    static func unknownPool(_ key: String) -> SenderError {
        SenderError(code: "UnknownPool", message: "no pool named \(key)")
    }
}
