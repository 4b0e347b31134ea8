import Foundation
import Synchronization
import Telemetry
import Testing

@Suite("Logger: JSON lines")
struct LoggerTests {
    @Test("a line is one JSON object with ts, level, label, message and the metadata")
    func lineCarriesFieldsAndMetadata() throws {
        let collector = LineCollector()
        let logger = collector.logger(label: "pushline.sender")
        logger.info("pool opened", metadata: ["pool": "production", "connections": "\(4)"])
        let object = try #require(try collector.parsedObjects().first)
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "pushline.sender")
        #expect(object["message"] as? String == "pool opened")
        #expect(object["pool"] as? String == "production")
        #expect(object["connections"] as? String == "4")
        let timestamp = try #require(object["ts"] as? String)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: timestamp), "ts \(timestamp) is RFC 3339 with milliseconds")
        #expect(abs(date.timeIntervalSinceNow) < 60)
        #expect(timestamp.hasSuffix("Z"))
    }

    @Test("quotes, backslashes, newlines and control characters in values keep the line whole")
    func valuesAreEscaped() throws {
        let collector = LineCollector()
        let nasty = "a\"b\\c\nd\u{01}é\"}, \"level\": \"critical"
        collector.logger().warning("message with \"quotes\"\nand a newline", metadata: ["detail": .string(nasty)])
        let objects = try collector.parsedObjects()
        #expect(objects.count == 1)
        #expect(objects[0]["detail"] as? String == nasty)
        #expect(objects[0]["level"] as? String == "warning")
        #expect(objects[0]["message"] as? String == "message with \"quotes\"\nand a newline")
    }

    @Test("the call's metadata wins over the logger's; nested values stay nested")
    func metadataMergesAndNests() throws {
        let collector = LineCollector()
        var logger = collector.logger()
        logger[metadataKey: "pool"] = "sandbox"
        logger[metadataKey: "worker"] = "w1"
        logger.error("send failed", metadata: [
            "pool": "production", "attempts": ["1", "2"], "peer": ["host": "api.push.apple.com"], "status": .stringConvertible(503),
        ])
        let object = try #require(try collector.parsedObjects().first)
        #expect(object["pool"] as? String == "production")
        #expect(object["worker"] as? String == "w1")
        #expect(object["status"] as? String == "503")
        #expect(object["attempts"] as? [String] == ["1", "2"])
        #expect((object["peer"] as? [String: Any])?["host"] as? String == "api.push.apple.com")
    }

    @Test("a metadata key named like a line field is written as metadata.<key>")
    func reservedKeysAreRenamed() throws {
        let collector = LineCollector()
        collector.logger(label: "pushline.real").info("real message", metadata: ["message": "spoofed", "label": "spoofed"])
        let object = try #require(try collector.parsedObjects().first)
        #expect(object["message"] as? String == "real message")
        #expect(object["label"] as? String == "pushline.real")
        #expect(object["metadata.message"] as? String == "spoofed")
        #expect(object["metadata.label"] as? String == "spoofed")
    }

    @Test("values of secret-looking keys are redacted at any depth; others are not")
    func secretLookingKeysAreRedacted() throws {
        let collector = LineCollector()
        collector.logger().info("connecting", metadata: [
            "password": "hunter2", "device_token": "abcd", "apiKey": "k", "Authorization": "bearer x",
            "client-secret": "s", "refresh_tokens": "t1", "HTTPAuthorization": "basic y", "APNsToken": "z",
            "monkey": "banana", "tokenizer": "t", "pool": "production",
            "peer": ["auth_token": "nested", "host": "h"],
        ])
        let object = try #require(try collector.parsedObjects().first)
        for key in ["password", "device_token", "apiKey", "Authorization", "client-secret", "refresh_tokens", "HTTPAuthorization",
                    "APNsToken"] {
            #expect(object[key] as? String == "[REDACTED]", "\(key) is redacted")
        }
        #expect(object["monkey"] as? String == "banana")
        #expect(object["tokenizer"] as? String == "t")
        #expect(object["pool"] as? String == "production")
        let peer = try #require(object["peer"] as? [String: Any])
        #expect(peer["auth_token"] as? String == "[REDACTED]")
        #expect(peer["host"] as? String == "h")
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        #expect(!text.contains("hunter2") && !text.contains("bearer"))
    }

    @Test("levels below logLevel are not written and their message is not evaluated")
    func levelFilters() throws {
        let collector = LineCollector()
        var logger = collector.logger(level: .warning)
        let evaluations = Atomic<Int>(0)
        func expensive() -> Logger.Message {
            evaluations.add(1, ordering: .relaxed)
            return "expensive"
        }
        logger.debug(expensive())
        logger.info("info")
        logger.warning("warning")
        logger.logLevel = .trace
        logger.trace("trace")
        logger.notice("notice")
        logger.critical("critical")
        let levels = try collector.parsedObjects().compactMap { $0["level"] as? String }
        #expect(levels == ["warning", "trace", "notice", "critical"])
        #expect(evaluations.load(ordering: .relaxed) == 0)
    }

    @Test("lines from many threads into one file never interleave")
    func fileWriterKeepsLinesWhole() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-log-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try FileLogWriter(path: path)
        let logger = Logger(label: "pushline.test") { JSONLogHandler(label: $0, writer: writer) }
        let padding = String(repeating: "x", count: 2_000)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<250 {
                        logger.info("line", metadata: ["task": "\(task)", "index": "\(index)", "padding": .string(padding)])
                    }
                }
            }
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2_000)
        var seen = Set<String>()
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            seen.insert("\(object["task"] ?? "")/\(object["index"] ?? "")")
        }
        #expect(seen.count == 2_000)
    }

    @Test("a log file that cannot be opened is an error naming the path")
    func unopenableFileIsAnError() {
        let error = #expect(throws: LogFileError.self) {
            try FileLogWriter(path: "/nonexistent-directory/pushline.log")
        }
        #expect(error?.path == "/nonexistent-directory/pushline.log")
        #expect(error?.errorNumber == ENOENT)
    }
}
