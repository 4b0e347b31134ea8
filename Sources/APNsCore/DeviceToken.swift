/// A device token: hexadecimal bytes, normalised to lower case.
///
/// Apple says never to assume a token's size, so any non-empty, even-length hex string is accepted;
/// only the simulator's device registry knows which tokens exist.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible {
    /// The token in lower-case hex, as it goes into `/3/device/<token>`.
    public let hex: String

    /// The last eight characters, for logs and errors that must not carry the whole token.
    public var redacted: String { "…" + String(hex.suffix(8)) }

    public var description: String { hex }

    /// Accepts hex of any even length; throws a ``Violation`` naming what is wrong otherwise.
    public init(_ hex: String) throws(Violation) {
        if let violation = Self.violation(hex) { throw violation }
        self.hex = Self.anyByte(of: hex, { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }) ? hex.lowercased() : hex
    }

    /// The rule behind the token, shared with the validator.
    static func violation(_ hex: String) -> Violation? {
        if hex.isEmpty { return Violation(.missingDeviceToken, "device token is empty") }
        // Bytes first: Unicode property look-ups are slow, and the simulator checks every request.
        if anyByte(of: hex, { !isHexDigit($0) }), let bad = hex.unicodeScalars.first(where: { !$0.properties.isASCIIHexDigit }) {
            return Violation(.badDeviceToken, "device token has a non-hexadecimal character '\(bad.escaped(asASCII: true))'")
        }
        if hex.utf8.count % 2 != 0 {
            return Violation(.badDeviceToken, "device token has an odd number of hex digits (\(hex.utf8.count))")
        }
        return nil
    }

    /// Whether any UTF-8 byte of `text` matches, read from its contiguous storage: every intent's
    /// tokens pass through here, and iterating `String.UTF8View` byte by byte costs several times more.
    private static func anyByte(of text: String, _ matches: (UInt8) -> Bool) -> Bool {
        var contiguous = text
        return contiguous.withUTF8 { $0.contains(where: matches) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
