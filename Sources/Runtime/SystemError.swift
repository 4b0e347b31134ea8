#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which call, on what, and `errno` with its text.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    public let call: String
    public let errorNumber: Int32

    public init(_ call: String, errorNumber: Int32 = errno) {
        self.call = call
        self.errorNumber = errorNumber
    }

    /// `errorNumber` 0 means the failure is described by `call` alone (for example a resolver error).
    public var description: String {
        errorNumber == 0 ? call : "\(call): \(String(cString: strerror(errorNumber))) (errno \(errorNumber))"
    }
}
