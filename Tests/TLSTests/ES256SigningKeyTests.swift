import Foundation
import PushlineTestKit
import TLS
import Testing

@Suite("ES256 signing key")
struct ES256SigningKeyTests {
    private func devKey() throws -> ES256SigningKey {
        try ES256SigningKey(pem: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
    }

    @Test("a signature is 64 raw bytes that the openssl tool verifies")
    func signatureVerifiesWithOpenSSLCommandLine() throws {
        let message = Array("header.claims".utf8)
        let signature = try devKey().sign(message)
        #expect(signature.count == 64)
        #expect(try OpenSSLCommandLine.verifyES256(message: message, rawSignature: signature,
                                                   publicKeyPEMFile: DevCredentials.publicKeyFile))
    }

    @Test("a signature does not verify for another message")
    func signatureDoesNotVerifyAnotherMessage() throws {
        let signature = try devKey().sign(Array("one message".utf8))
        #expect(try !OpenSSLCommandLine.verifyES256(message: Array("another message".utf8), rawSignature: signature,
                                                    publicKeyPEMFile: DevCredentials.publicKeyFile))
    }

    @Test("the exported public key is the one openssl derives from the .p8 file")
    func publicKeyMatchesOpenSSL() throws {
        let exported = try devKey().publicKeyPEM()
        let expected = try String(contentsOfFile: DevCredentials.publicKeyFile, encoding: .utf8)
        #expect(exported == expected)
    }

    @Test("generated keys are distinct P-256 keys")
    func generatedKeysAreDistinct() throws {
        let first = try ES256SigningKey.generate()
        let second = try ES256SigningKey.generate()
        #expect(try first.publicKeyPEM() != second.publicKeyPEM())
        #expect(try first.sign([1, 2, 3]).count == 64)
    }

    @Test("a file that is not a PEM key is an error naming the operation")
    func garbageIsRejected() {
        let error = #expect(throws: OpenSSLError.self) { try ES256SigningKey(pem: "not a key") }
        #expect(error?.operation == "read ES256 private key")
    }

    @Test("an RSA key is rejected: ES256 needs P-256")
    func rsaKeyIsRejected() throws {
        let openssl = try ExternalCommand.locate("openssl", package: "openssl")
        let generated = try ExternalCommand.run(openssl, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        try #require(generated.status == 0, "openssl genpkey failed: \(generated.standardError)")
        let error = try #require(throws: OpenSSLError.self) { try ES256SigningKey(pem: generated.standardOutput) }
        #expect(error.reason == "not a P-256 EC key")
    }
}
