import IntentCore

/// The keys an ``EncryptionKeyRegistry`` has opened, so a key read again (the same user's or
/// device's next deliveries) is not unwrapped again: an array read and two comparisons instead of
/// base64 decoding and an AES-GCM open under the key-encryption key.
///
/// One slot per hash of the Redis key (``capacity`` slots; a new subject in a taken slot replaces
/// the one there), each holding the Redis key, the stored value the key was opened from and the
/// opened key. A key is kept only when its slot's last opened Redis key was the same — the first
/// time, only a 32-bit fingerprint of the Redis key is noted — so a stream of keys each read
/// once (one per device, as in `pushline-dev bench e2e`'s `sealed` workload) keeps nothing: no
/// insertion, no key held, nothing to free later, and a key in use is not pushed out by them. A
/// rotation stores a new value (its own id, version and nonce), which differs and is opened (and
/// replaces the entry); a value copied to another subject is looked up under that subject's Redis
/// key, which differs, and is refused by the open. Confined like the registry that owns it.
final class UnwrappedKeyCache {
    /// The slots: 16,384 kept keys × about 300 bytes (entry, Redis key, value and key) is about 5 MB.
    static let capacity = 1 << 14

    private struct Entry {
        let redisKey: String
        let storedValue: [UInt8]
        let key: EncryptionKey
    }

    /// What a slot holds, by fingerprints (32 bits of the Redis key's hash; 0: none), read before
    /// the entry: a lookup that misses touches these 8 bytes of a 128 KB array, not the entry.
    private struct Marks {
        /// The last Redis key opened in the slot.
        var opened: UInt32 = 0
        /// The Redis key of the slot's entry.
        var kept: UInt32 = 0
    }

    private var entries = [Entry?](repeating: nil, count: capacity)
    private var marks = [Marks](repeating: Marks(), count: capacity)

    /// How many keys are kept.
    private(set) var count = 0

    /// The key stored as `storedValue` under `redisKey`, from the cache when it was opened from the
    /// same value, else opened by `open` (and kept when its Redis key was opened just before in its slot).
    func key(redisKey: String, storedValue: [UInt8],
             open: () throws(KeyRegistryError) -> EncryptionKey) throws(KeyRegistryError) -> EncryptionKey {
        // Swift's hash is seeded per process: which Redis keys share a slot cannot be chosen from outside.
        let hash = UInt(bitPattern: redisKey.hashValue)
        let slot = Int(hash & UInt(Self.capacity - 1))
        let fingerprint = UInt32(truncatingIfNeeded: hash >> 32) | 1
        if marks[slot].kept == fingerprint, let entry = entries[slot], entry.redisKey == redisKey, entry.storedValue == storedValue {
            return entry.key
        }
        let key = try open()
        if marks[slot].opened == fingerprint {
            if entries[slot] == nil { count += 1 }
            entries[slot] = Entry(redisKey: redisKey, storedValue: storedValue, key: key)
            marks[slot].kept = fingerprint
        } else {
            marks[slot].opened = fingerprint
        }
        return key
    }
}
