/// A value written into a JSON document as a string, straight from its bytes: text, or a value
/// that lends its own text without a `String` made first (a notification id, in every outcome
/// record).
public protocol JSONStringValue {
    /// Lends the value's text as UTF-8, unescaped: the writer escapes what JSON requires.
    func withJSONStringUTF8(_ body: (UnsafeBufferPointer<UInt8>) -> Void)
}

extension String: JSONStringValue {
    @inlinable
    public func withJSONStringUTF8(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if utf8.withContiguousStorageIfAvailable(body) == nil {
            var contiguous = self
            contiguous.withUTF8(body)
        }
    }
}

extension NotificationID: JSONStringValue {
    /// Its canonical lower-case text.
    public func withJSONStringUTF8(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withUTF8Description(body)
    }
}
