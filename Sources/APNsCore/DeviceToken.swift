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
        // Nearly every token is lower-case hex of even length already: one pass over the bytes tells.
        if !hex.isEmpty, hex.utf8.count % 2 == 0, hex.allUTF8Bytes(satisfy: Self.isLowerCaseHexDigit) {
            self.hex = hex
            return
        }
        if let violation = Self.violation(hex) { throw violation }
        // Violation-free means ASCII hex; most tokens are lower case already, so skip the copy.
        let isLowerCase = hex.allUTF8Bytes { !(UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }
        self.hex = isLowerCase ? hex : hex.lowercased()
    }

    /// The rule behind the token, shared with the validator.
    static func violation(_ hex: String) -> Violation? {
        if hex.isEmpty { return Violation(.missingDeviceToken, "device token is empty") }
        // Bytes first: Unicode property look-ups are slow, and the simulator checks every request.
        if !hex.allUTF8Bytes(satisfy: isHexDigit), let bad = hex.unicodeScalars.first(where: { !$0.properties.isASCIIHexDigit }) {
            return Violation(.badDeviceToken, "device token has a non-hexadecimal character '\(bad.escaped(asASCII: true))'")
        }
        if hex.utf8.count % 2 != 0 {
            return Violation(.badDeviceToken, "device token has an odd number of hex digits (\(hex.utf8.count))")
        }
        return nil
    }

    private static func isLowerCaseHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): true
        default: false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
