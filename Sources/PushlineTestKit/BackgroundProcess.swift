import Foundation
import Synchronization

/// A program a test starts and leaves running, such as `pushline dev-kafka`: read its first line of
/// output, then stop it with a signal. Every wait has a deadline; a process still running when this
/// object goes away is killed.
public final class BackgroundProcess {
    private let process = Process()
    private let output = Pipe()
    private let errorLog: URL
    private let description: String

    /// Starts `executable`; its standard error goes to a file that failure messages quote.
    public init(_ executable: String, _ arguments: [String]) throws {
        description = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
        errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-background-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: errorLog.path, contents: nil) else {
            throw TestKitError("cannot create \(errorLog.path) for the standard error of \(description)")
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw TestKitError("cannot start \(executable): \(error)")
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: errorLog)
    }

    /// What the process has written to standard error so far.
    public var standardError: String {
        (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
    }

    /// The first line of standard output, without its newline; throws if none comes within `timeout`.
    public func firstLine(timeout: Duration = .seconds(30)) throws -> String {
        let line = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let handle = output.fileHandleForReading
        Thread {
            var bytes: [UInt8] = []
            var byte: UInt8 = 0
            while read(handle.fileDescriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
            line.withLock { $0 = String(decoding: bytes, as: UTF8.self) }
            done.signal()
        }.start()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard done.wait(timeout: .now() + seconds) == .success, let first = line.withLock({ $0 }) else {
            throw TestKitError("\(description) printed no line within \(timeout); standard error: \(standardError)")
        }
        return first
    }

    /// Sends `signal` and waits up to `timeout` for the process to exit; returns its exit status.
    /// Throws when it does not exit in time (it is then killed) or dies of a signal.
    public func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(10)) throws -> Int32 {
        kill(process.processIdentifier, signal)
        let deadline = Deadline(timeout, waitingFor: "\(description) to exit after signal \(signal)")
        while process.isRunning {
            if deadline.hasPassed {
                kill(process.processIdentifier, SIGKILL)
                try deadline.check()
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        guard process.terminationReason == .exit else {
            throw TestKitError("\(description) died of signal \(process.terminationStatus); standard error: \(standardError)")
        }
        return process.terminationStatus
    }
}
