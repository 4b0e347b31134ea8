import Telemetry

extension MetricsRegistry {
    /// The whole exposition as text, for assertions.
    public var exposition: String {
        var buffer: [UInt8] = []
        emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
