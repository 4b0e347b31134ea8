import APNsClient
import APNsCore
import APNsSimulator
import Foundation
import PushlineTestKit
import TLS
import Testing

@Suite("Device push: provider-token authentication")
struct ProviderTokenAuthenticationTests {
    private func devHeader(_ harness: SimulatorHarness) -> JSONObject {
        ["alg": "ES256", "kid": .string(DevCredentials.keyID)]
    }

    private func devClaims(_ harness: SimulatorHarness) -> JSONObject {
        ["iss": .string(DevCredentials.teamID), "iat": .integer(harness.clock.nowSeconds)]
    }

    private func expectReason(_ response: SimulatorResponse, _ reason: String, status: Int = 403) {
        #expect(response.status == status)
        #expect(response.reason == reason)
    }

    @Test("no authorization header is 403 MissingProviderToken")
    func missingHeader() throws {
        expectReason(try SimulatorHarness().push(["authorization": nil]), "MissingProviderToken")
    }

    @Test("'bearer' with no token is 403 MissingProviderToken", arguments: ["", "bearer", "bearer   "])
    func emptyBearer(value: String) throws {
        expectReason(try SimulatorHarness().push(["authorization": value]), "MissingProviderToken")
    }

    @Test("a value that is not a bearer JWT is 403 InvalidProviderToken",
          arguments: ["bearer not.a.jwt", "bearer abc", "Basic dXNlcjpwYXNz", "bearer a.b.c.d"])
    func malformedToken(value: String) throws {
        expectReason(try SimulatorHarness().push(["authorization": value]), "InvalidProviderToken")
    }

    @Test("a signature by another key is 403 InvalidProviderToken")
    func badSignature() throws {
        let harness = try SimulatorHarness()
        let jwt = try Fixture.jwt(header: devHeader(harness), claims: devClaims(harness), key: .generate())
        expectReason(try harness.push(["authorization": "bearer " + jwt]), "InvalidProviderToken")
    }

    @Test("an unknown key id is 403 InvalidProviderToken")
    func unknownKeyID() throws {
        let harness = try SimulatorHarness()
        let jwt = try Fixture.jwt(header: ["alg": "ES256", "kid": "UNKNOWN001"], claims: devClaims(harness),
                                  key: Fixture.devSigningKey())
        expectReason(try harness.push(["authorization": "bearer " + jwt]), "InvalidProviderToken")
    }

    @Test("a team other than the key's is 403 InvalidProviderToken")
    func wrongTeam() throws {
        let harness = try SimulatorHarness()
        let jwt = try Fixture.jwt(header: devHeader(harness), claims: ["iss": "OTHERTEAM1", "iat": .integer(harness.clock.nowSeconds)],
                                  key: Fixture.devSigningKey())
        expectReason(try harness.push(["authorization": "bearer " + jwt]), "InvalidProviderToken")
    }

    @Test("an algorithm other than ES256 is 403 InvalidProviderToken", arguments: ["HS256", "ES384", "none"])
    func wrongAlgorithm(algorithm: String) throws {
        let harness = try SimulatorHarness()
        let jwt = try Fixture.jwt(header: ["alg": .string(algorithm), "kid": .string(DevCredentials.keyID)],
                                  claims: devClaims(harness), key: Fixture.devSigningKey())
        expectReason(try harness.push(["authorization": "bearer " + jwt]), "InvalidProviderToken")
    }

    @Test("an iat more than an hour old is 403 ExpiredProviderToken")
    func expiredToken() throws {
        let harness = try SimulatorHarness()
        let old = try Fixture.devToken(issuedAt: harness.clock.nowSeconds - 3601)
        expectReason(try harness.push(["authorization": old]), "ExpiredProviderToken")
    }

    @Test("a token exactly an hour old is still accepted")
    func tokenAtMaximumAge() throws {
        let harness = try SimulatorHarness()
        let token = try Fixture.devToken(issuedAt: harness.clock.nowSeconds - 3600)
        #expect(try harness.push(["authorization": token]).status == 200)
    }

