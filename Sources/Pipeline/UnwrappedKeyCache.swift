import Enrichment

/// The keys an ``EncryptionKeyRegistry`` has opened, by Redis key and stored value, so a key read
/// again (the same user's or device's next delivery) is not unwrapped again: a map lookup instead
/// of base64 decoding and an AES-GCM open under the key-encryption key. The stored value names the
/// key's id and version and carries its own nonce, so a rotation (a new value) misses and is
/// opened; a value copied to another subject misses too (the Redis key is part of the entry) and
/// is refused by the open. At most ``capacity`` keys; when full, an arbitrary one makes room.
/// Confined like the registry that owns it.
final class UnwrappedKeyCache {
    private struct Entry: Hashable {
        let redisKey: String
        let storedValue: [UInt8]
    }

    /// The most keys kept: 10,000 × (about 150 bytes of entry and a key) is under 4 MB.
    static let capacity = 10_000

    private var keys: [Entry: EncryptionKey] = [:]

    var count: Int { keys.count }

    /// The key stored as `storedValue` under `redisKey`, from the cache or opened by `open` (and kept).
    func key(redisKey: String, storedValue: [UInt8],
             open: () throws(KeyRegistryError) -> EncryptionKey) throws(KeyRegistryError) -> EncryptionKey {
        let entry = Entry(redisKey: redisKey, storedValue: storedValue)
        if let key = keys[entry] { return key }
        let key = try open()
        if keys.count >= Self.capacity, let any = keys.first?.key { keys.removeValue(forKey: any) }
        keys[entry] = key
        return key
    }
}
