#if canImport(Glibc)
import Glibc
#endif

/// How one scalar setting is read from text (the same for a YAML value and an environment
/// variable): what it must be, in words for the error message, and the conversion.
struct ConfigurationValueType<Value> {
    /// "an integer from 1 to 65535", completing "must be …".
    let expectation: String
    let convert: (String) throws(ConfigurationValueRejection) -> Value

    /// One of the raw values of `Value`'s cases, in their order.
    static func choice() -> ConfigurationValueType<Value> where Value: CaseIterable & RawRepresentable<String> {
        let words = Value.allCases.map(\.rawValue).joined(separator: ", ")
        return ConfigurationValueType(expectation: "one of \(words)") { text throws(ConfigurationValueRejection) in
            guard let value = Value(rawValue: text) else { throw .wrongType }
            return value
        }
    }
}

extension ConfigurationValueType<String> {
    /// Any non-empty text.
    static var text: ConfigurationValueType {
        ConfigurationValueType(expectation: "a non-empty string") { text throws(ConfigurationValueRejection) in
            guard !text.isEmpty else { throw .wrongType }
            return text
        }
    }

    /// A name that can also be spelled in an environment variable: letters, digits, `-` and `_`.
    static var name: ConfigurationValueType {
        ConfigurationValueType(expectation: "a name of letters, digits, \"-\" and \"_\"") { text throws(ConfigurationValueRejection) in
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw .wrongType
            }
            return text
        }
    }

    /// An IPv4 or IPv6 address literal (`127.0.0.1`, `0.0.0.0`, `::1`, `::`), not a host name:
    /// an address to bind, which nothing resolves.
    static var ipAddress: ConfigurationValueType {
        ConfigurationValueType(expectation: "an IPv4 or IPv6 address such as 0.0.0.0, 127.0.0.1, :: or ::1") {
            text throws(ConfigurationValueRejection) in
            var address = in6_addr()
            guard inet_pton(AF_INET, text, &address) == 1 || inet_pton(AF_INET6, text, &address) == 1 else { throw .wrongType }
            return text
        }
    }

    /// A Kafka topic name: 1 to 249 of letters, digits, `.`, `_` and `-`.
    static var topic: ConfigurationValueType {
        let expectation = "a Kafka topic name (letters, digits, \".\", \"_\", \"-\")"
        return ConfigurationValueType(expectation: expectation) { text throws(ConfigurationValueRejection) in
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
                throw .wrongType
            }
            guard text.count <= 249 else { throw .outOfRange }
            return text
        }
    }

}

extension ConfigurationValueType<Int> {
    /// A whole number within `range`.
    static func integer(_ range: ClosedRange<Int>) -> ConfigurationValueType {
        let bounds = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
        return ConfigurationValueType(expectation: "an integer \(bounds)") { text throws(ConfigurationValueRejection) in
            guard let number = Int(text) else { throw .wrongType }
            guard range.contains(number) else { throw .outOfRange }
            return number
        }
    }

}

extension ConfigurationValueType<Duration> {
    /// A duration written with a unit (`250ms`, `30s`, `5m`, `24h`, `7d`) within `range`.
    static func duration(_ range: ClosedRange<Duration>) -> ConfigurationValueType {
        let bounds = "from \(DurationText.format(range.lowerBound)) to \(DurationText.format(range.upperBound))"
        return ConfigurationValueType(expectation: "a duration such as 250ms, 30s, 5m, 24h or 7d, \(bounds)") {
            text throws(ConfigurationValueRejection) in
            guard let duration = DurationText.parse(text) else { throw .wrongType }
            guard range.contains(duration) else { throw .outOfRange }
            return duration
        }
    }

}

extension ConfigurationValueType<Bool> {
    /// `true` or `false`.
    static var boolean: ConfigurationValueType {
        ConfigurationValueType(expectation: "true or false") { text throws(ConfigurationValueRejection) in
            switch text {
            case "true": true
            case "false": false
            default: throw .wrongType
            }
        }
    }
}

extension ConfigurationValueType<HostAndPort> {
    /// `host:port`, the port from 1 to 65535 (IPv6 hosts in brackets: `[::1]:9092`).
    static var hostAndPort: ConfigurationValueType {
        ConfigurationValueType(expectation: "host:port") { text throws(ConfigurationValueRejection) in
            guard let colon = text.lastIndex(of: ":"), colon != text.startIndex else { throw .wrongType }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, !host.contains(where: \.isWhitespace), let port = Int(text[text.index(after: colon)...]) else {
                throw .wrongType
            }
            guard let valid = UInt16(exactly: port), valid > 0 else { throw .outOfRange }
            return HostAndPort(host: host, port: valid)
        }
    }
}

extension ConfigurationValueType<String> {
    /// An Apple key id or team id: 10 letters and digits.
    static var appleIdentifier: ConfigurationValueType {
        ConfigurationValueType(expectation: "10 letters and digits") { text throws(ConfigurationValueRejection) in
            guard text.count == 10, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { throw .wrongType }
            return text
        }
    }
}

/// Why a text is not a value of a ``ConfigurationValueType``.
enum ConfigurationValueRejection: Error {
    case wrongType
    case outOfRange
}
