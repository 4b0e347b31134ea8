import APNsCore
import Testing

/// RFC 4648 §5 base64url without padding, the encoding of JWT segments.
@Suite("Base64URL")
struct Base64URLTests {
    /// RFC 4648 §10, with the padding removed.
    static let rfcVectors: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ]

    @Test("encodes the RFC 4648 vectors without padding", arguments: rfcVectors)
    func encodesVectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
    }

    @Test("decodes the RFC 4648 vectors without padding", arguments: rfcVectors)
    func decodesVectors(plain: String, encoded: String) {
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("uses '-' and '_' where standard base64 has '+' and '/'")
    func urlAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode([0xFB, 0xEF, 0xBE]) == "----")
        #expect(Base64URL.encode([0xFF, 0xFF, 0xFF]) == "____")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    @Test("every byte value round-trips")
    func everyByteRoundTrips() {
        let bytes = (0...255).map(UInt8.init)
        for length in [bytes.count, bytes.count - 1, bytes.count - 2] {
            let slice = Array(bytes.prefix(length))
            #expect(Base64URL.decode(Base64URL.encode(slice)) == slice)
        }
    }

    @Test("decoding rejects characters outside the URL alphabet, padding included", arguments: [
        "+/8", "Zm9v+", "Zm/v", "Zg==", "Zm8=", "Zm9v!", "Zm 9v", "Zm9v\n", "Zé", "Zm9\u{0}",
    ])
    func rejectsBadCharacters(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("decoding rejects a length no encoder produces", arguments: ["Z", "Zm9vY", "Zm9vYmFyZ"])
    func rejectsImpossibleLength(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
