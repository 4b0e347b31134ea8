import APNsCore
import IntentCore
import Redis
import TLS

/// The recipients' keys for encrypted notification fields (docs/service-extension.md): one per
/// user or per device of an app, each with an id and a version, stored sealed under the
/// ``KeyEncryptionKey``. Filled by `pushline keys register` and the token feed; read by the worker
/// once per claimed batch; a key read again is taken from an ``UnwrappedKeyCache`` while its
/// stored value stays the same. Confined like its `RedisConnection`.
///
/// Keys: `pushline:e2e-key:<app>:user:<user>` and `pushline:e2e-key:<app>:device:<token hex>` →
/// `v1 <key id> <version> <base64 of the sealed key>`.
public struct EncryptionKeyRegistry {
    /// Whose key it is. A device's key wins over its user's.
    public enum Subject: Sendable, Equatable, CustomStringConvertible {
        case user(String)
        case device(DeviceToken)

        public var description: String {
            var text = ""
            append(to: &text)
            return text
        }

        /// ``description`` appended to `text`, without interpolation: every lookup writes it.
        func append(to text: inout String) {
            forEachPart { text += $0 }
        }

        /// ``description``'s UTF-8 appended to `bytes`.
        func append(to bytes: inout [UInt8]) {
            forEachPart { bytes += $0.utf8 }
        }

        /// ``description``'s parts, one after the other.
        private func forEachPart(_ body: (String) -> Void) {
            switch self {
            case .user(let user):
                body("user:")
                body(user)
            case .device(let token):
                body("device:")
                body(token.hex)
            }
        }
    }

    /// What registering did.
    public enum Registration: Sendable, Equatable {
        case registered
        /// The subject already has this version or a later one, which stands (keys only move forward).
        case laterVersionStands(Int64)
    }

    /// One delivery's lookup.
    public struct Lookup: Sendable {
        public var app: String
        public var token: DeviceToken
        public var user: String?

        public init(app: String, token: DeviceToken, user: String?) {
            self.app = app
            self.token = token
            self.user = user
        }
    }

    /// Sets the key unless the stored version is the same or later.
    private static let registerIfNewer = RedisScript("""
        local current = redis.call('GET', KEYS[1])
        if current then
          local version = tonumber(string.match(current, '^v1 %S+ (%d+) '))
          if version and version >= tonumber(ARGV[1]) then return version end
        end
        redis.call('SET', KEYS[1], ARGV[2])
        return 0
        """)

    let connection: RedisConnection
    let keyEncryptionKey: KeyEncryptionKey
    private let unwrapped = UnwrappedKeyCache()

    public init(connection: RedisConnection, keyEncryptionKey: KeyEncryptionKey) {
        self.connection = connection
        self.keyEncryptionKey = keyEncryptionKey
    }

    /// How many opened keys the registry keeps (at most ``UnwrappedKeyCache/capacity``).
    public var cachedKeyCount: Int { unwrapped.count }

    /// One key to register: `key` (32 bytes) as `subject`'s key `id` at `version` (≥ 1).
    public struct Entry: Sendable {
        public var subject: Subject
        public var id: String
        public var version: Int64
        public var key: [UInt8]

        public init(subject: Subject, id: String, version: Int64, key: [UInt8]) {
            self.subject = subject
            self.id = id
            self.version = version
            self.key = key
        }
    }

    /// Registers `key` (32 bytes) as `subject`'s key `id` at `version` (≥ 1).
    public func register(app: String, subject: Subject, id: String, version: Int64,
                         key: [UInt8]) throws(KeyRegistryFailure) -> Registration {
        try register(app: app, [Entry(subject: subject, id: id, version: version, key: key)])[0]
    }

