import Pipeline

/// Why one dead letter could not be replayed. The others are replayed all the same.
public struct ReplayError: Error, Sendable, CustomStringConvertible {
    /// Machine-readable reasons.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        /// The source partition no longer holds the original (retention or compaction removed it, or
        /// the topic was recreated): it cannot be replayed, only its first bytes are known.
        public static let sourceGone = Code(rawValue: "SourceGone")
        /// The bytes found (the dead letter's whole copy, or the message at the source position) are
        /// not the original: their SHA-256 differs from the dead letter's.
        public static let checksumMismatch = Code(rawValue: "ChecksumMismatch")
        /// Kafka could not be asked for the original (the partition's leader did not answer, no such topic).
        public static let sourceUnreachable = Code(rawValue: "SourceUnreachable")
        /// Kafka did not take the replayed message.
        public static let publishFailed = Code(rawValue: "PublishFailed")

        public var description: String { rawValue }
    }

    public let code: Code
    /// The dead letter concerned.
    public let deadLetter: SourcePosition
    public let detail: String

    public init(code: Code, deadLetter: SourcePosition, detail: String) {
        self.code = code
        self.deadLetter = deadLetter
        self.detail = detail
    }

    public var description: String { "dead letter \(deadLetter): \(code): \(detail)" }
}
