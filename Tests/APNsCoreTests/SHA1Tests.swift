import Digests
import PushlineTestKit
import Testing

/// The SHA-1 that name-based ids and Redis script names rest on (FIPS 180-4 test vectors).
@Suite("SHA1")
struct SHA1Tests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test("digests match the published vectors, across block boundaries", arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "a49b2446a02c645bf419f995b67091253a04a259"),
    ])
    func publishedVectors(message: String, digest: String) {
        #expect(Self.hex(SHA1.digest(Array(message.utf8))) == digest)
    }

    @Test("a message fed in pieces digests like the message whole, wherever it is cut",
          arguments: [0, 1, 55, 56, 63, 64, 65, 119, 128])
    func piecesDigestLikeTheWhole(cut: Int) {
        let message = (0..<150).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hasher = SHA1()
        hasher.update(message[..<cut])
        hasher.update(message[cut])
        hasher.update(message[(cut + 1)...].lazy.map { $0 })
        #expect(hasher.finalize() == SHA1.digest(message))
    }

    @Test("the SHA extensions are chosen exactly where the kernel lists sha_ni, ssse3 and sse4_1 in /proc/cpuinfo")
    func extensionsWhereTheKernelListsThem() throws {
        #expect(SHA1.fastestCompression == (try CPUFlags.listSHAExtensions() ? .extensions : .portable))
    }

    @Test("the SHA extensions digest every message of 0 to 300 random bytes, fed whole or byte by byte, like the portable compression",
          .enabled(if: SHA1.fastestCompression == .extensions, "this CPU has no SHA extensions: only the portable compression runs here"))
    func extensionsMatchPortable() {
        var random = SystemRandomNumberGenerator()
        for length in 0...300 {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            var portable = SHA1(compression: .portable)
            portable.update(message)
            var whole = SHA1(compression: .extensions)
            whole.update(message)
            var bytewise = SHA1(compression: .extensions)
            for byte in message { bytewise.update(byte) }
            let expected = portable.finalize()
            #expect(whole.finalize() == expected && bytewise.finalize() == expected, "\(length) bytes: \(message)")
        }
    }

    /// Digests from Python's hashlib of `(i * 7 + 3) % 256` for i below the length: last blocks
    /// filled to where the padding's 1 bit and length fit exactly, or spill into a block of their own.
    @Test("both compressions give the reference digests where the padding changes shape (55, 57, 63, 64 and 119 bytes)",
          arguments: [(55, "ddf57317ef34bfee3b6df83d359098930eb278bc"), (57, "11a02dcf95859677a62e75024067c22b165d890f"),
                      (63, "c55856749bef509bdfe6bfebfc7bf4e793e82132"), (64, "bede92be29c3874e1b54ddc77988d606fc857a8e"),
                      (119, "504e27376a6e0f0dba8295b85cb25dc4dfa17d23")])
    func paddingEdges(length: Int, digest: String) {
        let message = (0..<length).map { UInt8(($0 * 7 + 3) % 256) }
        for compression in Set([SHA1.Compression.portable, SHA1.fastestCompression]) {
            var hasher = SHA1(compression: compression)
            hasher.update(message)
            #expect(Self.hex(hasher.finalize()) == digest, "\(compression)")
        }
    }

    @Test("the published vectors hold with the portable compression too", arguments: [
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func portableVectors(message: String, digest: String) {
        var hasher = SHA1(compression: .portable)
        hasher.update(Array(message.utf8))
        #expect(Self.hex(hasher.finalize()) == digest)
    }

    @Test("a million 'a's digest to the published vector")
    func millionAs() {
        let digest = SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(Self.hex(digest) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }
}
