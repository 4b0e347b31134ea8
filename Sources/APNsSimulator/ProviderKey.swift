import Foundation
import TLS

/// A provider key the simulator trusts: tokens whose `kid` is ``keyID`` must be signed by
/// ``verifyingKey`` and issued (`iss`) by ``teamID``.
public struct ProviderKey: Sendable {
    /// The 10-character key id (`kid`).
    public let keyID: String
    /// The team that owns the key (`iss`).
    public let teamID: String
    public let verifyingKey: ES256VerifyingKey
    /// The environment a key is limited to (Apple's environment-scoped keys, spec §3.3), or nil
    /// for a key valid in both.
    public let environment: SimulatorEnvironment?

    /// A key already loaded.
    public init(keyID: String, teamID: String, verifyingKey: ES256VerifyingKey, environment: SimulatorEnvironment? = nil) {
        self.keyID = keyID
        self.teamID = teamID
        self.verifyingKey = verifyingKey
        self.environment = environment
    }

    /// Reads a `.p8` private key or a PEM public key from `file`.
    public init(keyID: String, teamID: String, pemFile file: String,
                environment: SimulatorEnvironment? = nil) throws(SimulatorConfigurationError) {
        let pem: String
        do {
            pem = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw SimulatorConfigurationError(source: file, message: "cannot read the key file (\(error.localizedDescription))")
        }
        do {
            self.init(keyID: keyID, teamID: teamID, verifyingKey: try ES256VerifyingKey(pem: pem), environment: environment)
        } catch {
            throw SimulatorConfigurationError(source: file, message: "not an ES256 key: \(error)")
        }
    }

    /// The development key of `Config/dev/` (`DEVKEY0001`, team `DEVTEAM001`). Its public half is
    /// compiled in, so the simulator trusts it from any working directory; it is public on purpose.
    public static func development() -> ProviderKey {
        // The compiled-in PEM is a constant that a test compares with Config/dev; it always parses.
        ProviderKey(keyID: "DEVKEY0001", teamID: "DEVTEAM001", verifyingKey: try! ES256VerifyingKey(pem: developmentPublicKeyPEM))
    }

    /// The contents of `Config/dev/dev-provider-key.pub.pem`.
    static let developmentPublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEtV/t044dbIlT7hEtkZrSt/3oP6pu
        Aupcpg2hR6dwjhGdZCTaZlhDVZFPXodabDvy+gNBVSbIDrOGyk6vTlW66A==
        -----END PUBLIC KEY-----

        """
}
