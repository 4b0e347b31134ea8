import Digests

/// The `apns-id` header: a UUID that names one notification request.
///
/// Pushline derives it from (intent id, device token), so a retried request carries the same id and
/// analysts can join outcomes on it. APNs has been seen answering with upper-case ids, so parsing
/// is case-insensitive and ``description`` is always the canonical lower-case form.
public struct NotificationID: Hashable, Sendable, CustomStringConvertible {
    /// The UUID's 16 bytes, big-endian, as two words: random ids are drawn and written out per
    /// request in the simulator, and words need no heap storage.
    private let high: UInt64
    private let low: UInt64

    /// The 16 bytes of the UUID.
    public var bytes: [UInt8] {
        (0..<16).map(byte)
    }

    /// The name-space of Pushline's name-based ids (a fixed random UUID; changing it changes every
    /// derived id).
    public static let pushlineNamespace = NotificationID(validBytes: [
        0x38, 0xA6, 0x36, 0x95, 0x90, 0x9F, 0x41, 0x3A, 0xAA, 0x2D, 0x63, 0xBD, 0xDC, 0x57, 0x59, 0x44,
    ])

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// `validBytes` holds 16 bytes.
    private init(validBytes: [UInt8]) {
        self.init(high: Self.word(validBytes[0..<8]), low: Self.word(validBytes[8..<16]))
    }

    /// Eight bytes as a big-endian word.
    private static func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Parses the canonical 8-4-4-4-12 form, in either case. Nil when APNs would answer `BadMessageId`.
    /// Reads the string's bytes in place into the two words: every answer from APNs and every
    /// request to the simulator carries one.
    public init?(_ text: String) {
        var text = text
        guard let words = text.withUTF8(Self.words) else { return nil }
        self.init(high: words.high, low: words.low)
    }

