import APNsClient
import CLI
import TLS

/// `pushline jwt`: signs a provider token, as `curl` users do by hand to talk to APNs.
enum JWTCommand: Command {
    static let name = "jwt"
    static let summary = "print an APNs provider token (ES256 JWT) signed with a .p8 key"
    static let help = """
        Usage: pushline jwt --key FILE --key-id KID --team-id TEAM [--issued-at UNIX]

        Signs an APNs provider token and prints only the token, ready for
        "authorization: bearer <token>". APNs accepts a token for one hour from its issue time.

        Options:
          --key FILE         the .p8 signing key (PKCS#8 PEM, P-256)
          --key-id KID       the key's 10-character id (the JWT's kid)
          --team-id TEAM     the 10-character team id (the JWT's iss)
          --issued-at UNIX   the iat claim, UNIX seconds (default: now)
          -h, --help         show this help
        """
    static let arguments = ArgumentSpec(valueOptions: ["--key", "--key-id", "--team-id", "--issued-at"])

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let keyPath = try arguments.required("--key")
        let keyID = try arguments.required("--key-id")
        let teamID = try arguments.required("--team-id")
        let issuedAt = try arguments.optionalInteger("--issued-at") ?? ProviderTokenSource.systemNow()
        let pem = String(decoding: try readFile(keyPath, purpose: "key"), as: UTF8.self)
        let credentials: ProviderTokenCredentials
        do {
            credentials = try ProviderTokenCredentials(keyID: keyID, teamID: teamID, p8: pem)
        } catch {
            throw UsageError(message: "--key \"\(keyPath)\" is not a usable ES256 key: \(error.reason)")
        }
        print(try ProviderToken(credentials: credentials, issuedAt: issuedAt).jwt)
        return 0
    }
}
