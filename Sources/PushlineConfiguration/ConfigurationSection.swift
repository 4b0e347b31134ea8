import Foundation
import YAML

/// One mapping of a configuration file, read into typed settings. Every setting is looked up first
/// in the environment (`PUSHLINE_` + the dotted key in capitals, `.` and `-` spelled `_`, list
/// items by index), then in the file. Problems are reported to the load's diagnostics with the
/// file, line and key, and reading goes on, so one load reports them all.
struct ConfigurationSection {
    /// Where a value came from: its line (or the line of the nearest mapping the file has) and the
    /// variable when the environment supplied it.
    struct Origin {
        let line: Int
        let variable: String?
    }

    let file: String
    let keyPath: String
    /// Settings are overridden by `<variablePrefix>_<KEY>` variables.
    var variablePrefix: String
    let line: Int
    let diagnostics: ConfigurationDiagnostics
    /// Relative paths in the file are relative to the file's folder.
    private let directory: String
    private let members: [(key: String, value: YAMLNode)]
    private var read: Set<String> = []

    /// The top mapping of `file`, its settings overridden by `PUSHLINE_…` variables.
    init(root: YAMLNode, file: String, diagnostics: ConfigurationDiagnostics) {
        self.init(root, file: file, keyPath: "", variablePrefix: "PUSHLINE", parentLine: 1, diagnostics: diagnostics)
    }

    private init(_ node: YAMLNode?, file: String, keyPath: String, variablePrefix: String, parentLine: Int,
                 diagnostics: ConfigurationDiagnostics) {
        self.file = file
        self.directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        self.keyPath = keyPath
        self.variablePrefix = variablePrefix
        self.diagnostics = diagnostics
        switch node {
        case .mapping(let members, let line)?:
            self.members = members
            self.line = line
        case let empty? where Self.isEmpty(empty):
            self.members = []
            self.line = empty.line
        case let other?:
            self.members = []
            self.line = other.line
            diagnostics.report(ConfigurationError(.wrongType, file: file, line: other.line, key: keyPath.isEmpty ? "(top)" : keyPath,
                                                  "must be a mapping, got \(other.kindName)"))
        case nil:
            self.members = []
            self.line = parentLine
        }
    }

    /// A key with nothing after it (or `~`, `null`), as when every line under it is commented out.
    private static func isEmpty(_ node: YAMLNode) -> Bool {
        if case .scalar(let text, _) = node { ["", "~", "null"].contains(text) } else { false }
    }

    /// The dotted key of a member: `redis.port`.
    func key(_ name: String) -> String { keyPath.isEmpty ? name : "\(keyPath).\(name)" }

    /// The variable that overrides a member: `PUSHLINE_REDIS_PORT`.
    func variableName(_ name: String) -> String {
        "\(variablePrefix)_\(Self.variableWord(name))"
    }

