/// The SETTINGS a server announces. Defaults are what APNs has been observed to send (spec §5.2).
public struct HTTP2Settings: Sendable, Equatable {
    public var headerTableSize: UInt32 = 4096
    public var maxConcurrentStreams: UInt32 = 1000
    public var initialWindowSize: UInt32 = 65535
    public var maxFrameSize: UInt32 = 16384
    public var maxHeaderListSize: UInt32 = 8000

    public init(maxConcurrentStreams: UInt32 = 1000) {
        self.maxConcurrentStreams = maxConcurrentStreams
    }
}
