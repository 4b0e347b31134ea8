#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writes log lines to standard error or to a file opened for appending. Each line goes out in
/// whole `write` calls under a lock, so lines from different threads never interleave; with
/// `O_APPEND`, lines from other processes appending to the same file do not either.
///
/// A line that cannot be written (a closed pipe, a full disk) is dropped: logging never stops the
/// process.
public final class FileLogWriter: LogLineWriter {
    /// The process's standard error (never closed).
    public static let standardError = FileLogWriter(descriptor: STDERR_FILENO, ownsDescriptor: false)

    private let descriptor: Mutex<Int32>
    private let ownsDescriptor: Bool

    /// Appends to the file at `path`, creating it (mode 0640) when missing.
    public init(path: String) throws(LogFileError) {
        let opened = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard opened >= 0 else { throw LogFileError(path: path, errorNumber: errno) }
        descriptor = Mutex(opened)
        ownsDescriptor = true
    }

    private init(descriptor: Int32, ownsDescriptor: Bool) {
        self.descriptor = Mutex(descriptor)
        self.ownsDescriptor = ownsDescriptor
    }

    deinit {
        if ownsDescriptor { close(descriptor.withLock { $0 }) }
    }

    public func write(line: [UInt8]) {
        descriptor.withLock { descriptor in
            line.withUnsafeBytes { bytes in
                guard let start = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(descriptor, start + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }
}
