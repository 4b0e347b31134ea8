import Foundation
import Kafka
import PushlineTestKit
import Testing

/// `pushline outcomes report` and `export` as subprocesses, reading what a real pipeline wrote for
/// the demo's examples (``OutputTopicsFixture``), plus one byte copy of an outcome.
@Suite("pushline outcomes", .serialized, .timeLimit(.minutes(3)))
struct OutcomesCommandTests {
    @Test("report --format json: the funnel by status and reason, the copy counted once, the unregistered token, the dead letter's reason")
    func reportsFunnelOnce() async throws {
        let fixture = try await DedicatedThread.run { try OutputTopicsFixture() }
        let result = try await pushlineOffPool(["outcomes", "report", "--brokers", fixture.brokers, "--format", "json", "--list-tokens"])
        // The same through the worker settings `pushline run` reads: Kafka and the pipelines' topics.
        let config = try LocalRunConfiguration(bootstrapServers: fixture.brokers, redisPort: 6379, simulatorPort: 2197,
                                               caFile: DevCredentials.publicKeyFile).write()
        let throughConfig = try await pushlineOffPool(["outcomes", "report", "--config", config, "--format", "json"])
        try await DedicatedThread.run { try fixture.stop() }
        #expect(throughConfig.status == 0, "\(throughConfig.standardError)")
        #expect(jsonObject(throughConfig.standardOutput)["deliveries"] as? Int == 10)
        #expect((jsonObject(throughConfig.standardOutput)["dead_letters"] as? [String: Any])?["topic"] as? String == "pushline.dlq")

        #expect(result.status == 0, "\(result.standardError)")
        let report = jsonObject(result.standardOutput)
        #expect(report["records_read"] as? Int == 11)
        #expect(report["deliveries"] as? Int == 10)
        #expect(report["copies"] as? Int == 1)
        #expect(report["differing_copies"] as? Int == 0)
        #expect(report["unreadable"] as? Int == 0)
        let byStatus = report["by_status"] as? [String: Int] ?? [:]
        #expect(byStatus == ["accepted": 7, "rejected": 1, "suppressed": 1, "failed": 0, "invalid": 1, "expired": 0, "unknown": 0])

        let funnel = report["funnel"] as? [[String: Any]] ?? []
        #expect(funnel.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == 10)
        func line(_ status: String, _ reason: String?) -> [String: Any]? {
            funnel.first { $0["status"] as? String == status && $0["reason"] as? String == reason }
        }
        #expect(line("rejected", "Unregistered")?["count"] as? Int == 1)
        #expect(line("suppressed", "DuplicateIntent")?["count"] as? Int == 1)
        #expect(line("invalid", "MalformedJSON")?["count"] as? Int == 1)
        let backgroundSync = funnel.first { $0["template"] as? String == "background_sync" }
        #expect(backgroundSync?["push_type"] as? String == "background")
        #expect(backgroundSync?["status"] as? String == "accepted")
        // Latency: the intent's created_at to the outcome's completed_at, for the outcomes that have both.
        let latencies = fixture.outcomes.map(jsonObject).compactMap { outcome -> Int? in
            guard let created = outcome["created_at"] as? Int, let completed = outcome["completed_at"] as? Int else { return nil }
            return completed - created
        }
        let overall = report["latency_ms"] as? [String: Any] ?? [:]
        #expect(overall["count"] as? Int == latencies.count)
        #expect(overall["max"] as? Double == Double(latencies.max() ?? -1))

        let tokens = report["gone_tokens"] as? [String: Any] ?? [:]
        #expect(tokens["count"] as? Int == 1)
        let listed = tokens["tokens"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["token"] as? String } == [OutputTopicsFixture.unregisteredToken])
        #expect(listed.first?["reason"] as? String == "Unregistered")
        #expect(listed.first?["at"] as? Int == Int(OutputTopicsFixture.unregisteredAt))

