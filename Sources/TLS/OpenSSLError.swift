internal import COpenSSL

/// An error from OpenSSL, with the operation that failed and OpenSSL's own reason.
///
/// The message comes from OpenSSL's error queue, which names algorithms and parse failures but
/// never key material, so it is safe to log.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What Pushline was doing, for example "read ES256 private key".
    public let operation: String
    /// OpenSSL's reason for the first queued error, or "unknown error" when the queue was empty.
    public let reason: String

    public var description: String { "\(operation): \(reason)" }

    /// Captures and clears OpenSSL's thread-local error queue.
    static func drainingQueue(operation: String) -> OpenSSLError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return OpenSSLError(operation: operation, reason: "unknown error") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = buffer.withUnsafeBufferPointer { pointer in
            String(decoding: pointer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return OpenSSLError(operation: operation, reason: text)
    }
}
