import Foundation
import PushlineTestKit
import TLS
import Testing

@Suite("ES256 verifying key")
struct ES256VerifyingKeyTests {
    private let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJERVZURUFNMDAxIn0".utf8)

    private func devSigningKey() throws -> ES256SigningKey {
        try ES256SigningKey(pem: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
    }

    private func devPublicKey() throws -> ES256VerifyingKey {
        try ES256VerifyingKey(pem: String(contentsOfFile: DevCredentials.publicKeyFile, encoding: .utf8))
    }

    @Test("a raw r‖s signature verifies under the public PEM")
    func rawSignatureVerifies() throws {
        let signature = try devSigningKey().sign(message)
        #expect(try devPublicKey().verify(message: message, signature: signature))
    }

    @Test("the same signature in DER verifies too")
    func derSignatureVerifies() throws {
        let raw = try devSigningKey().sign(message)
        let der = OpenSSLCommandLine.derSignature(r: Array(raw[0..<32]), s: Array(raw[32..<64]))
        #expect(try devPublicKey().verify(message: message, signature: der))
    }

    @Test("a DER signature made by the openssl tool verifies")
    func opensslToolSignatureVerifies() throws {
        let openssl = try ExternalCommand.locate("openssl", package: "openssl")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-message-\(UUID().uuidString)")
        let signatureFile = file.appendingPathExtension("sig")
        try Data(message).write(to: file)
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: signatureFile)
        }
        let signed = try ExternalCommand.run(openssl, [
            "dgst", "-sha256", "-sign", DevCredentials.privateKeyFile, "-out", signatureFile.path, file.path,
        ])
        try #require(signed.status == 0, "openssl dgst failed: \(signed.standardError)")
        let der = Array(try Data(contentsOf: signatureFile))
        try #require(der.first == 0x30)
        #expect(try devPublicKey().verify(message: message, signature: der))
    }

    @Test("a key read from the .p8 private key verifies like the public key")
    func privatePEMVerifies() throws {
        let key = try ES256VerifyingKey(pem: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
        #expect(key.verify(message: message, signature: try devSigningKey().sign(message)))
    }

    @Test("a signature of another message fails")
    func otherMessageFails() throws {
        let signature = try devSigningKey().sign(message)
        #expect(try !devPublicKey().verify(message: message + [0x2E], signature: signature))
    }

    @Test("a signature by another key fails")
    func otherKeyFails() throws {
        let signature = try ES256SigningKey.generate().sign(message)
        #expect(try !devPublicKey().verify(message: message, signature: signature))
    }

    @Test("garbage signatures fail without throwing", arguments: [[], [0x30], [UInt8](repeating: 0xFF, count: 64), [UInt8](repeating: 1, count: 71)])
    func garbageSignatureFails(signature: [UInt8]) throws {
        #expect(try !devPublicKey().verify(message: message, signature: signature))
    }

    @Test("a file that is not a PEM key is an error naming the operation")
    func garbageKeyIsRejected() {
        let error = #expect(throws: OpenSSLError.self) { try ES256VerifyingKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        #expect(error?.operation == "read ES256 verifying key")
    }
}
