import IntentCore

/// The keys an ``EncryptionKeyRegistry`` has opened, one per Redis key with the stored value it
/// was opened from, so a key read again (the same user's or device's next delivery) is not
/// unwrapped again: a map lookup and a byte comparison instead of base64 decoding and an AES-GCM
/// open under the key-encryption key. A rotation stores a new value (its own id, version and
/// nonce), which differs and is opened; a value copied to another subject is looked up under that
/// subject's Redis key, differs, and is refused by the open. At most ``capacity`` keys; when full
/// it starts again empty, so a stream of keys each read once (one per device, as in `pushline
/// bench e2e`'s `sealed` workload) costs an insertion each and no eviction per delivery, and a key
/// in use is opened again once per ``capacity`` new ones.
/// Confined like the registry that owns it.
final class UnwrappedKeyCache {
    /// The most keys kept: 10,000 × (about 250 bytes of entry, value and key) is under 4 MB.
    static let capacity = 10_000

    private var keys: [String: (storedValue: [UInt8], key: EncryptionKey)] = [:]

    var count: Int { keys.count }

    /// The key stored as `storedValue` under `redisKey`, from the cache when it was opened from the
    /// same value, else opened by `open` (and kept).
    func key(redisKey: String, storedValue: [UInt8],
             open: () throws(KeyRegistryError) -> EncryptionKey) throws(KeyRegistryError) -> EncryptionKey {
        if let cached = keys[redisKey], cached.storedValue == storedValue { return cached.key }
        let key = try open()
        if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
        keys[redisKey] = (storedValue, key)
        return key
    }
}
