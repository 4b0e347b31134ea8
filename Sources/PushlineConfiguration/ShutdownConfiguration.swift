/// What happens on SIGTERM.
public struct ShutdownConfiguration: Sendable, CustomStringConvertible {
    /// How long in-flight work may take to finish or be handed back before the worker exits.
    public var deadline = Duration.seconds(30)

    public init() {}

    public var description: String { "deadline \(DurationText.format(deadline))" }

    /// Reads the `shutdown` section over the defaults.
    init(reading section: inout ConfigurationSection) {
        if let deadline = section.value("deadline", .duration(.seconds(1)...Duration.seconds(600))) { self.deadline = deadline }
        section.finish()
    }
}
