import CLI
import COpenSSL
import Digests
import Foundation
import Runtime

/// `pushline-dev bench digest`: SHA-1 of `apns-id`-shaped names (every delivery hashes one) with
/// Digests' two compressions and with OpenSSL's one-shot `EVP_Digest`, the reference, in one run.
enum BenchDigestCommand: Command {
    static let name = "bench digest"
    static let summary = "measure SHA-1 digests per second: Digests (Swift, SHA extensions) vs OpenSSL"
    static let help = """
        Usage: pushline-dev bench digest [--seconds N]

        Digests 1,000 distinct names shaped like a delivery's apns-id input (the name-space's 16
        bytes, an intent id, a zero byte, a device token's 64 hex digits: about 100 bytes, two
        blocks) on one thread, three ways in alternating rounds: Digests' portable Swift
        compression, its compression on the CPU's SHA extensions (when it has them), and OpenSSL's
        one-shot EVP_Digest with SHA-1 (OpenSSL's own SHA-1 uses the extensions too; its figure
        includes a context and a fetch per call). Checks that all three agree first, then prints
        nanoseconds per digest for each and OpenSSL's time over Digests' fastest.

        Options:
          --seconds N   measuring time per way, split over 10 rounds (default: 3)
          -h, --help    show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--seconds"])

    private static let rounds = 10

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let seconds = try arguments.optionalInteger("--seconds") ?? 3
        guard seconds > 0 else { throw UsageError(message: "--seconds must be positive") }
        let names = (0..<1000).map { index in
            Array(repeating: UInt8(0x5A), count: 16) + Array("bench-intent-\(index)".utf8) + [0]
                + Array(String(repeating: String(index, radix: 16), count: 64).prefix(64).utf8)
        }
        // Each way digests name `run % names.count`.
        var ways: [(label: String, digest: (Int) -> Words)] = [
            ("Digests, portable Swift", { digest(names[$0 % names.count], .portable) }),
        ]
        if SHA1.fastestCompression == .extensions {
            ways.append(("Digests, SHA extensions", { digest(names[$0 % names.count], .extensions) }))
        }
        ways.append(("OpenSSL EVP_Digest", { openSSLDigest(names[$0 % names.count]) }))
        for index in names.indices where Set(ways.map { way in withUnsafeBytes(of: way.digest(index)) { Array($0) } }).count != 1 {
            print("bench digest: the ways disagree on \(names[index]); not measuring")
            return 1
        }
        let totals = try AlternatingRounds.measure(rounds: rounds, perWay: .seconds(seconds), ways.map(\.digest))
        let nanoseconds = totals.map(\.nanosecondsPerRun)
        print("bench digest: SHA-1 of \(names.count) apns-id-shaped names (~\(names[500].count) bytes), 1 thread, \(rounds) alternating rounds, \(seconds) s per way")
        for (index, way) in ways.enumerated() {
            print("  \(way.label.padding(toLength: 26, withPad: " ", startingAt: 0)) \(String(format: "%6.1f", nanoseconds[index])) ns per digest")
        }
        print("  ratio, OpenSSL's time over Digests' fastest: \(String(format: "%.2f", nanoseconds[ways.count - 1] / nanoseconds[ways.count - 2]))×")
        return 0
    }

    /// A digest as five big-endian words, as the worker takes an `apns-id`'s: no array per digest.
    private typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32)

    private static func digest(_ name: [UInt8], _ compression: SHA1.Compression) -> Words {
        var hasher = SHA1(compression: compression)
        hasher.update(name)
        return hasher.finalizeWords()
    }

    private static func openSSLDigest(_ name: [UInt8]) -> Words {
        var digest: Words = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digest) { bytes in
            var length: UInt32 = 0
            _ = EVP_Digest(name, name.count, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, EVP_sha1(), nil)
        }
        return (UInt32(bigEndian: digest.0), UInt32(bigEndian: digest.1), UInt32(bigEndian: digest.2),
                UInt32(bigEndian: digest.3), UInt32(bigEndian: digest.4))
    }
}
