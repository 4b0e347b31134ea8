import Foundation
import Synchronization

/// The result of running a program to completion.
public struct CommandResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
}

/// Runs programs to completion: independent tools (`openssl`, `redis-cli`, `redis-benchmark`,
/// `h2load`) and Pushline's own executables, for tests, benchmarks and the demo.
public enum ExternalCommand {
    /// Runs `executable` with `arguments` and waits for it. Throws when it cannot be started, with a
    /// message naming the program, so a missing tool fails clearly (a test fails instead of skipping).
    /// `environment` adds to (or replaces in) this process's environment; `currentDirectory` is the
    /// program's working directory (by default this process's).
    ///
    /// With a `timeLimit`, a program still running when it passes is killed together with every
    /// process it started, and the call throws with the end of its standard error: a benchmark run
    /// by a test that gives up on it leaves no `pushline run`, `apns-sim` or `redis-server` behind
    /// (``CommandTimeLimit``). Foundation's `Process` starts each program in a process group of its
    /// own, and the servers the program starts (``ServerProcess``) stay in it, so one `SIGKILL` to
    /// the group reaches all of them. (`PR_SET_PDEATHSIG` would not do: it fires when the *thread*
    /// that started the child ends, and servers here are started from threads that end before them,
    /// `DedicatedThread`'s.) Programs the program runs to completion through this call are in groups
    /// of their own and are not killed; they end by themselves.
    public static func run(_ executable: String, _ arguments: [String], standardInput: Data? = nil,
                           environment: [String: String] = [:], currentDirectory: String? = nil,
                           timeLimit: Duration? = nil) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        let output = Pipe()
        let error = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        do {
            try process.run()
        } catch {
            throw LocalStackError("cannot start \(executable): \(error)")
        }
        let limit = timeLimit.map { CommandTimeLimit($0, processGroup: process.processIdentifier) }
        if let standardInput { input.fileHandleForWriting.write(standardInput) }
        try? input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        let errorData = Mutex(Data())
        let errorRead = DispatchGroup()
        DispatchQueue.global().async(group: errorRead) {
            let data = error.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        if let limit, limit.finish() {
            throw LocalStackError("\(executable) did not finish within \(limit.duration): it was killed with the processes it started; "
                                  + "its standard error ended: \(String(decoding: errorData.withLock { $0 }, as: UTF8.self).suffix(3000))")
        }
        return CommandResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.withLock { $0 }, as: UTF8.self)
        )
    }

    /// The absolute path of a program on `PATH`, or a thrown error naming the Debian package to install.
    public static func locate(_ program: String, package: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw LocalStackError("\(program) is not installed (Debian package \(package)); `scripts/setup.sh` installs it, and `make test` and `make run` call that")
    }
}