    @Test("a cached token expires on its connection when the hour passes")
    func cachedTokenExpires() throws {
        let harness = try SimulatorHarness()
        let token = try harness.devAuthorization()
        #expect(try harness.push(["authorization": token]).status == 200)
        harness.clock.advance(minutes: 61)
        expectReason(try harness.push(["authorization": token]), "ExpiredProviderToken")
    }

    @Test("after ExpiredProviderToken the connection is finished: a fresh token there still gets it, a new connection does not")
    func expiredTokenWedgesConnection() throws {
        let harness = try SimulatorHarness()
        expectReason(try harness.push(["authorization": try Fixture.devToken(issuedAt: harness.clock.nowSeconds - 4000)]),
                     "ExpiredProviderToken")
        expectReason(try harness.push(), "ExpiredProviderToken")
        let fresh = harness.simulator.makeConnection(port: .device, clientCertificateTopics: nil)
        #expect(try harness.push(on: fresh).status == 200)
    }

    @Test("without wedging, a fresh token on the same connection is accepted after ExpiredProviderToken")
    func expiredTokenWithoutWedging() throws {
        let harness = try SimulatorHarness { $0.wedgesAfterExpiredToken = false }
        expectReason(try harness.push(["authorization": try Fixture.devToken(issuedAt: harness.clock.nowSeconds - 4000)]),
                     "ExpiredProviderToken")
        #expect(try harness.push().status == 200)
    }

    @Test("an iat more than an hour in the future (seconds mistaken for milliseconds) is 403 InvalidProviderToken")
    func futureToken() throws {
        let harness = try SimulatorHarness()
        let token = try Fixture.devToken(issuedAt: harness.clock.now)
        expectReason(try harness.push(["authorization": token]), "InvalidProviderToken")
    }

    @Test("another key of the same team on a bound connection is 403 UnrelatedKeyIdInToken")
    func unrelatedKeyID() throws {
        let otherKey = try ES256SigningKey.generate()
        let harness = try SimulatorHarness {
            $0.providerKeys.append(ProviderKey(keyID: "OTHERKEY01", teamID: DevCredentials.teamID,
                                               verifyingKey: try ES256VerifyingKey(pem: otherKey.publicKeyPEM())))
        }
        #expect(try harness.push().status == 200)
        let jwt = try Fixture.jwt(header: ["alg": "ES256", "kid": "OTHERKEY01"], claims: devClaims(harness), key: otherKey)
        expectReason(try harness.push(["authorization": "bearer " + jwt]), "UnrelatedKeyIdInToken")
    }

    @Test("another team on a bound connection is 403 InvalidProviderToken, though valid on a new connection")
    func teamChange() throws {
        let otherKey = try ES256SigningKey.generate()
        let harness = try SimulatorHarness {
            $0.providerKeys.append(ProviderKey(keyID: "OTHERKEY01", teamID: "OTHERTEAM1",
                                               verifyingKey: try ES256VerifyingKey(pem: otherKey.publicKeyPEM())))
        }
        #expect(try harness.push().status == 200)
        let jwt = try Fixture.jwt(header: ["alg": "ES256", "kid": "OTHERKEY01"],
                                  claims: ["iss": "OTHERTEAM1", "iat": .integer(harness.clock.nowSeconds)], key: otherKey)
        expectReason(try harness.push(["authorization": "bearer " + jwt]), "InvalidProviderToken")
        let fresh = harness.simulator.makeConnection(port: .device, clientCertificateTopics: nil)
        #expect(try harness.push(["authorization": "bearer " + jwt], on: fresh).status == 200)
    }

