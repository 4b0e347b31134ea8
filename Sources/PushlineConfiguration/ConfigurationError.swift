/// One problem found while loading the configuration: the file, the line and the dotted key at
/// fault, and what is wrong. When the value came from a `PUSHLINE_…` environment variable, the
/// variable is named too. Messages never contain a secret.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The raw value is a machine-readable word for logs and metrics.
    public enum Code: String, Sendable, CaseIterable {
        case unreadableFile = "UnreadableFile"
        case syntax = "Syntax"
        case unknownKey = "UnknownKey"
        case unknownVariable = "UnknownVariable"
        case wrongType = "WrongType"
        case outOfRange = "OutOfRange"
        case invalidValue = "InvalidValue"
        case missingKey = "MissingKey"
        case missingFile = "MissingFile"
        case unusableCredentials = "UnusableCredentials"
        case unknownReference = "UnknownReference"
        case duplicate = "Duplicate"
        case inlineSecret = "InlineSecret"
    }

    public let code: Code
    /// The configuration or pipeline file, as it was named to the loader; `environment` for a
    /// `PUSHLINE_…` variable that names no setting.
    public let file: String
    /// 1-based; nil when there is no line to name (an unreadable file, an unknown variable).
    public let line: Int?
    /// The dotted key at fault, such as `apns.pools[0].max_connections`.
    public let key: String
    public let message: String
    /// The `PUSHLINE_…` variable the value came from, when it came from the environment.
    public let variable: String?

    /// An error in `file` at `line` on `key`.
    public init(_ code: Code, file: String, line: Int?, key: String, _ message: String, variable: String? = nil) {
        self.code = code
        self.file = file
        self.line = line
        self.key = key
        self.message = message
        self.variable = variable
    }

    /// `FILE:LINE: KEY: message`, with ` (from PUSHLINE_…)` when the value came from the environment.
    public var description: String {
        let location = line.map { "\(file):\($0)" } ?? file
        let origin = variable.map { " (from \($0))" } ?? ""
        return "\(location): \(key): \(message)\(origin)"
    }
}
