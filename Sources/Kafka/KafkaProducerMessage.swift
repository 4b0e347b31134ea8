/// A message for ``KafkaProducer/send(_:)``. librdkafka copies its bytes, so they may be reused as
/// soon as `send` returns.
public struct KafkaProducerMessage: Sendable {
    public var topic: String
    /// The partition, or `nil` to let the partitioner choose from the key.
    public var partition: Int32?
    /// The key's bytes, or `nil` when the message has none. A text key (``init(topic:partition:textKey:value:)``)
    /// reads as its UTF-8.
    public var key: [UInt8]? {
        get {
            switch storedKey {
            case .bytes(let bytes)?: bytes
            case .text(let text)?: Array(text.utf8)
            case nil: nil
            }
        }
        set { storedKey = newValue.map(Key.bytes) }
    }
    /// The value, or `nil` for a tombstone.
    public var value: [UInt8]?
    /// The key as it was given: a text key is kept as its string, so keying a record by an id the
    /// caller holds anyway (every outcome by its intent's) copies no bytes until librdkafka does.
    private var storedKey: Key?

    private enum Key: Sendable {
        case bytes([UInt8])
        case text(String)
    }

    public init(topic: String, partition: Int32? = nil, key: [UInt8]? = nil, value: [UInt8]?) {
        self.topic = topic
        self.partition = partition
        self.storedKey = key.map(Key.bytes)
        self.value = value
    }

    /// A message keyed by text, produced as the text's UTF-8 bytes.
    public init(topic: String, partition: Int32? = nil, textKey: String?, value: [UInt8]?) {
        self.topic = topic
        self.partition = partition
        self.storedKey = textKey.map(Key.text)
        self.value = value
    }

    /// Lends the key's bytes to `body` where they lie (an empty buffer with no base address when
    /// the message has no key).
    func withKeyBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storedKey {
        case .bytes(let bytes)?:
            return withOptionalBytes(bytes, body)
        case .text(let text)?:
            // The bytes where they lie (a small string's, kept inline, from a copy on the stack), with
            // no retain of the string; one without contiguous UTF-8 is made contiguous first.
            if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
            var copy = text
            return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        case nil:
            return withOptionalBytes(nil, body)
        }
    }

    /// Lends the value's bytes to `body` (an empty buffer with no base address for a tombstone).
    func withValueBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withOptionalBytes(value, body)
    }
}

/// Lends `bytes` to C for one call; `nil` becomes a null pointer (no key, or a tombstone value).
private func withOptionalBytes<Result>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    guard let bytes else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    return bytes.withUnsafeBytes(body)
}