    /// Parses the canonical form from UTF-8 bytes, as ``init(_:)`` does a `String`: for a reader
    /// that has the header's bytes and no `String` of them.
    public init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard let words = Self.words(utf8) else { return nil }
        self.init(high: words.high, low: words.low)
    }

    /// The two words of 36 bytes of 8-4-4-4-12 hex, or nil when they are not that.
    private static func words(_ utf8: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64)? {
        guard utf8.count == 36, utf8[8] == UInt8(ascii: "-"), utf8[13] == UInt8(ascii: "-"),
              utf8[18] == UInt8(ascii: "-"), utf8[23] == UInt8(ascii: "-") else { return nil }
        // Each group of digits is read as one number (8-4-4 into the high word, 4-12 into the low);
        // every digit's value is ORed into `invalid`, where a byte that is no hex digit sets the
        // high bits.
        let base = utf8.baseAddress!
        return hexValues.withUnsafeBufferPointer { values in
            var invalid: UInt64 = 0
            let high = hex(base, 8, values, &invalid) << 32 | hex(base + 9, 4, values, &invalid) << 16
                | hex(base + 14, 4, values, &invalid)
            let low = hex(base + 19, 4, values, &invalid) << 48 | hex(base + 24, 12, values, &invalid)
            return invalid <= 0xF ? (high, low) : nil
        }
    }

    /// The value of `count` hex digits at `digits` (at most 16), ORing each digit's value into
    /// `invalid`. The digits' values are looked up in `values` (``hexValues``) rather than branched
    /// on: digits and letters alternate at random in an id, and each mispredicted branch cost more
    /// than the rest of the digit's work.
    @inline(__always)
    private static func hex(_ digits: UnsafePointer<UInt8>, _ count: Int, _ values: UnsafeBufferPointer<Int8>,
                            _ invalid: inout UInt64) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<count {
            let digit = UInt64(bitPattern: Int64(values[Int(digits[index])]))
            invalid |= digit
            value = value << 4 | digit & 0xF
        }
        return value
    }

    /// Each byte's hex value, -1 for a byte that is no hex digit.
    private static let hexValues: [Int8] = (0...255).map { byte -> Int8 in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int8(byte) - Int8(UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int8(byte) - Int8(UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int8(byte) - Int8(UInt8(ascii: "A")) + 10
        default: -1
        }
    }

    /// A random (version 4) id.
    public static func random() -> NotificationID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A random (version 4) id from `generator`: two 64-bit draws, so a system generator costs two
    /// calls, not sixteen.
    public static func random(using generator: inout some RandomNumberGenerator) -> NotificationID {
        let high: UInt64 = generator.next()
        let low: UInt64 = generator.next()
        // Byte 6's high nibble is the version (4); byte 8's top two bits the variant (10).
        return NotificationID(high: high & ~0xF000 | 0x4000, low: low & ~(0xC0 << 56) | 0x80 << 56)
    }

    /// A name-based (version 5, SHA-1) id in `namespace` (RFC 9562 §5.5).
    public static func nameBased(_ name: [UInt8], namespace: NotificationID) -> NotificationID {
        var hasher = SHA1()
        namespace.update(&hasher)
        hasher.update(name)
        return version5(hasher)
    }

    /// The deterministic id of one delivery: the same (intent, device) always yields the same id.
    /// The name is the intent id's UTF-8, a NUL byte, and the token's lower-case hex; hex holds no
    /// NUL, so no two (intent, token) pairs share a name. The parts are hashed where they lie.
    public static func derived(intentID: String, deviceToken: DeviceToken) -> NotificationID {
        var hasher = SHA1()
        pushlineNamespace.update(&hasher)
        hasher.update(intentID.utf8)
        hasher.update(0)
        hasher.update(deviceToken.hex.utf8)
        return version5(hasher)
    }

    /// The id made of the first 16 bytes of the name's digest, with the version and variant bits set.
    private static func version5(_ hasher: consuming SHA1) -> NotificationID {
        let digest = hasher.finalizeWords()
        let high = UInt64(digest.0) << 32 | UInt64(digest.1)
        let low = UInt64(digest.2) << 32 | UInt64(digest.3)
        // Byte 6's high nibble is the version (5); byte 8's top two bits the variant (10).
        return NotificationID(high: high & ~0xF000 | 0x5000, low: low & ~(0xC0 << 56) | 0x80 << 56)
    }

    /// Feeds the id's 16 bytes to `hasher` straight from its words: every delivery's id hashes
    /// the name-space, and an array of its bytes cost an allocation each time.
    private func update(_ hasher: inout SHA1) {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { hasher.update($0) }
    }

    /// Lower-case 8-4-4-4-12.
    public var description: String { text(upperCase: false) }

    /// Upper-case 8-4-4-4-12, as APNs has been seen generating ids.
    public var upperCaseDescription: String { text(upperCase: true) }

    /// Lends the lower-case 8-4-4-4-12 text as UTF-8, written on the stack: a request's `apns-id`
    /// goes into its header fields without a `String` made and freed per request.
    /// (Not generic: a generic result type costs a metadata lookup per call from another module.)
    public func withUTF8Description(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.textLength) { text in
            body(UnsafeBufferPointer(rebasing: text[..<write(into: text, digits: Self.lowerCaseDigits)]))
        }
    }

    /// 8-4-4-4-12 written straight into the string's storage: ids are generated per request.
    private func text(upperCase: Bool) -> String {
        String(unsafeUninitializedCapacity: Self.textLength) { write(into: $0, digits: upperCase ? Self.upperCaseDigits : Self.lowerCaseDigits) }
    }

    /// Writes 8-4-4-4-12 with `digits` into `text` (room for ``textLength`` bytes); returns the count.
    /// The bytes are read from the two words in place, the digits from static text; group by group,
    /// each after its dash, so no byte asks whether a dash comes first.
    private func write(into text: UnsafeMutableBufferPointer<UInt8>, digits: StaticString) -> Int {
        let digits = digits.utf8Start
        var next = text.baseAddress!
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { bytes in
            // The bytes of `range`, after a dash unless they are the first.
            @inline(__always) func group(_ range: Range<Int>) {
                if range.lowerBound > 0 {
                    next.initialize(to: UInt8(ascii: "-"))
                    next += 1
                }
                for index in range {
                    next[0] = digits[Int(bytes[index] >> 4)]
                    next[1] = digits[Int(bytes[index] & 0x0F)]
                    next += 2
                }
            }
            group(0..<4)
            group(4..<6)
            group(6..<8)
            group(8..<10)
            group(10..<16)
        }
        return Self.textLength
    }

    /// The length of the 8-4-4-4-12 text.
    private static var textLength: Int { 36 }

    /// Byte `index` (0 to 15) of the UUID.
    private func byte(_ index: Int) -> UInt8 {
        let word = index < 8 ? high : low
        return UInt8(truncatingIfNeeded: word >> UInt64(8 * (7 - index % 8)))
    }

    private static var lowerCaseDigits: StaticString { "0123456789abcdef" }
    private static var upperCaseDigits: StaticString { "0123456789ABCDEF" }
}
