import APNsCore
import Foundation
import PushlineTestKit
import Testing

@Suite("pushline jwt")
struct JWTCommandTests {
    @Test("prints only the token, which openssl verifies under the dev public key")
    func printsVerifiableToken() throws {
        let result = try pushline("jwt", "--key", DevCredentials.privateKeyFile, "--key-id", DevCredentials.keyID,
                                  "--team-id", DevCredentials.teamID, "--issued-at", "1700000000")
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let token = try #require(result.standardOutput.split(separator: "\n").map(String.init).first)
        #expect(result.standardOutput == token + "\n")
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let claims = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
        #expect(claims == #"{"iss":"DEVTEAM001","iat":1700000000}"#)
        #expect(try OpenSSLCommandLine.verifyES256(
            message: Array("\(parts[0]).\(parts[1])".utf8), rawSignature: try #require(Base64URL.decode(parts[2])),
            publicKeyPEMFile: DevCredentials.publicKeyFile))
    }

    @Test("without --issued-at the token is issued now")
    func issuedNow() throws {
        let before = WallClock.millisecondsSinceEpoch() / 1000
        let result = try pushline("jwt", "--key", DevCredentials.privateKeyFile, "--key-id", DevCredentials.keyID,
                                  "--team-id", DevCredentials.teamID)
        let after = WallClock.millisecondsSinceEpoch() / 1000
        let claims = try #require(Base64URL.decode(String(result.standardOutput.split(separator: ".")[1])))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any])
        let issuedAt = try #require((object["iat"] as? NSNumber)?.int64Value)
        #expect((before...after).contains(issuedAt))
    }

    @Test("a missing required option is named")
    func missingOption() throws {
        let result = try pushline("jwt", "--key", DevCredentials.privateKeyFile, "--key-id", DevCredentials.keyID)
        #expect(result.status == 2)
        #expect(result.standardError.contains("--team-id is required"))
    }

    @Test("a key file that is not an ES256 key is named, and nothing of it is printed")
    func unusableKey() throws {
        let file = try temporaryFile("-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n", name: "AuthKey.p8")
        let result = try pushline("jwt", "--key", file, "--key-id", "K", "--team-id", "T")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--key \"\(file)\" is not a usable ES256 key"))
        #expect(!result.standardError.contains("c2VjcmV0"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test("a non-numeric --issued-at is a usage error")
    func badIssuedAt() throws {
        let result = try pushline("jwt", "--key", DevCredentials.privateKeyFile, "--key-id", "K", "--team-id", "T",
                                  "--issued-at", "yesterday")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--issued-at must be a whole number, got \"yesterday\""))
    }
}
