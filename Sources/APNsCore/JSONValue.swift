/// A JSON value, used for the parts of a payload whose shape belongs to the app (custom keys,
/// Live Activity `content-state` and `attributes`) and for reading payloads back in the validator.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number. Must be finite to be written.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The value as a number, whether it was written as an integer or not.
    public var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { value } else { nil }
    }

    /// The JSON type's name, for error details ("string", "number", …).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON object that keeps its members in order and keeps repeated keys, so that a validator can
/// see exactly what was sent.
public struct JSONObject: Sendable, Equatable {
    /// One `"key": value` pair.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue

        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public var members: [Member]

    public init(_ members: [Member] = []) {
        self.members = members
    }

    /// The first member's value with this key.
    public subscript(key: String) -> JSONValue? {
        // By index, so that only the value is copied, not each member passed.
        guard let index = members.firstIndex(where: { $0.key == key }) else { return nil }
        return members[index].value
    }

    /// Keys that appear more than once, each reported once, in order of first repetition.
    public var repeatedKeys: [String] {
        // Payload objects are small: comparing pairs is cheaper than hashing into a set.
        if members.count <= 16 {
            var repeated: [String] = []
            for (index, member) in members.enumerated() where !repeated.contains(member.key) {
                if members[..<index].contains(where: { $0.key == member.key }) { repeated.append(member.key) }
            }
            return repeated
        }
        var seen = Set<String>()
        var repeated: [String] = []
        for member in members where !seen.insert(member.key).inserted && !repeated.contains(member.key) {
            repeated.append(member.key)
        }
        return repeated
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { Member($0.0, $0.1) })
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}
