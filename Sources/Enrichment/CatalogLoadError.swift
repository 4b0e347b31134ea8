/// Why a template or locale file cannot be loaded: the file, the line when known, the key at
/// fault, and the reason. Loading stops at the first such error; a reload keeps the old catalog.
public struct CatalogLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The raw value is a machine-readable word for logs and metrics.
    public enum Code: String, Sendable, CaseIterable {
        case unreadableFile = "UnreadableFile"
        case syntax = "Syntax"
        case invalidTemplate = "InvalidTemplate"
        case invalidStrings = "InvalidStrings"
    }

    public let code: Code
    public let file: String
    /// 1-based; nil when the format has no lines to name (JSON reports a byte offset in the reason).
    public let line: Int?
    /// The dotted key at fault, such as `templates.chat_message.priority`.
    public let key: String?
    public let reason: String

    /// An error in `file` (at `line`, on `key`, when known).
    public init(_ code: Code, file: String, line: Int? = nil, key: String? = nil, _ reason: String) {
        self.code = code
        self.file = file
        self.line = line
        self.key = key
        self.reason = reason
    }

    /// `file:line: key: reason`.
    public var description: String {
        let location = line.map { "\(file):\($0)" } ?? file
        return key.map { "\(location): \($0): \(reason)" } ?? "\(location): \(reason)"
    }
}
