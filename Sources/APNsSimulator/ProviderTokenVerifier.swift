import APNsCore

/// Checks the parts of a provider token that do not depend on time or on the connection: the JWT
/// shape, `alg`, the key id, the team, and the ES256 signature. Lenient where clients differ
/// (spec §7.5): `iat` as a number or a numeric string, raw or DER signatures, extra fields,
/// base64url with or without padding.
struct ProviderTokenVerifier: Sendable {
    let keys: [String: ProviderKey]

    init(keys: [ProviderKey]) {
        var byID: [String: ProviderKey] = [:]
        for key in keys { byID[key.keyID] = key }
        self.keys = byID
    }

    /// The verified claims, or nil when APNs would answer `InvalidProviderToken`.
    func verify(_ jwt: String) -> VerifiedProviderToken? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let header = Self.jsonObject(parts[0]), let claims = Self.jsonObject(parts[1]),
              let signature = Self.decode(parts[2]),
              header["alg"]?.stringValue == "ES256",
              let keyID = header["kid"]?.stringValue, let key = keys[keyID],
              let teamID = claims["iss"]?.stringValue, teamID == key.teamID,
              let issuedAt = claims["iat"].flatMap(Self.seconds)
        else { return nil }
        let signingInput = Array(jwt.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.verifyingKey.verify(message: signingInput, signature: signature) else { return nil }
        return VerifiedProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, keyEnvironment: key.environment)
    }

    private static func decode(_ segment: Substring) -> [UInt8]? {
        var text = segment
        while text.last == "=" { text.removeLast() }
        return Base64URL.decode(String(text))
    }

    private static func jsonObject(_ segment: Substring) -> JSONObject? {
        guard let bytes = decode(segment), let value = try? JSONParser.parse(bytes) else { return nil }
        return value.objectValue
    }

    /// `iat` as an integer, a whole floating-point number, or a string of digits.
    private static func seconds(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer(let seconds): seconds
        case .double(let seconds) where seconds.rounded() == seconds && abs(seconds) < 1e15: Int64(seconds)
        case .string(let text): Int64(text)
        default: nil
        }
    }
}
