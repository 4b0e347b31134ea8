/// Thrown when the configuration cannot be used: every problem found, in the order of the files,
/// not only the first.
public struct InvalidConfiguration: Error, Sendable, CustomStringConvertible {
    public let errors: [ConfigurationError]

    public init(errors: [ConfigurationError]) {
        self.errors = errors
    }

    /// One line per problem.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
