/// What the transport does with a request's stream.
public enum SimulatorAction: Sendable, Equatable {
    /// Send `response` after `delayMilliseconds` (the injected latency, fixed plus jitter; 0 = now).
    case respond(SimulatorResponse, delayMilliseconds: Int)
    /// Never answer: the stream stays open until the client gives up (fault injection).
    case neverRespond
    /// Drop the TCP connection without a GOAWAY (fault injection).
    case resetConnection
}
