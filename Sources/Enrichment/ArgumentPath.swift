import APNsCore

/// A dotted argument name (`chat.title`): the path to a value inside an intent's `args`.
struct ArgumentPath: Sendable, Hashable, CustomStringConvertible {
    let components: [String]

    /// Nil unless every component is non-empty letters, digits, `_` or `-`.
    init?(_ name: String) {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let valid = parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
            }
        }
        guard valid else { return nil }
        components = parts
    }

    var description: String { components.joined(separator: ".") }

    /// The value at this path; nil when absent or `null`.
    func value(in args: JSONObject) -> JSONValue? {
        // Every placeholder of every intent comes here: the members are searched where they lie,
        // and only the value found is copied.
        args.members.withUnsafeBufferPointer { value(in: $0, depth: 0) }
    }

    private func value(in members: UnsafeBufferPointer<JSONObject.Member>, depth: Int) -> JSONValue? {
        guard let index = members.firstIndex(where: { $0.key == components[depth] }) else { return nil }
        guard depth < components.count - 1 else {
            if case .null = members[index].value { return nil }
            return members[index].value
        }
        guard case .object(let inner) = members[index].value else { return nil }
        return inner.members.withUnsafeBufferPointer { value(in: $0, depth: depth + 1) }
    }

    /// Whether a section on this path shows: the value is present and not `false`, `0`, `""` or `[]`.
    func isShown(in args: JSONObject) -> Bool {
        switch value(in: args) {
        case nil, .bool(false)?, .integer(0)?, .double(0)?, .string("")?: false
        case .array(let elements)?: !elements.isEmpty
        default: true
        }
    }

    /// The value as text, as a placeholder shows it.
    func text(in args: JSONObject) throws(EnrichmentError) -> String {
        switch value(in: args) {
        case .string(let text)?: return text
        case .integer(let number)?: return String(number)
        case .double(let number)?: return number.description
        case .bool(let flag)?: return flag ? "true" : "false"
        case nil: throw EnrichmentError(.missingArgument, "args.\(self) is missing; guard optional parts with {{#\(self)}}…{{/\(self)}}")
        case let value?: throw EnrichmentError(.argumentNotText, "args.\(self) is \(value.typeName == "array" ? "an array" : "an object"), not text")
        }
    }
}
