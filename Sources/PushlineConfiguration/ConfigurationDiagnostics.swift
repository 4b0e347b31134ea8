/// What one load shares across all the sections it reads: the environment, the `PUSHLINE_…`
/// variables that name a setting, and the errors found so far. One load, one thread.
final class ConfigurationDiagnostics {
    /// The first word after `PUSHLINE_` of every variable that overrides a setting. A variable that
    /// starts with one of them but names no setting is a typo, and an error; other `PUSHLINE_…`
    /// variables belong to other tools and are left alone.
    static let sectionWords = ["KAFKA", "REDIS", "APNS", "TELEMETRY", "DEDUPE", "SHUTDOWN", "TOKENS", "PIPELINES"]

    let environment: [String: String]
    private(set) var errors: [ConfigurationError] = []
    private var knownVariables: Set<String> = []
    private var knownPrefixes: [String] = []

    init(environment: [String: String]) {
        self.environment = environment
    }

    /// The errors file by file, in the order the files were read, and by line within a file.
    var errorsInFileOrder: [ConfigurationError] {
        var fileOrder: [String: Int] = [:]
        for error in errors where fileOrder[error.file] == nil { fileOrder[error.file] = fileOrder.count }
        return errors.enumerated().sorted { first, second in
            let a = (fileOrder[first.element.file] ?? 0, first.element.line ?? 0, first.offset)
            let b = (fileOrder[second.element.file] ?? 0, second.element.line ?? 0, second.offset)
            return a < b
        }.map(\.element)
    }

    func report(_ error: ConfigurationError) {
        errors.append(error)
    }

    /// The value of the variable that overrides a setting, which becomes a known name.
    func variable(_ name: String) -> String? {
        knownVariables.insert(name)
        return environment[name]
    }

    /// The variables whose names start with `prefix`, sorted by name; all of them are known.
    func variables(withPrefix prefix: String) -> [(name: String, value: String)] {
        knownPrefixes.append(prefix)
        return environment.filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Reports every variable that looks like an override but names no setting.
    func reportUnknownVariables() {
        let overridePrefixes = Self.sectionWords.map { "PUSHLINE_\($0)_" }
        for name in environment.keys.sorted()
        where overridePrefixes.contains(where: name.hasPrefix) && !knownVariables.contains(name)
            && !knownPrefixes.contains(where: name.hasPrefix) {
            report(ConfigurationError(.unknownVariable, file: "environment", line: nil, key: name,
                                      "names no setting (see docs/configuration.md for the variables)"))
        }
    }
}
