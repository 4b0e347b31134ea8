/// A mistake in how a command was called. Printed as `pushline <command>: <message>` with a hint
/// to `--help`, and the process exits with status 2.
struct UsageError: Error {
    let message: String
}

/// What a command accepts: options that take a value, options that are flags, and how many
/// positional arguments.
struct ArgumentSpec {
    var valueOptions: Set<String> = []
    var flagOptions: Set<String> = []
    var positionalNames: [String] = []
    /// Options that take a value and may be given more than once.
    var repeatableValueOptions: Set<String> = []
}

/// Arguments parsed against an ``ArgumentSpec``: `--name value`, `--name=value`, `--flag`, and
/// positionals in order. `--help` and `-h` are always accepted.
struct ParsedArguments {
    private(set) var values: [String: String] = [:]
    private(set) var repeatedValues: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    var wantsHelp: Bool { flags.contains("--help") }

    init(_ arguments: ArraySlice<String>, spec: ArgumentSpec) throws(UsageError) {
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
                } else if spec.valueOptions.contains(name) || spec.repeatableValueOptions.contains(name) {
                    let repeatable = spec.repeatableValueOptions.contains(name)
                    guard repeatable || values[name] == nil else { throw UsageError(message: "\(name) is given more than once") }
                    let value: String
                    if parts.count == 2 {
                        value = parts[1]
                    } else if let next = remaining.popFirst(), !next.hasPrefix("--") {
                        value = next
                    } else {
                        throw UsageError(message: "\(name) needs a value")
                    }
                    if repeatable { repeatedValues[name, default: []].append(value) } else { values[name] = value }
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
    func required(_ name: String) throws(UsageError) -> String {
        guard let value = values[name] else { throw UsageError(message: "\(name) is required") }
        return value
    }

    /// The value of an optional option.
    func optional(_ name: String) -> String? {
        values[name]
    }

    /// Every value of a repeatable option, in the order given.
    func all(_ name: String) -> [String] {
        repeatedValues[name] ?? []
    }

    /// An optional option that must be a whole number.
    func optionalInteger(_ name: String) throws(UsageError) -> Int64? {
        guard let text = values[name] else { return nil }
        guard let number = Int64(text) else { throw UsageError(message: "\(name) must be a whole number, got \"\(text)\"") }
        return number
    }
}
