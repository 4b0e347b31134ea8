/// A password or key that came from a file or the environment. It prints as `<redacted>` in
/// descriptions, string interpolation, `dump` and debuggers, so configuration can be logged whole.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself, for the one call that needs it (an `AUTH` command, a signing key).
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