    /// `max_connections` → `MAX_CONNECTIONS`; `pushline-eu` → `PUSHLINE_EU`.
    static func variableWord(_ name: String) -> String {
        String(name.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    func report(_ code: ConfigurationError.Code, _ name: String, at origin: Origin, _ message: String) {
        diagnostics.report(ConfigurationError(code, file: file, line: origin.line, key: key(name), message, variable: origin.variable))
    }

    private mutating func member(_ name: String) -> YAMLNode? {
        read.insert(name)
        return members.first { $0.key == name }?.value
    }

    /// Where `name` is set: its variable when the environment sets it, its line in the file, else
    /// this mapping's line.
    func origin(_ name: String) -> Origin {
        let variable = variableName(name)
        return Origin(line: members.first { $0.key == name }?.value.line ?? line,
                      variable: diagnostics.environment[variable] == nil ? nil : variable)
    }

    /// Whether the file or the environment sets `name`.
    mutating func isSet(_ name: String) -> Bool {
        member(name) != nil || diagnostics.variable(variableName(name)) != nil
    }

    /// The text of a scalar setting, from the environment or else the file. Text that looks like
    /// key material is refused without being repeated.
    mutating func scalar(_ name: String) -> (text: String, origin: Origin)? {
        let node = member(name)
        let variable = variableName(name)
        let found: (text: String, origin: Origin)
        if let text = diagnostics.variable(variable) {
            found = (text, Origin(line: node?.line ?? line, variable: variable))
        } else if let node {
            guard case .scalar(let text, let line) = node else {
                report(.wrongType, name, at: Origin(line: node.line, variable: nil), "must be a scalar, got \(node.kindName)")
                return nil
            }
            found = (text, Origin(line: line, variable: nil))
        } else {
            return nil
        }
        guard !Self.looksLikeKeyMaterial(found.text) else {
            report(.inlineSecret, name, at: found.origin,
                   "looks like key material, which is read only from the key files and variables made for it")
            return nil
        }
        return found
    }

    static func looksLikeKeyMaterial(_ text: String) -> Bool {
        text.contains("-----BEGIN") || text.contains("PRIVATE KEY")
    }

    /// A scalar setting converted by `type`; nil when it is not set or is wrong (which is reported).
    mutating func value<Value>(_ name: String, _ type: ConfigurationValueType<Value>) -> Value? {
        guard let (text, origin) = scalar(name) else { return nil }
        return convert(text, name, at: origin, type)
    }

    /// Like ``value(_:_:)``, and reports a missing setting.
    mutating func required<Value>(_ name: String, _ type: ConfigurationValueType<Value>) -> Value? {
        requirePresence(name) ? value(name, type) : nil
    }

    /// Whether `name` is set; reports it missing when it is not.
    mutating func requirePresence(_ name: String) -> Bool {
        guard isSet(name) else {
            report(.missingKey, name, at: Origin(line: line, variable: nil), "is required")
            return false
        }
        return true
    }

    private func convert<Value>(_ text: String, _ name: String, at origin: Origin, _ type: ConfigurationValueType<Value>) -> Value? {
        do {
            return try type.convert(text)
        } catch {
            switch error {
            case .wrongType: report(.wrongType, name, at: origin, "must be \(type.expectation), got \"\(text)\"")
            case .outOfRange: report(.outOfRange, name, at: origin, "\(text) is out of range: must be \(type.expectation)")
            }
            return nil
        }
    }

    /// A list: a YAML sequence of scalars, a comma-separated scalar, or a comma-separated variable.
    mutating func list<Value>(_ name: String, _ type: ConfigurationValueType<Value>) -> [Value]? {
        let items: [(text: String, origin: Origin)]
        if case .sequence(let elements, let sequenceLine)? = member(name), diagnostics.variable(variableName(name)) == nil {
            items = elements.compactMap { element in
                guard case .scalar(let text, let line) = element else {
                    report(.wrongType, name, at: Origin(line: element.line, variable: nil),
                           "items must be scalars, got \(element.kindName)")
                    return nil
                }
                return (text, Origin(line: line, variable: nil))
            }
            if items.isEmpty { report(.wrongType, name, at: Origin(line: sequenceLine, variable: nil), "must not be empty") }
        } else {
            guard let (text, origin) = scalar(name) else { return nil }
            items = text.split(separator: ",").map { (String($0).trimmingCharacters(in: .whitespaces), origin) }
            if items.isEmpty { report(.wrongType, name, at: origin, "must not be empty") }
        }
        let values = items.compactMap { convert($0.text, name, at: $0.origin, type) }
        return values.count == items.count && !values.isEmpty ? values : nil
    }

    /// The path a setting names, resolved against the file's folder (or, from the environment,
    /// against the working directory), which must exist as a readable file.
    mutating func existingFile(_ name: String) -> String? {
        existingPath(name, directory: false)
    }

    /// Like ``existingFile(_:)``, for a folder.
    mutating func existingDirectory(_ name: String) -> String? {
        existingPath(name, directory: true)
    }

    private mutating func existingPath(_ name: String, directory wantsDirectory: Bool) -> String? {
        guard let (text, origin) = scalar(name) else { return nil }
        guard !text.isEmpty else {
            report(.wrongType, name, at: origin, "must be a path, got an empty string")
            return nil
        }
        let path = origin.variable == nil ? resolve(text) : text
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let kind = wantsDirectory ? "folder" : "file"
        if !exists {
            report(.missingFile, name, at: origin, "no such \(kind) \"\(path)\"")
        } else if isDirectory.boolValue != wantsDirectory {
            report(.missingFile, name, at: origin, "\"\(path)\" is not a \(kind)")
        } else if !FileManager.default.isReadableFile(atPath: path) {
            report(.missingFile, name, at: origin, "\"\(path)\" cannot be read")
        } else {
            return path
        }
        return nil
    }

    /// `path` relative to the file's folder, unless it is absolute.
    func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory, isDirectory: true))
            .standardizedFileURL.path
    }

    /// A secret may only come from the environment: a member `name` in the file is an error that
    /// says what to use instead and never repeats the value. Returns the variable's value.
    mutating func secretFromEnvironment(_ name: String, instead: String) -> Secret? {
        refuseInline(name, instead: "\(instead) or \(variableName(name))")
        return diagnostics.variable(variableName(name)).map(Secret.init)
    }

    /// Key material may not be written in the file: a member `name` is an error that says what to
    /// use instead and never repeats the value.
    @discardableResult
    mutating func refuseInline(_ name: String, instead: String) -> Bool {
        guard let node = member(name) else { return false }
        report(.inlineSecret, name, at: Origin(line: node.line, variable: nil),
               "secrets and key material are not read from configuration files; use \(instead)")
        return true
    }

    /// A nested mapping; when the file has none, an empty one whose settings can still come from
    /// the environment.
    mutating func section(_ name: String) -> ConfigurationSection {
        ConfigurationSection(member(name), file: file, keyPath: key(name), variablePrefix: variableName(name),
                             parentLine: line, diagnostics: diagnostics)
    }

    /// A sequence of mappings, item `i` overridden by `…_<NAME>_<i>_…` variables.
    mutating func sequence(_ name: String) -> [ConfigurationSection] {
        guard let node = member(name), !Self.isEmpty(node) else { return [] }
        guard case .sequence(let elements, _) = node else {
            report(.wrongType, name, at: Origin(line: node.line, variable: nil), "must be a sequence, got \(node.kindName)")
            return []
        }
        return elements.enumerated().map { index, element in
            ConfigurationSection(element, file: file, keyPath: "\(key(name))[\(index)]", variablePrefix: "\(variableName(name))_\(index)",
                                 parentLine: element.line, diagnostics: diagnostics)
        }
    }

    /// A mapping of names to mappings, each overridden by `…_<NAME>_<ENTRY>_…` variables.
    mutating func namedSections(_ name: String) -> [(name: String, section: ConfigurationSection)] {
        var named = section(name)
        var sections: [(name: String, section: ConfigurationSection)] = []
        for entry in named.members {
            guard (try? ConfigurationValueType.name.convert(entry.key)) != nil else {
                named.report(.invalidValue, entry.key, at: Origin(line: entry.value.line, variable: nil),
                             "a name may hold only letters, digits, \"-\" and \"_\"")
                continue
            }
            sections.append((entry.key, named.section(entry.key)))
        }
        return sections
    }

    /// A mapping of names to scalars, such as librdkafka properties. Variables `…_<NAME>_<ENTRY>`
    /// add or replace entries; their entry names are lower-cased with `_` read as `.`
    /// (`PUSHLINE_KAFKA_PROPERTIES_SOCKET_TIMEOUT_MS` → `socket.timeout.ms`). Values are not
    /// checked here: the caller decides which may hold secrets.
    mutating func dictionary(_ name: String) -> [(name: String, value: String, origin: Origin)] {
        let nested = section(name)
        var entries: [(name: String, value: String, origin: Origin)] = []
        for member in nested.members {
            guard case .scalar(let text, let line) = member.value else {
                nested.report(.wrongType, member.key, at: Origin(line: member.value.line, variable: nil),
                              "must be a scalar, got \(member.value.kindName)")
                continue
            }
            entries.append((member.key, text, Origin(line: line, variable: nil)))
        }
        let prefix = nested.variablePrefix + "_"
        for (variable, value) in diagnostics.variables(withPrefix: prefix) {
            let entryName = String(variable.dropFirst(prefix.count)).lowercased().replacingOccurrences(of: "_", with: ".")
            let line = entries.first { $0.name == entryName }?.origin.line ?? nested.line
            entries.removeAll { $0.name == entryName }
            entries.append((entryName, value, Origin(line: line, variable: variable)))
        }
        return entries
    }

    /// A setting that only the file can give, because it names the variables of the others (a
    /// pipeline's `name`).
    mutating func fileOnlyValue<Value>(_ name: String, _ type: ConfigurationValueType<Value>) -> Value? {
        guard let node = member(name) else { return nil }
        guard case .scalar(let text, let line) = node else {
            report(.wrongType, name, at: Origin(line: node.line, variable: nil), "must be a scalar, got \(node.kindName)")
            return nil
        }
        return convert(text, name, at: Origin(line: line, variable: nil), type)
    }

    /// Reports every member that no setting asked for, naming the ones it knows.
    func finish() {
        let known = read.sorted().joined(separator: ", ")
        for member in members where !read.contains(member.key) {
            report(.unknownKey, member.key, at: Origin(line: member.value.line, variable: nil),
                   known.isEmpty ? "unknown key" : "unknown key (known keys: \(known))")
        }
    }
}
