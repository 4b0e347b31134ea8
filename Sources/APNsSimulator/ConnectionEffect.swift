import APNsCore

/// Something the transport applies to the whole connection after answering a request.
public enum ConnectionEffect: Sendable, Equatable {
    /// Send a SETTINGS frame with this `SETTINGS_MAX_CONCURRENT_STREAMS`.
    case setMaxConcurrentStreams(Int)
    /// Send GOAWAY with `errorCode` and ``goAwayDebugData(reason:)`` as debug data, then close the
    /// connection once the streams in flight are answered.
    case goAway(reason: String, errorCode: UInt32)

    /// HTTP/2 `NO_ERROR`, the code APNs has been seen using in its GOAWAYs (spec §5.3).
    public static let noError: UInt32 = 0

    /// The GOAWAY debug data APNs sends: `{"reason":"<reason>"}` (spec §5.1). The transport uses
    /// this too for the GOAWAYs it decides itself (shutdown, stream-limit violations), so every
    /// GOAWAY of the simulator is written the same way.
    public static func goAwayDebugData(reason: String) -> [UInt8] {
        var data: [UInt8] = []
        JSONWriter.appendValue(.object(["reason": .string(reason)]), to: &data)
        return data
    }
}