    @Test("a key limited to the other environment is 403 BadEnvironmentKeyIdInToken, or the observed spelling when configured",
          arguments: [(RejectionReason.badEnvironmentKeyIdInToken, "BadEnvironmentKeyIdInToken"),
                      (RejectionReason.badEnvironmentKeyInToken, "BadEnvironmentKeyInToken")])
    func environmentScopedKey(configured: RejectionReason, expected: String) throws {
        let productionKey = try ES256SigningKey.generate()
        let harness = try SimulatorHarness {
            $0.environmentKeyReason = configured
            $0.providerKeys.append(ProviderKey(keyID: "PRODKEY001", teamID: DevCredentials.teamID,
                                               verifyingKey: try ES256VerifyingKey(pem: productionKey.publicKeyPEM()),
                                               environment: .production))
        }
        let jwt = try Fixture.jwt(header: ["alg": "ES256", "kid": "PRODKEY001"], claims: devClaims(harness), key: productionKey)
        expectReason(try harness.push(["authorization": "bearer " + jwt]), expected)
    }

    @Test("a second token change within 20 minutes of the first is 429 TooManyProviderTokenUpdates")
    func tooManyTokenUpdates() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push(["authorization": try Fixture.devToken(issuedAt: harness.clock.nowSeconds - 10)]).status == 200)
        harness.clock.advance(minutes: 1)
        #expect(try harness.push(["authorization": try harness.devAuthorization()]).status == 200)
        harness.clock.advance(minutes: 19)
        expectReason(try harness.push(["authorization": try harness.devAuthorization()]), "TooManyProviderTokenUpdates", status: 429)
    }

    @Test("a token change 20 minutes after the previous change is accepted")
    func tokenChangeAfterTwentyMinutes() throws {
        let harness = try SimulatorHarness()
        #expect(try harness.push(["authorization": try Fixture.devToken(issuedAt: harness.clock.nowSeconds - 10)]).status == 200)
        #expect(try harness.push(["authorization": try harness.devAuthorization()]).status == 200)
        harness.clock.advance(minutes: 20)
        #expect(try harness.push(["authorization": try harness.devAuthorization()]).status == 200)
    }

    @Test("the refused token does not replace the connection's token, which keeps working")
    func refusedTokenChangeKeepsCurrentToken() throws {
        let harness = try SimulatorHarness()
        let first = try Fixture.devToken(issuedAt: harness.clock.nowSeconds - 20)
        let second = try Fixture.devToken(issuedAt: harness.clock.nowSeconds - 10)
        #expect(try harness.push(["authorization": first]).status == 200)
        #expect(try harness.push(["authorization": second]).status == 200)
        harness.clock.advance(minutes: 1)
        #expect(try harness.push(["authorization": try harness.devAuthorization()]).status == 429)
        #expect(try harness.push(["authorization": second]).status == 200)
    }

    @Test("a token is verified once per connection, not per request")
    func tokenIsVerifiedOncePerConnection() throws {
        let harness = try SimulatorHarness()
        let token = try harness.devAuthorization()
        for _ in 0..<5 { #expect(try harness.push(["authorization": token]).status == 200) }
        #expect(harness.connection.tokenVerifications == 1)
        let other = harness.simulator.makeConnection(port: .device, clientCertificateTopics: nil)
        _ = try harness.push(["authorization": token], on: other)
        #expect(other.tokenVerifications == 1)
    }

    @Test("an invalid token is not verified again on every request")
    func invalidTokenIsVerifiedOnce() throws {
        let harness = try SimulatorHarness()
        let jwt = try Fixture.jwt(header: devHeader(harness), claims: devClaims(harness), key: .generate())
        for _ in 0..<3 { _ = try harness.push(["authorization": "bearer " + jwt]) }
        #expect(harness.connection.tokenVerifications == 1)
    }

    @Test("tolerated like APNs: iat as a numeric string")
    func iatAsString() throws {
        let harness = try SimulatorHarness()
        let jwt = try Fixture.jwt(header: devHeader(harness),
                                  claims: ["iss": .string(DevCredentials.teamID), "iat": .string(String(harness.clock.nowSeconds))],
                                  key: Fixture.devSigningKey())
        #expect(try harness.push(["authorization": "bearer " + jwt]).status == 200)
    }

    @Test("tolerated like APNs: a DER signature")
    func derSignature() throws {
        let harness = try SimulatorHarness()
        let jwt = try Fixture.jwt(header: devHeader(harness), claims: devClaims(harness), key: Fixture.devSigningKey(), der: true)
        #expect(try harness.push(["authorization": "bearer " + jwt]).status == 200)
    }

    @Test("tolerated like APNs: extra header fields and claims")
    func extraFields() throws {
        let harness = try SimulatorHarness()
        var header = devHeader(harness)
        header.members.append(.init("typ", "JWT"))
        var claims = devClaims(harness)
        claims.members.append(.init("kid", .string(DevCredentials.keyID)))
        let jwt = try Fixture.jwt(header: header, claims: claims, key: Fixture.devSigningKey())
        #expect(try harness.push(["authorization": "bearer " + jwt]).status == 200)
    }

    @Test("tolerated: 'Bearer' in any case, and spaces or tabs around the token")
    func bearerCaseAndWhiteSpace() throws {
        let harness = try SimulatorHarness()
        let jwt = String(try harness.devAuthorization().dropFirst("bearer ".count))
        #expect(try harness.push(["authorization": "BeArEr " + jwt]).status == 200)
        #expect(try harness.push(["authorization": " bearer\t " + jwt + " "]).status == 200)
    }

    @Test("the word bearer must be followed by white space")
    func bearerNeedsSeparator() throws {
        let harness = try SimulatorHarness()
        let jwt = String(try harness.devAuthorization().dropFirst("bearer ".count))
        expectReason(try harness.push(["authorization": "bearer" + jwt]), "InvalidProviderToken")
    }

    @Test("keys load from a .p8 private key and from a public PEM file")
    func keysLoadFromFiles() throws {
        for file in [DevCredentials.privateKeyFile, DevCredentials.publicKeyFile] {
            let harness = try SimulatorHarness {
                $0.trustsDevelopmentKey = false
                try $0.trustKey(id: DevCredentials.keyID, teamID: DevCredentials.teamID, pemFile: file)
            }
            #expect(try harness.push().status == 200)
        }
    }

    @Test("an unreadable or non-key file is a configuration error naming the file")
    func badKeyFile() throws {
        var configuration = SimulatorConfiguration()
        let error = #expect(throws: SimulatorConfigurationError.self) {
            try configuration.trustKey(id: "KEY", teamID: "TEAM", pemFile: DevCredentials.privateKeyFile + ".missing")
        }
        #expect(error?.source == DevCredentials.privateKeyFile + ".missing")
        #expect(throws: SimulatorConfigurationError.self) {
            try configuration.trustKey(id: "KEY", teamID: "TEAM", pemFile: RepositoryPaths.file("Package.swift"))
        }
    }

    @Test("the development key is trusted by default and can be turned off")
    func developmentKeyDefault() throws {
        #expect(try SimulatorHarness().push().status == 200)
        expectReason(try SimulatorHarness { $0.trustsDevelopmentKey = false }.push(), "InvalidProviderToken")
    }

    @Test("the compiled-in development key is the public key under Config/dev")
    func compiledInDevelopmentKeyMatchesFile() throws {
        let fromFile = try ProviderKey(keyID: DevCredentials.keyID, teamID: DevCredentials.teamID, pemFile: DevCredentials.publicKeyFile)
        let message = Array("message".utf8)
        let signature = try Fixture.devSigningKey().sign(message)
        #expect(fromFile.verifyingKey.verify(message: message, signature: signature))
        #expect(ProviderKey.development().verifyingKey.verify(message: message, signature: signature))
        #expect(ProviderKey.development().keyID == DevCredentials.keyID)
        #expect(ProviderKey.development().teamID == DevCredentials.teamID)
    }
}
