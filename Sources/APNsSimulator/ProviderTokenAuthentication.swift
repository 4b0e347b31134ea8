#if canImport(Glibc)
import Glibc
#endif
import APNsCore

/// Authenticates a request on a token-based connection (spec §3), in this order:
///
/// 0. `ExpiredProviderToken`: the connection already answered it and wedges (configurable).
/// 1. `MissingProviderToken`: no `authorization`, or `bearer` with nothing after it.
/// 2. `InvalidProviderToken`: not `bearer <JWT>`; a malformed JWT; `alg` not ES256; unknown `kid`;
///    `iss` not the key's team; a signature that does not verify.
/// 3. `BadEnvironmentKeyIdInToken` (spelling configurable): a key limited to the other environment.
/// 4. `InvalidProviderToken`: a team other than the one the connection is bound to (what Pushy's
///    mock answers; Apple documents no reason, spec §9.9).
/// 5. `UnrelatedKeyIdInToken`: a key other than the one the connection is bound to.
/// 6. `ExpiredProviderToken`: `iat` more than one hour ago.
/// 7. `InvalidProviderToken`: `iat` more than one hour in the future. Whether APNs rejects future
///    tokens is unconfirmed (spec §9.14); an hour of tolerance catches `iat` in milliseconds.
/// 8. `TooManyProviderTokenUpdates`: a different token within 20 minutes of the connection's
///    previous token change. Adopting the first token is not a change.
///
/// The `bearer` prefix is matched case-insensitively (spec §9.17: unconfirmed, so lenient).
/// Certificate connections skip all of this; APNs ignores `authorization` there.
struct ProviderTokenAuthentication: Sendable {
    /// APNs rejects tokens older than this (spec §3.2).
    static let maximumTokenAgeSeconds: Int64 = 60 * 60
    /// APNs refuses a new token sooner than this after the previous change (spec §3.2).
    static let minimumTokenChangeIntervalMilliseconds: Int64 = 20 * 60 * 1000
    /// Tokens remembered per connection besides the current one.
    private static let checkedTokenCapacity = 16

    let verifier: ProviderTokenVerifier
    let environment: SimulatorEnvironment
    let environmentKeyReason: RejectionReason
    let wedgesAfterExpiredToken: Bool

    /// Nil when the request may proceed; records the outcome on the connection either way.
    func authenticate(_ request: SimulatorRequest, on connection: SimulatedConnection, now: Int64) -> Rejection? {
        guard connection.usesProviderTokens else { return nil }
        let rejection = check(request, on: connection, now: now)
        if rejection == nil {
            connection.consecutiveAuthFailures = 0
        } else {
            connection.consecutiveAuthFailures += 1
        }
        return rejection
    }

    private func check(_ request: SimulatorRequest, on connection: SimulatedConnection, now: Int64) -> Rejection? {
        if wedgesAfterExpiredToken && connection.sawExpiredToken { return Rejection(.expiredProviderToken) }
        guard let header = request.apns.authorization else { return Rejection(.missingProviderToken) }
        // The token is read in place: the connection's current token is matched without a copy.
        return request.withBytes(header) { header in
            switch Self.bearerToken(header) {
            case .failure(.missing): Rejection(.missingProviderToken)
            case .failure(.notBearer): Rejection(.invalidProviderToken)
            case .success(let range): check(UnsafeBufferPointer(rebasing: header[range]), on: connection, now: now)
            }
        }
    }

    private func check(_ jwt: UnsafeBufferPointer<UInt8>, on connection: SimulatedConnection, now: Int64) -> Rejection? {
        guard let claims = claims(of: jwt, on: connection) else { return Rejection(.invalidProviderToken) }
        if let keyEnvironment = claims.keyEnvironment, keyEnvironment != environment {
            return Rejection(environmentKeyReason)
        }
        if let bound = connection.currentToken?.claims {
            if claims.teamID != bound.teamID { return Rejection(.invalidProviderToken) }
            if claims.keyID != bound.keyID { return Rejection(.unrelatedKeyIdInToken) }
        }
        let nowSeconds = now / 1000
        if nowSeconds - claims.issuedAt > Self.maximumTokenAgeSeconds {
            connection.sawExpiredToken = true
            return Rejection(.expiredProviderToken)
        }
        if claims.issuedAt - nowSeconds > Self.maximumTokenAgeSeconds { return Rejection(.invalidProviderToken) }
        guard let current = connection.currentToken else {
            connection.currentToken = (Array(jwt), claims)
            return nil
        }
        guard !Self.bytes(current.jwt, equal: jwt) else { return nil }
        if let lastChange = connection.lastTokenChange, now - lastChange < Self.minimumTokenChangeIntervalMilliseconds {
            return Rejection(.tooManyProviderTokenUpdates)
        }
        connection.currentToken = (Array(jwt), claims)
        connection.lastTokenChange = now
        return nil
    }

    /// The claims of `jwt`, verified at most once per connection.
    private func claims(of jwt: UnsafeBufferPointer<UInt8>, on connection: SimulatedConnection) -> VerifiedProviderToken? {
        if let current = connection.currentToken, Self.bytes(current.jwt, equal: jwt) { return current.claims }
        let jwt = String(decoding: jwt, as: UTF8.self)
        if let checked = connection.checkedTokens[jwt] { return checked }
        let claims = verifier.verify(jwt)
        connection.tokenVerifications += 1
        if connection.checkedTokens.count >= Self.checkedTokenCapacity { connection.checkedTokens.removeAll() }
        connection.checkedTokens.updateValue(claims, forKey: jwt)
        return claims
    }

    private static func bytes(_ stored: [UInt8], equal bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard stored.count == bytes.count else { return false }
        return stored.withUnsafeBufferPointer { stored in
            guard let left = stored.baseAddress, let right = bytes.baseAddress else { return true }
            return memcmp(left, right, bytes.count) == 0
        }
    }

    /// Reads `bearer <token>`: the word in any case, then white space, then the token, with
    /// optional white space around (HTTP OWS: spaces and tabs). Returns where the token lies.
    private static func bearerToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Range<Int>, BearerTokenFailure> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return .failure(.missing) }
        let end = last + 1
        let word = "bearer".utf8
        let wordEnd = start + word.count
        guard wordEnd <= end, zip(bytes[start..<wordEnd], word).allSatisfy({ $0 | 0x20 == $1 }) else {
            return .failure(.notBearer)
        }
        guard wordEnd == end || isSpace(bytes[wordEnd]) else { return .failure(.notBearer) }
        var tokenStart = wordEnd
        while tokenStart < end, isSpace(bytes[tokenStart]) { tokenStart += 1 }
        guard tokenStart < end else { return .failure(.missing) }
        return .success(tokenStart..<end)
    }

    private enum BearerTokenFailure: Error {
        case missing
        case notBearer
    }
}
