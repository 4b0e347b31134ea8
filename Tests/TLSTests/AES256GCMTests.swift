import Foundation
import PushlineTestKit
import TLS
import Testing

/// AES-256-GCM in CryptoKit's combined layout, checked against an independent implementation
/// (python3-cryptography's AESGCM) both ways.
@Suite("AES-256-GCM")
struct AES256GCMTests {
    @Test("what Pushline seals, python's AESGCM opens: nonce ‖ ciphertext ‖ tag")
    func pythonOpensPushlineBoxes() throws {
        let key = try AES256GCM.randomKey()
        let plaintext = Array(#"{"title":"Anna","body":"Ünïcödé 🙂 \"quoted\""}"#.utf8)
        let box = try AES256GCM(key: key).seal(plaintext)
        #expect(box.count == plaintext.count + 12 + 16)
        #expect(try PythonAESGCM.open(box: Base64.encode(box), key: key) == plaintext)
    }

    @Test("what python's AESGCM seals, Pushline opens")
    func pushlineOpensPythonBoxes() throws {
        let key = try AES256GCM.randomKey()
        let plaintext = Array("sealed elsewhere".utf8)
        let box = try #require(Base64.decode(try PythonAESGCM.seal(plaintext, key: key)))
        #expect(try AES256GCM(key: key).open(box) == plaintext)
    }

    @Test("an altered byte, a wrong key or other additional data do not open")
    func tamperingFails() throws {
        let key = try AES256GCM.randomKey()
        let cipher = try AES256GCM(key: key)
        var box = try cipher.seal(Array("x".utf8), authenticating: Array("id".utf8))
        #expect(throws: OpenSSLError.self) { try AES256GCM(key: AES256GCM.randomKey()).open(box, authenticating: Array("id".utf8)) }
        #expect(throws: OpenSSLError.self) { try cipher.open(box, authenticating: Array("other".utf8)) }
        box[13] ^= 1
        #expect(throws: OpenSSLError.self) { try cipher.open(box, authenticating: Array("id".utf8)) }
    }

    @Test("two seals of the same plaintext differ (random nonces) and the key never prints")
    func randomNoncesAndRedaction() throws {
        let cipher = try AES256GCM(key: AES256GCM.randomKey())
        #expect(try cipher.seal([1, 2, 3]).prefix(12) != cipher.seal([1, 2, 3]).prefix(12))
        #expect("\(cipher)" == "<AES-256 key>")
        #expect(throws: OpenSSLError.self) { try AES256GCM(key: [0, 1, 2]) }
    }

    @Test("a thread's kept context serves each key in turn: interleaved keys, nonces and a failed open between them")
    func keptContextTakesEachKey() throws {
        let (first, second) = (try AES256GCM.randomKey(), try AES256GCM.randomKey())
        let nonce = try AES256GCM.randomBytes(AES256GCM.nonceByteCount)
        let plaintext = Array("the same text".utf8)
        let underFirst = try AES256GCM(key: first).seal(plaintext, nonce: nonce)
        let underSecond = try AES256GCM(key: second).seal(plaintext, nonce: nonce)
        #expect(underFirst != underSecond)
        #expect(throws: OpenSSLError.self) { try AES256GCM(key: first).open(underSecond) }
        // After a refused open, the same nonce and key give the same box again, which python opens.
        #expect(try AES256GCM(key: first).seal(plaintext, nonce: nonce) == underFirst)
        #expect(try PythonAESGCM.open(box: Base64.encode(underFirst), key: first) == plaintext)
        #expect(try AES256GCM(key: second).open(underSecond) == plaintext)
        #expect(try AES256GCM(key: first).open(underFirst, authenticating: []) == plaintext)
        #expect(try AES256GCM(key: first).seal([], nonce: nonce).count == AES256GCM.overhead)
    }

    @Test("a context that holds the key takes only the nonce: boxes sealed and opened in a row under one key, each python opens")
    func heldKeyTakesOnlyTheNonce() throws {
        let key = try AES256GCM.randomKey()
        let cipher = try AES256GCM(key: key)
        let (first, second) = (try AES256GCM.randomBytes(AES256GCM.nonceByteCount), try AES256GCM.randomBytes(AES256GCM.nonceByteCount))
        let plaintext = Array("in a row".utf8)
        let underFirst = try cipher.seal(plaintext, nonce: first)
        let underSecond = try cipher.seal(plaintext, nonce: second)
        #expect(underFirst.prefix(12).elementsEqual(first) && underSecond.prefix(12).elementsEqual(second) && underFirst != underSecond)
        #expect(try cipher.open(underSecond) == plaintext && cipher.open(underFirst) == plaintext)
        #expect(try cipher.seal(plaintext, nonce: first) == underFirst, "sealing again after opens under the held key")
        var (lent, drawn): ([UInt8], [UInt8]) = ([], [])
        try cipher.withSealedBox(plaintext, nonce: second[...]) { lent = Array($0) }
        try cipher.withSealedBox(plaintext, nonce: nil) { drawn = Array($0) }
        #expect(lent == underSecond)
        for box in [underFirst, underSecond, drawn] {
            #expect(try PythonAESGCM.open(box: Base64.encode(box), key: key) == plaintext)
        }
        // Unwraps in a row: each its own additional data; a refused one between them.
        let (one, two) = (try cipher.seal(key, authenticating: Array("one".utf8)), try cipher.seal(key, authenticating: Array("two".utf8)))
        #expect(try cipher.open(one, authenticating: Array("one".utf8)) == key)
        #expect(throws: OpenSSLError.self) { try cipher.open(two, authenticating: Array("one".utf8)) }
        #expect(try cipher.open(two, authenticating: Array("two".utf8)) == key)
        #expect(try AES256GCM(key: key.map { $0 }).open(one, authenticating: Array("one".utf8)) == key, "the same key in other bytes")
        #expect(throws: OpenSSLError.self) { try cipher.withSealedBox(plaintext, nonce: first.prefix(8)) { _ in } }
    }

    @Test("threads seal and open at once, each with its own keys")
    func threadsSealAtOnce() async throws {
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var failures = 0
                    for round in 0..<300 {
                        let cipher = try AES256GCM(key: AES256GCM.randomKey())
                        let plaintext = Array("round \(round)".utf8)
                        let box = try cipher.seal(plaintext, authenticating: [UInt8(round & 0xFF)])
                        if try cipher.open(box, authenticating: [UInt8(round & 0xFF)]) != plaintext { failures += 1 }
                    }
                    return failures
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(failures == 0)
    }

    @Test("base64 as Foundation and Python write it, padding included")
    func base64() {
        for count in 0..<8 {
            let bytes = (0..<count).map { UInt8($0 * 37 & 0xFF) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        #expect(Base64.decode("abc") == nil)
        var text = Array("e2e:".utf8)
        Base64.append([0xFB, 0xFF], to: &text)
        #expect(String(decoding: text, as: UTF8.self) == "e2e:+/8=")
    }
}
