/// Names one sent message, so its ``KafkaDeliveryReport`` can be matched back to it. Unique within
/// one ``KafkaProducer``; travels through librdkafka as the message's opaque pointer.
public struct KafkaProducerMessageID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Never 0 (a zero opaque pointer would read back as "none").
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "#\(rawValue)" }
}
