import APNsClient
import APNsCore
import Foundation
import PushlineTestKit
import Testing

@Suite("Provider token")
struct ProviderTokenTests {
    static func devCredentials() throws -> ProviderTokenCredentials {
        try ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                     p8: String(contentsOfFile: DevCredentials.privateKeyFile, encoding: .utf8))
    }

    private func segments(_ token: ProviderToken) throws -> [String] {
        let parts = token.jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        return parts
    }

    private func decodedJSON(_ segment: String) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(segment))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("the header names ES256 and the key id, and nothing else")
    func headerHasAlgorithmAndKeyID() throws {
        let token = try ProviderToken(credentials: Self.devCredentials(), issuedAt: 1_700_000_000)
        let header = try decodedJSON(segments(token)[0])
        #expect(header.count == 2)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == DevCredentials.keyID)
    }

    @Test("the claims are the team id and the issue time in seconds, as a number")
    func claimsHaveIssuerAndIssueTime() throws {
        let token = try ProviderToken(credentials: Self.devCredentials(), issuedAt: 1_700_000_000)
        let claims = try decodedJSON(segments(token)[1])
        #expect(claims.count == 2)
        #expect(claims["iss"] as? String == DevCredentials.teamID)
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_700_000_000)
        #expect(token.issuedAt == 1_700_000_000)
    }

    @Test("the signature is raw r‖s over header.claims, verified by the openssl tool")
    func signatureVerifiesIndependently() throws {
        let token = try ProviderToken(credentials: Self.devCredentials(), issuedAt: 1_700_000_000)
        let parts = try segments(token)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        #expect(try OpenSSLCommandLine.verifyES256(
            message: Array("\(parts[0]).\(parts[1])".utf8), rawSignature: signature,
            publicKeyPEMFile: DevCredentials.publicKeyFile))
    }

    @Test("a token signed by another key does not verify under the dev key")
    func foreignSignatureFails() throws {
        let foreign = ProviderTokenCredentials(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID,
                                               signingKey: try .generate())
        let parts = try segments(ProviderToken(credentials: foreign, issuedAt: 1_700_000_000))
        #expect(try !OpenSSLCommandLine.verifyES256(
            message: Array("\(parts[0]).\(parts[1])".utf8), rawSignature: try #require(Base64URL.decode(parts[2])),
            publicKeyPEMFile: DevCredentials.publicKeyFile))
    }

    @Test("the authorization header is 'bearer <jwt>'")
    func authorizationHeader() throws {
        let token = try ProviderToken(credentials: Self.devCredentials(), issuedAt: 1_700_000_000)
        #expect(token.authorization == "bearer " + token.jwt)
    }

    @Test("descriptions never contain the token or the key")
    func descriptionsHideSecrets() throws {
        let credentials = try Self.devCredentials()
        let token = try ProviderToken(credentials: credentials, issuedAt: 1_700_000_000)
        #expect(!String(describing: token).contains(token.jwt))
        #expect(!String(describing: token).contains(try segments(token)[2]))
        #expect(!String(describing: credentials).contains("PRIVATE KEY"))
        #expect(String(describing: credentials).contains(DevCredentials.keyID))
    }
}
