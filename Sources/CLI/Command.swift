/// One `pushline` command: its name, its help text, what arguments it takes, and what it does.
public protocol Command: Sendable {
    /// The words after `pushline` that select this command, for example `validate payload`.
    static var name: String { get }
    /// A one-line summary for `pushline --help`.
    static var summary: String { get }
    /// The full `--help` text.
    static var help: String { get }
    static var arguments: ArgumentSpec { get }
    /// Runs the command and returns the process exit status.
    static func run(_ arguments: ParsedArguments) throws -> Int32
}
