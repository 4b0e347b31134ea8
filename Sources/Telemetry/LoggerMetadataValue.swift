extension Logger {
    /// One metadata value (swift-log's `Logger.MetadataValue`): a string, anything printable, or
    /// nested arrays and dictionaries.
    public enum MetadataValue: Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
        ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
        case string(String)
        /// Written with its `description`.
        case stringConvertible(any CustomStringConvertible & Sendable)
        case dictionary(Metadata)
        case array([MetadataValue])

        public init(stringLiteral value: String) {
            self = .string(value)
        }

        public init(stringInterpolation: DefaultStringInterpolation) {
            self = .string(String(stringInterpolation: stringInterpolation))
        }

        public init(arrayLiteral elements: MetadataValue...) {
            self = .array(elements)
        }

        public init(dictionaryLiteral elements: (String, MetadataValue)...) {
            self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
        }
    }
}
