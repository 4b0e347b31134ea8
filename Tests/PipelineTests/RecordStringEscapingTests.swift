import APNsCore
import Foundation
import Testing

/// The strings of outcome records (and payloads) go through `JSONWriter.appendString`, which scans
/// eight bytes at a time for what must be escaped: every character that needs escaping is found
/// wherever it sits in a word or in the tail, strings that need none are copied as they are, and
/// the text always parses back to the same string.
@Suite("Record strings: escaping found at every position")
struct RecordStringEscapingTests {
    /// The escape the writer owes each byte, spelled out byte by byte as RFC 8259 asks.
    private static func reference(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): bytes += Array(#"\\"#.utf8)
            case 0x0A: bytes += Array(#"\n"#.utf8)
            case 0x0D: bytes += Array(#"\r"#.utf8)
            case 0x09: bytes += Array(#"\t"#.utf8)
            case 0x00..<0x20: bytes += Array(String(format: "\\u%04x", byte).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return bytes
    }

    private static func written(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.appendString(string, to: &bytes)
        return bytes
    }

    @Test("each special character at each position of strings of 1 to 40 bytes")
    func everyPosition() throws {
        let specials: [Character] = ["\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", " ", "é", "💬"]
        for length in 1...40 {
            for position in 0..<length {
                for special in specials {
                    var characters = Array(repeating: Character("a"), count: length)
                    characters[position] = special
                    let string = String(characters)
                    let bytes = Self.written(string)
                    #expect(bytes == Self.reference(string), "\(length) bytes, \(special.debugDescription) at \(position)")
                    let parsed = try JSONParser.parse(bytes)
                    #expect(parsed == .string(string))
                }
            }
        }
    }

    @Test("the bytes next to the special ones (0x1F/0x20, 0x21/0x22/0x23, 0x5B/0x5C/0x5D, 0x80 and up) are told apart")
    func neighbours() throws {
        let plain = "abcdefghijklmnopqrstuvwxyz0123456789"
        for byte in UInt8(0x00)...UInt8(0x7F) {
            let string = plain + String(UnicodeScalar(byte)) + plain
            #expect(Self.written(string) == Self.reference(string), "byte \(byte)")
        }
        let token = String(repeating: "0123456789abcdef", count: 4)
        #expect(Self.written(token) == Array(("\"" + token + "\"").utf8), "a 64-character token is copied as it is")
        let nonASCII = "Grüße aus Zürich — 温泉へ行こう 🧗 ÿ"
        #expect(Self.written(nonASCII) == Array(("\"" + nonASCII + "\"").utf8), "UTF-8 above 0x7F is written raw")
    }
}
