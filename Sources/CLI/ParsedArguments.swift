/// A mistake in how a command was called. Printed as `pushline <command>: <message>` with a hint
/// to `--help`, and the process exits with status 2.
public struct UsageError: Error {
    public let message: String

    public init(message: String) {
        self.message = message
    }
}

/// What a command accepts: options that take a value, options that are flags, and how many
/// positional arguments.
public struct ArgumentSpec: Sendable {
    public var valueOptions: Set<String>
    public var flagOptions: Set<String>
    /// Options that may be given several times (`--topic a --topic b`); also listed in `valueOptions`.
    public var repeatableOptions: Set<String>
    public var positionalNames: [String]

    public init(valueOptions: Set<String> = [], flagOptions: Set<String> = [], repeatableOptions: Set<String> = [],
                positionalNames: [String] = []) {
        self.valueOptions = valueOptions.union(repeatableOptions)
        self.flagOptions = flagOptions
        self.repeatableOptions = repeatableOptions
        self.positionalNames = positionalNames
    }
}

/// Arguments parsed against an ``ArgumentSpec``: `--name value`, `--name=value`, `--flag`, and
/// positionals in order. `--help` and `-h` are always accepted.
public struct ParsedArguments {
    private var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []

    public var wantsHelp: Bool { flags.contains("--help") }

    public init(_ arguments: ArraySlice<String>, spec: ArgumentSpec) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "-h" || argument == "--help" {
                flags.insert("--help")
            } else if argument.hasPrefix("--") {
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                let name = parts[0]
                if spec.flagOptions.contains(name) {
                    guard parts.count == 1 else { throw UsageError(message: "\(name) takes no value") }
                    flags.insert(name)
                } else if spec.valueOptions.contains(name) {
                    guard values[name] == nil || spec.repeatableOptions.contains(name) else {
                        throw UsageError(message: "\(name) is given more than once")
                    }
                    if parts.count == 2 {
                        values[name, default: []].append(parts[1])
                    } else if let value = remaining.popFirst(), !value.hasPrefix("--") {
                        values[name, default: []].append(value)
                    } else {
                        throw UsageError(message: "\(name) needs a value")
                    }
                } else {
                    throw UsageError(message: "unknown option \(name)")
                }
            } else {
                positionals.append(argument)
            }
        }
        if wantsHelp { return }
        if positionals.count < spec.positionalNames.count {
            let missing = spec.positionalNames[positionals.count...].joined(separator: " ")
            throw UsageError(message: "missing \(missing)")
        }
        if positionals.count > spec.positionalNames.count {
            throw UsageError(message: "unexpected argument \"\(positionals[spec.positionalNames.count])\"")
        }
    }

    /// The value of a required option.
    public func required(_ name: String) throws(UsageError) -> String {
        guard let value = values[name]?.first else { throw UsageError(message: "\(name) is required") }
        return value
    }

    /// The value of an optional option.
    public func optional(_ name: String) -> String? {
        values[name]?.first
    }

    /// Every value of a repeatable option, in order.
    public func all(_ name: String) -> [String] {
        values[name] ?? []
    }

    /// The `KEY=VALUE` values of a repeatable option laid over `defaults` (a later value of a key
    /// wins), e.g. `--kafka-property fetch.wait.max.ms=2`.
    public func keyValues(_ name: String, over defaults: [String: String] = [:]) throws(UsageError) -> [String: String] {
        var pairs = defaults
        for setting in all(name) {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw UsageError(message: "\(name) must be KEY=VALUE, got \"\(setting)\"") }
            pairs[parts[0]] = parts[1]
        }
        return pairs
    }

    /// An optional option that must be a whole number.
    public func optionalInteger(_ name: String) throws(UsageError) -> Int64? {
        guard let text = values[name]?.first else { return nil }
        guard let number = Int64(text) else { throw UsageError(message: "\(name) must be a whole number, got \"\(text)\"") }
        return number
    }
}
