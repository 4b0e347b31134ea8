import APNsClient
import Foundation

/// One named set of APNs credentials: a team's provider-token key, or a client certificate.
/// Keys are read from files or the environment at load, and checked there.
public enum APNsCredentialsConfiguration: Sendable, CustomStringConvertible {
    /// A `.p8` key with its key id and team id, already read and parsed.
    case token(ProviderTokenCredentials)
    /// A certificate and its private key in PEM files.
    case certificate(certificateFile: String, privateKeyFile: String)

    /// Ids and file names only, never key material.
    public var description: String {
        switch self {
        case .token(let credentials): "token (key \(credentials.keyID), team \(credentials.teamID))"
        case .certificate(let certificateFile, _): "certificate \(certificateFile)"
        }
    }

    /// Reads one entry of `apns.credentials`; nil when it is unusable (which is reported).
    static func read(_ section: inout ConfigurationSection) -> APNsCredentialsConfiguration? {
        defer { section.finish() }
        let inlineKey = section.isSet("key") && section.origin("key").variable == nil
        let keyFromEnvironment = section.secretFromEnvironment("key", instead: "key_file")
        let inlinePrivateKey = section.refuseInline("private_key", instead: "private_key_file")
        let inlineCertificate = section.refuseInline("certificate", instead: "certificate_file")
        let keyID = section.value("key_id", .appleIdentifier)
        let teamID = section.value("team_id", .appleIdentifier)
        let keyFile = section.existingFile("key_file")
        let certificateFile = section.existingFile("certificate_file")
        let privateKeyFile = section.existingFile("private_key_file")
        // Inline material is reported; what is missing because of it would only repeat that.
        guard !(inlineKey || inlinePrivateKey || inlineCertificate) else { return nil }
        let wantsToken = keyFromEnvironment != nil || ["key_file", "key_id", "team_id"].contains { section.isSet($0) }
        let wantsCertificate = ["certificate_file", "private_key_file"].contains { section.isSet($0) }
        let here = ConfigurationSection.Origin(line: section.line, variable: nil)
        guard wantsToken != wantsCertificate else {
            section.report(wantsToken ? .invalidValue : .missingKey, "key_file", at: here, wantsToken
                ? "set key_file, key_id and team_id, or certificate_file and private_key_file, not both"
                : "is required (or certificate_file and private_key_file for a certificate)")
            return nil
        }
        let required = wantsToken
            ? ["key_id", "team_id"] + (keyFromEnvironment == nil ? ["key_file"] : [])
            : ["certificate_file", "private_key_file"]
        let missing = required.filter { !section.requirePresence($0) }
        guard missing.isEmpty else { return nil }
        if wantsCertificate {
            guard let certificateFile, let privateKeyFile else { return nil }
            return .certificate(certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        }
        let key: (pem: String, name: String, origin: ConfigurationSection.Origin)?
        if let keyFromEnvironment {
            key = (keyFromEnvironment.value, section.variableName("key"), section.origin("key"))
        } else {
            let origin = section.origin("key_file")
            key = keyFile.flatMap { file in
                FileManager.default.contents(atPath: file).map { (String(decoding: $0, as: UTF8.self), "\"\(file)\"", origin) }
            }
        }
        guard let key, let keyID, let teamID else { return nil }
        do {
            return .token(try ProviderTokenCredentials(keyID: keyID, teamID: teamID, p8: key.pem))
        } catch {
            section.report(.unusableCredentials, "key_file", at: key.origin, "\(key.name) is not a usable ES256 (.p8) private key")
            return nil
        }
    }
}
