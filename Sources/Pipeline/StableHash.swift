/// FNV-1a (64-bit) of a string's UTF-8 bytes: stable across processes and versions, where Swift's
/// `hashValue` is seeded per process. For choices that every worker must make alike.
func stableHash(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}