        let deadLetters = report["dead_letters"] as? [String: Any] ?? [:]
        #expect(deadLetters["count"] as? Int == 1)
        #expect((deadLetters["reasons"] as? [[String: Any]])?.map { $0["reason"] as? String } == ["MalformedJSON"])
        #expect(result.standardError.contains("pushline outcomes report: pushline.outcomes 9/9 records"))
    }

    @Test("report as a table and as CSV; a time range that holds nothing reports nothing; the reader commits no offset")
    func reportsTableCSVAndRange() async throws {
        let fixture = try await DedicatedThread.run { try OutputTopicsFixture() }
        let table = try await pushlineOffPool(["outcomes", "report", "--brokers", fixture.brokers])
        let csv = try await pushlineOffPool(["outcomes", "report", "--brokers", fixture.brokers, "--format", "csv"])
        let tokensCSV = try await pushlineOffPool(["outcomes", "report", "--brokers", fixture.brokers, "--format", "csv", "--list-tokens"])
        let future = try await pushlineOffPool(["outcomes", "report", "--brokers", fixture.brokers, "--format", "json",
                                                "--since", "2100-01-01T00:00:00Z"])
        let committed = try await DedicatedThread.run { () throws -> [KafkaTopicPartition: Int64] in
            let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(bootstrapServers: fixture.brokers,
                                                                                       groupID: "pushline-reader", topics: []))
            defer { try? consumer.close() }
            return try consumer.committedOffsets(for: [KafkaTopicPartition(topic: OutputTopicsFixture.outcomesTopic, partition: 0)],
                                                 timeout: .seconds(10))
        }
        try await DedicatedThread.run { try fixture.stop() }

        #expect(table.status == 0, "\(table.standardError)")
        let rows = table.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.contains(["==", "Outcomes", "(pushline.outcomes):", "10", "deliveries", "from", "11", "records;", "1", "copies", "of", "a",
                               "delivery", "counted", "once", "(0", "not", "byte", "for", "byte", "the", "first);", "0", "unreadable;", "0",
                               "outside", "the", "time", "range"]))
        #expect(rows.contains(["accepted", "7"]))
        #expect(rows.contains(["==", "Unregistered", "or", "expired", "tokens:", "1"]))
        #expect(rows.contains(["MalformedJSON", "1"]))

        #expect(csv.status == 0, "\(csv.standardError)")
        let csvLines = csv.standardOutput.split(separator: "\n").map(String.init)
        #expect(csvLines.first == "app,template,push_type,locale,status,reason,count,p50_ms,p90_ms,p99_ms,max_ms")
        #expect(csvLines.dropFirst().reduce(0) { $0 + (Int($1.split(separator: ",", omittingEmptySubsequences: false)[6]) ?? 0) } == 10)
        #expect(tokensCSV.standardOutput.split(separator: "\n").map(String.init)
            == ["app,environment,token,reason,at",
                "com.example.pushline,sandbox,\(OutputTopicsFixture.unregisteredToken),Unregistered,\(OutputTopicsFixture.unregisteredAt)"])

        #expect(future.status == 0, "\(future.standardError)")
        let empty = jsonObject(future.standardOutput)
        #expect(empty["deliveries"] as? Int == 0)
        #expect(empty["outside_range"] as? Int == 11)
        #expect((empty["dead_letters"] as? [String: Any])?["count"] as? Int == 0)
        #expect(committed.isEmpty, "a report commits no offset: \(committed)")
    }

    @Test("export writes each delivery's outcome once, byte for byte; --all-copies keeps the copy")
    func exportsJSONLines() async throws {
        let fixture = try await DedicatedThread.run { try OutputTopicsFixture() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushline-export-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let once = try await pushlineOffPool(["outcomes", "export", "--brokers", fixture.brokers, "--output", directory + "/once.jsonl"])
        let all = try await pushlineOffPool(["outcomes", "export", "--brokers", fixture.brokers, "--all-copies"])
        try await DedicatedThread.run { try fixture.stop() }

        #expect(once.status == 0, "\(once.standardError)")
        let written = try String(contentsOfFile: directory + "/once.jsonl", encoding: .utf8)
        #expect(written == fixture.outcomes.map { String(decoding: $0, as: UTF8.self) + "\n" }.joined())
        #expect(once.standardError.contains("8 outcome(s) written, 1 copies of a delivery left out, 0 unreadable record(s) left out"))
        #expect(all.status == 0, "\(all.standardError)")
        #expect(all.standardOutput.split(separator: "\n").count == 11)
        let lines = written.split(separator: "\n").map { Array($0.utf8) }
        #expect(try JSONSchemaValidator.problems(of: lines, schemaFile: RepositoryPaths.file("Config/schemas/outcome-v1.schema.json"))
            == Array(repeating: [], count: lines.count))
    }

    @Test("--help of each command that reads the output topics", arguments: [["outcomes", "report"], ["outcomes", "export"], ["dlq", "replay"]])
    func commandHelp(words: [String]) async throws {
        let result = try await pushlineOffPool(words + ["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Usage: pushline \(words.joined(separator: " ")) (--config FILE | --brokers LIST)"))
        #expect(result.standardOutput.contains("--since TIME"))
    }

    @Test("errors say what and where: no Kafka given, a bad time, a topic the cluster does not have")
    func reportsErrors() async throws {
        let cluster = try KafkaMockCluster(brokers: 1)
        let missingKafka = try await pushlineOffPool(["outcomes", "report"])
        #expect(missingKafka.status == 2)
        #expect(missingKafka.standardError.contains("pushline outcomes report: give --config FILE or --brokers LIST"))
        let badTime = try await pushlineOffPool(["outcomes", "export", "--brokers", cluster.bootstrapServers, "--since", "yesterday"])
        #expect(badTime.status == 2)
        #expect(badTime.standardError.contains("--since must be an RFC 3339 time"))
        let noTopic = try await pushlineOffPool(["outcomes", "report", "--brokers", cluster.bootstrapServers, "--topic", "no.such.topic"])
        #expect(noTopic.status == 1)
        #expect(noTopic.standardError.contains("pushline outcomes report: UNKNOWN_TOPIC_OR_PART"))
        #expect(noTopic.standardError.contains("no.such.topic"))
        try cluster.createTopic("pushline.outcomes", partitions: 1)
        let noPartition = try await pushlineOffPool(["outcomes", "export", "--brokers", cluster.bootstrapServers, "--partition", "3"])
        #expect(noPartition.status == 1)
        #expect(noPartition.standardError.contains("pushline outcomes export: _UNKNOWN_PARTITION (pushline.outcomes[3]): pushline.outcomes has partitions 0..<1, not 3"),
                "\(noPartition.standardError)")
        let badConfig = try await pushlineOffPool(["dlq", "replay", "--config", "/nonexistent/pushline.yaml"])
        #expect(badConfig.status == 1)
        #expect(badConfig.standardError.contains("/nonexistent/pushline.yaml"))
    }
}