    /// Registers every entry, in one round trip; each stands unless its subject already has the
    /// same version or a later one.
    public func register(app: String, _ entries: [Entry]) throws(KeyRegistryFailure) -> [Registration] {
        var commands: [RedisCommand] = []
        commands.reserveCapacity(entries.count)
        for entry in entries {
            guard EncryptionKey.isValidID(entry.id) else {
                throw .key(KeyRegistryError(.badKey, "the key id \"\(entry.id.prefix(80))\" must be 1 to 64 letters, digits, '.', '_' or '-'"))
            }
            guard entry.version >= 1 else { throw .key(KeyRegistryError(.badKey, "the version must be at least 1, got \(entry.version)")) }
            guard entry.key.count == AES256GCM.keyByteCount else {
                throw .key(KeyRegistryError(.badKey, "a key has 32 bytes, got \(entry.key.count)"))
            }
            let wrapped: [UInt8]
            do {
                wrapped = try keyEncryptionKey.wrap(entry.key, identity: Self.identity(app, entry.subject, entry.id, entry.version))
            } catch {
                throw .key(error)
            }
            commands.append(.evalSHA(Self.registerIfNewer, keys: [Self.key(app, entry.subject)],
                                     arguments: [String(entry.version), "v1 \(entry.id) \(entry.version) \(Base64.encode(wrapped))"]))
        }
        let replies: [RedisReply]
        do {
            replies = try connection.pipeline(commands)
        } catch {
            throw .redis(error)
        }
        var registrations: [Registration] = []
        registrations.reserveCapacity(replies.count)
        for reply in replies {
            if case .error(let error) = reply { throw .redis(error) }
            let stored = reply.integer ?? 0
            registrations.append(stored == 0 ? .registered : .laterVersionStands(stored))
        }
        return registrations
    }

    /// Each delivery's key — its device's, else its user's, nil when neither has one — in one round
    /// trip. A stored key that does not open (another key-encryption key) is ``KeyRegistryError``
    /// `UnreadableKey` in its place.
    public func keys(for lookups: [Lookup]) throws(RedisError) -> [Result<EncryptionKey?, KeyRegistryError>] {
        var redisKeys: [String] = []
        redisKeys.reserveCapacity(lookups.count * 2)
        for lookup in lookups {
            redisKeys.append(Self.key(lookup.app, .device(lookup.token)))
            if let user = lookup.user { redisKeys.append(Self.key(lookup.app, .user(user))) }
        }
        let replies = try storedValues(redisKeys)
        var index = 0
        var keys: [Result<EncryptionKey?, KeyRegistryError>] = []
        keys.reserveCapacity(lookups.count)
        for lookup in lookups {
            // The device's key, else the user's (the next reply when the lookup has a user).
            var found: Result<EncryptionKey?, KeyRegistryError> = .success(nil)
            if let value = try Self.value(replies[index]) {
                found = opened(value, redisKey: redisKeys[index], app: lookup.app, subject: .device(lookup.token))
            } else if let user = lookup.user, let value = try Self.value(replies[index + 1]) {
                found = opened(value, redisKey: redisKeys[index + 1], app: lookup.app, subject: .user(user))
            }
            index += lookup.user == nil ? 1 : 2
            keys.append(found)
        }
        return keys
    }

    /// The replies for the values stored under `redisKeys`, in their order, in one round trip: one
    /// `MGET` of them all, so redis-server runs one command per claimed batch instead of a `GET` per
    /// key (about 0.5–0.7 µs of its CPU per sealed delivery, docs/BENCHMARKS.md's ninth round). On a
    /// Redis Cluster the router sends it as one `MGET` per slot and joins the replies.
    private func storedValues(_ redisKeys: [String]) throws(RedisError) -> [RedisReply] {
        // A reply that is not one value per key (no server sends one) reads as no value for the keys it lacks.
        let values = try connection.send(Self.multiGet(redisKeys)).array ?? []
        return redisKeys.indices.map { $0 < values.count ? values[$0] : .null }
    }

    /// A `GET`'s stored value, nil when there is none.
    private static func value(_ reply: RedisReply) throws(RedisError) -> [UInt8]? {
        if case .error(let error) = reply { throw error }
        return reply.bytes
    }

