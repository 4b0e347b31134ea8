extension Logger {
    /// The text of an event, written as a string literal (swift-log's `Logger.Message`). Values
    /// belong in metadata, where they stay machine-readable and secret-looking keys are redacted.
    public struct Message: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
        CustomStringConvertible {
        public let description: String

        public init(stringLiteral value: String) {
            description = value
        }

        public init(stringInterpolation: DefaultStringInterpolation) {
            description = String(stringInterpolation: stringInterpolation)
        }
    }
}
