/// Why a ``FileLogWriter`` could not open its file.
public struct LogFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file that was asked for.
    public let path: String
    /// `errno` from `open`, for example `EACCES` (13).
    public let errorNumber: Int32

    /// The failure to open `path` with `errno` `errorNumber`.
    public init(path: String, errorNumber: Int32) {
        self.path = path
        self.errorNumber = errorNumber
    }

    public var description: String { "cannot open the log file \(path) (errno \(errorNumber))" }
}