    /// ``decode(_:redisKey:app:subject:)`` as a lookup's result.
    private func opened(_ value: [UInt8], redisKey: String, app: String, subject: Subject) -> Result<EncryptionKey?, KeyRegistryError> {
        Result { () throws(KeyRegistryError) in try decode(value, redisKey: redisKey, app: app, subject: subject) }
    }

    /// The key of one subject, nil when it has none.
    public func key(app: String, subject: Subject) throws(KeyRegistryFailure) -> EncryptionKey? {
        let redisKey = Self.key(app, subject)
        let stored: [UInt8]?
        do {
            stored = try Self.value(connection.send(RedisCommand("GET", redisKey)))
        } catch {
            throw .redis(error)
        }
        guard let value = stored else { return nil }
        do {
            return try decode(value, redisKey: redisKey, app: app, subject: subject)
        } catch {
            throw .key(error)
        }
    }

    /// A stored value, `v1 <key id> <version> <base64>`, opened, or taken from the cache when it was
    /// opened and kept before. Read as bytes: every delivery of a template that encrypts comes here.
    private func decode(_ value: [UInt8], redisKey: String, app: String, subject: Subject) throws(KeyRegistryError) -> EncryptionKey {
        try unwrapped.key(redisKey: redisKey, storedValue: value) { () throws(KeyRegistryError) in
            try open(value, app: app, subject: subject)
        }
    }

    /// The fields are found in place, not split into an array of parts: every new stored value comes here.
    private func open(_ value: [UInt8], app: String, subject: Subject) throws(KeyRegistryError) -> EncryptionKey {
        let space = UInt8(ascii: " ")
        guard value.count > 3, value[0] == UInt8(ascii: "v"), value[1] == UInt8(ascii: "1"), value[2] == space,
              let idEnd = value[3...].firstIndex(of: space),
              let versionEnd = value[(idEnd + 1)...].firstIndex(of: space),
              let version = Int64(String(decoding: value[(idEnd + 1)..<versionEnd], as: UTF8.self)),
              let wrapped = Base64.decode(bytes: value[(versionEnd + 1)...]) else {
            throw KeyRegistryError(.unreadableKey, "the key of \(subject) (\(app)) is not a v1 registry value")
        }
        let id = String(decoding: value[3..<idEnd], as: UTF8.self)
        let cipher = try keyEncryptionKey.unwrap(wrapped, identity: Self.identity(app, subject, id, version),
                                                 name: "the key of \(subject) (\(app))")
        return EncryptionKey(id: id, version: version, cipher: cipher)
    }

    /// `MGET redisKeys…`, built in place (no array of arguments).
    private static func multiGet(_ redisKeys: [String]) -> RedisCommand {
        var command = RedisCommand(reservingBytes: redisKeys.reduce(4) { $0 + $1.utf8.count }, arguments: 1 + redisKeys.count)
        command.append("MGET")
        for redisKey in redisKeys { command.append(redisKey) }
        return command
    }

    /// Concatenated into one buffer, not interpolated: every lookup writes one or two.
    static func key(_ app: String, _ subject: Subject) -> String {
        var key = "pushline:e2e-key:"
        key.reserveCapacity(key.utf8.count + app.utf8.count + 80)
        key += app
        key += ":"
        subject.append(to: &key)
        return key
    }

    /// The additional data a stored key is sealed with: `pushline-e2e-key v1|<app>|<subject>|<id>|<version>`,
    /// written straight into bytes.
    private static func identity(_ app: String, _ subject: Subject, _ id: String, _ version: Int64) -> [UInt8] {
        var identity: [UInt8] = []
        identity.reserveCapacity(identityPrefix.count + app.utf8.count + id.utf8.count + 100)
        identity += identityPrefix
        identity += app.utf8
        identity.append(UInt8(ascii: "|"))
        subject.append(to: &identity)
        identity.append(UInt8(ascii: "|"))
        identity += id.utf8
        identity.append(UInt8(ascii: "|"))
        identity += String(version).utf8
        return identity
    }

    private static let identityPrefix = Array("pushline-e2e-key v1|".utf8)
}
