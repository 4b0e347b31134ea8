/// Why bytes are not a valid v1 intent (or `pushline.tokens` record, whose decoder shares this
/// type): a machine-readable code, the JSON path of the offending value (`$.tokens[2]`), and the
/// reason in words.
public struct IntentDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of mistake; the raw value is the word outcome events and metrics use.
    public enum Code: String, Sendable, CaseIterable {
        case malformedJSON = "MalformedJSON"
        case notAnObject = "NotAnObject"
        case missingField = "MissingField"
        case duplicateField = "DuplicateField"
        case wrongType = "WrongType"
        case invalidValue = "InvalidValue"
        case conflictingFields = "ConflictingFields"
        /// Larger than the reader's limit (a pipeline's `max_intent_bytes`): not decoded at all.
        case intentTooLarge = "IntentTooLarge"
    }

    public let code: Code
    /// Where in the document, as a JSONPath (`$` is the whole intent).
    public let path: String
    public let reason: String

    /// An error at `path` (a JSONPath such as `$.tokens[2]`).
    public init(_ code: Code, at path: String, _ reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// `<Code>: <path>: <reason>`.
    public var description: String { "\(code.rawValue): \(path): \(reason)" }
}
