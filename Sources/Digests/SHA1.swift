import CDigests

/// SHA-1 (FIPS 180-4), the project's one: for name-based UUIDs (RFC 9562 version 5, every
/// delivery's `apns-id`) and the names Redis gives Lua scripts, both defined on it. Not for
/// anything that needs collision resistance.
///
/// The message is fed in pieces with ``update(_:)``, so a caller hashes its parts where they lie
/// instead of joining them first; the state, the pending block and the message schedule stay off
/// the heap, since every delivery's `apns-id` costs one digest. Each block is compressed with the
/// CPU's SHA extensions where it has them (``Compression/extensions``), else in Swift.
public struct SHA1: Sendable {
    /// How a block is compressed into the state.
    public enum Compression: Sendable, Equatable {
        /// In Swift, on any CPU: the reference.
        case portable
        /// With x86-64's SHA extensions (SHA-NI), in C (`CDigests`): only where the CPU has them.
        case extensions
    }

    /// The fastest this CPU offers: ``Compression/extensions`` when it has them, else ``Compression/portable``.
    public static let fastestCompression: Compression = pushline_sha1_has_extensions() == 1 ? .extensions : .portable

    private static let blockSize = 64
    /// Where the message length goes in the last block.
    private static let lengthOffset = 56

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    /// Bytes of the block being filled; a tuple so that it lives inline.
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var blockFill = 0
    private var messageLength: UInt64 = 0
    private let compression: Compression

    /// A hasher with an empty message, compressing the fastest way this CPU can (or as told: a
    /// benchmark or test compares the two; ``Compression/extensions`` needs a CPU that has them).
    public init(compression: Compression = fastestCompression) {
        precondition(compression == .portable || Self.fastestCompression == .extensions,
                     "this CPU has no SHA extensions")
        self.compression = compression
    }

    /// The digest of `message`, 20 bytes.
    public static func digest(_ message: [UInt8]) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(message)
        return hasher.finalize()
    }

    /// Appends bytes to the message.
    @inlinable
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let copied: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if copied == nil {
            for byte in bytes { update(byte) }
        }
    }

    /// Appends one byte to the message.
    public mutating func update(_ byte: UInt8) {
        withUnsafeBytes(of: byte) { update($0) }
    }

    /// Appends the bytes in `buffer` to the message, compressing each block as it fills.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        messageLength &+= UInt64(buffer.count)
        var offset = 0
        while offset < buffer.count {
            let taken = min(Self.blockSize - blockFill, buffer.count - offset)
            let fill = blockFill
            withUnsafeMutableBytes(of: &block) { block in
                block.baseAddress!.advanced(by: fill).copyMemory(from: buffer.baseAddress! + offset, byteCount: taken)
            }
            blockFill += taken
            offset += taken
            if blockFill == Self.blockSize {
                compressBlock()
                blockFill = 0
            }
        }
    }

    /// Pads the message (a 1 bit, zeros, the length in bits) and returns the digest, 20 bytes.
    public consuming func finalize() -> [UInt8] {
        let words = finalizeWords()
        return withUnsafeBytes(of: (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian,
                                    words.4.bigEndian)) { Array($0) }
    }

    /// The digest as its five big-endian words, without an array: for a caller that keeps a
    /// few of its bytes.
    public consuming func finalizeWords() -> (UInt32, UInt32, UInt32, UInt32, UInt32) {
        let bitLength = messageLength &* 8
        let fill = blockFill
        withUnsafeMutableBytes(of: &block) { block in
            block[fill] = 0x80
            for index in (fill + 1)..<Self.blockSize { block[index] = 0 }
        }
        // No room for the length after the 1 bit: it goes in a block of its own.
        if fill >= Self.lengthOffset {
            compressBlock()
            block = (0, 0, 0, 0, 0, 0, 0, 0)
        }
        block.7 = bitLength.bigEndian
        compressBlock()
        return state
    }

    private mutating func compressBlock() {
        switch compression {
        case .portable:
            Self.compress(block, into: &state)
        case .extensions:
            withUnsafeBytes(of: block) { block in
                withUnsafeMutableBytes(of: &state) { state in
                    pushline_sha1_compress_extensions(state.baseAddress!.assumingMemoryBound(to: UInt32.self), block.baseAddress!, 1)
                }
            }
        }
    }

    private static func compress(_ block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64),
                                 into state: inout (UInt32, UInt32, UInt32, UInt32, UInt32)) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { words in
            withUnsafeBytes(of: block) { bytes in
                for index in 0..<16 {
                    words[index] = UInt32(bigEndian: bytes.load(fromByteOffset: index * 4, as: UInt32.self))
                }
            }
            for index in 16..<80 {
                words[index] = rotateLeft(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], by: 1)
            }
            var (a, b, c, d, e) = state
            func round(_ index: Int, _ f: UInt32, _ k: UInt32) {
                let temporary = rotateLeft(a, by: 5) &+ f &+ e &+ k &+ words[index]
                (e, d, c, b, a) = (d, c, rotateLeft(b, by: 30), a, temporary)
            }
            for index in 0..<20 { round(index, (b & c) | (~b & d), 0x5A82_7999) }
            for index in 20..<40 { round(index, b ^ c ^ d, 0x6ED9_EBA1) }
            for index in 40..<60 { round(index, (b & c) | (b & d) | (c & d), 0x8F1B_BCDC) }
            for index in 60..<80 { round(index, b ^ c ^ d, 0xCA62_C1D6) }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
    }

    private static func rotateLeft(_ value: UInt32, by count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
