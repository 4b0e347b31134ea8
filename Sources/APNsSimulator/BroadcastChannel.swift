import APNsCore

/// A broadcast channel (spec §6.2): a random id, the app it belongs to, and its storage policy.
struct BroadcastChannel: Equatable {
    /// Standard base64, like Apple's example `dHN0LXNyY2gtY2hubA==`.
    let id: String
    let storagePolicy: MessageStoragePolicy

    /// Channel ids longer than this many bytes are answered `BadChannelId` (APNs: "too long";
    /// the real limit is not published).
    static let maximumIDBytes = 64

    /// A new id from 16 random bytes.
    static func randomID(using random: inout SeededRandom) -> String {
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        var text = String(Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text.append("=") }
        return text
    }

    /// Whether `id` is standard base64 of at most ``maximumIDBytes`` bytes.
    static func isWellFormedID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count % 4 == 0, !id.utf8.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else { return false }
        var unpadded = Substring(id)
        while unpadded.last == "=" { unpadded.removeLast() }
        let urlForm = String(unpadded.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        guard let bytes = Base64URL.decode(urlForm) else { return false }
        return bytes.count <= maximumIDBytes
    }
}
