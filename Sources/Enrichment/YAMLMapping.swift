import YAML

/// Typed reading of one YAML mapping from a configuration file, with errors that name the file,
/// the line and the dotted key. Keys nobody asked for are reported by ``rejectUnknownKeys()``, so
/// a typo is an error at load rather than a silently ignored setting.
struct YAMLMapping {
    let file: String
    let path: String
    let line: Int
    private let members: [(key: String, value: YAMLNode)]
    private var read: Set<String> = []

    init(_ node: YAMLNode, file: String, path: String) throws(CatalogLoadError) {
        guard case .mapping(let members, let line) = node else {
            throw CatalogLoadError(.invalidTemplate, file: file, line: node.line, key: path.isEmpty ? nil : path,
                                   "must be a mapping, got \(node.kindName)")
        }
        self.file = file
        self.path = path
        self.line = line
        self.members = members
    }

    var keys: [String] { members.map(\.key) }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func error(_ key: String, _ node: YAMLNode?, _ reason: String) -> CatalogLoadError {
        CatalogLoadError(.invalidTemplate, file: file, line: node?.line ?? line, key: keyPath(key), reason)
    }

    mutating func node(_ key: String) -> YAMLNode? {
        read.insert(key)
        return members.first { $0.key == key }?.value
    }

    mutating func mapping(_ key: String) throws(CatalogLoadError) -> YAMLMapping? {
        guard let node = node(key) else { return nil }
        return try YAMLMapping(node, file: file, path: keyPath(key))
    }

    mutating func string(_ key: String) throws(CatalogLoadError) -> String? {
        guard let node = node(key) else { return nil }
        guard case .scalar(let text, _) = node else { throw error(key, node, "must be a scalar, got \(node.kindName)") }
        return text
    }

    mutating func text(_ key: String) throws(CatalogLoadError) -> TemplateText? {
        guard let source = try string(key) else { return nil }
        return try compileText(source, key: key, node: node(key))
    }

    func compileText(_ source: String, key: String, node: YAMLNode?) throws(CatalogLoadError) -> TemplateText {
        do {
            return try TemplateText(compiling: source)
        } catch {
            throw self.error(key, node, "\(error.message) (at character \(error.offset))")
        }
    }

    mutating func bool(_ key: String) throws(CatalogLoadError) -> Bool? {
        guard let text = try string(key) else { return nil }
        switch text {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(key, node(key), "must be true or false, got \"\(text)\"")
        }
    }

    mutating func number(_ key: String) throws(CatalogLoadError) -> Double? {
        guard let text = try string(key) else { return nil }
        guard let number = Double(text), number.isFinite else { throw error(key, node(key), "must be a number, got \"\(text)\"") }
        return number
    }

    /// A scalar that must be one of `known`, converted by `convert`.
    mutating func choice<Value>(_ key: String, known: [String], _ convert: (String) -> Value?) throws(CatalogLoadError) -> Value? {
        guard let text = try string(key) else { return nil }
        guard let value = convert(text) else {
            throw error(key, node(key), "\"\(text)\" is not one of \(known.joined(separator: ", "))")
        }
        return value
    }

    func rejectUnknownKeys() throws(CatalogLoadError) {
        if let unknown = members.first(where: { !read.contains($0.key) }) {
            throw error(unknown.key, unknown.value, "unknown key")
        }
    }
}
