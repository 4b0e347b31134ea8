import Foundation
import Synchronization
import Telemetry
import Testing

/// A ``LogLineWriter`` that keeps every line in memory, for tests.
final class LineCollector: LogLineWriter {
    private let lines = Mutex<[[UInt8]]>([])

    func write(line: [UInt8]) {
        lines.withLock { $0.append(line) }
    }

    /// Every line written so far, each parsed as a JSON object by Foundation.
    func parsedObjects() throws -> [[String: Any]] {
        try lines.withLock { $0 }.map { line in
            #expect(line.last == UInt8(ascii: "\n"), "a log line ends with a newline")
            let object = try JSONSerialization.jsonObject(with: Data(line.dropLast()))
            return try #require(object as? [String: Any])
        }
    }

    /// A logger at `level` writing into this collector.
    func logger(label: String = "pushline.test", level: Logger.Level = .trace) -> Logger {
        Logger(label: label) { JSONLogHandler(label: $0, logLevel: level, writer: self) }
    }
}
