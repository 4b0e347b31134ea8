import Foundation
import PushlineTestKit
import Testing

@Suite("pushline validate payload")
struct ValidatePayloadCommandTests {
    @Test("a valid payload prints its size and exits 0")
    func validPayload() throws {
        let file = try temporaryFile(#"{"aps":{"alert":"Hello"}}"#)
        let result = try pushline("validate", "payload", file, "--push-type", "alert")
        #expect(result.status == 0)
        #expect(result.standardOutput == "valid (25 bytes)\n")
    }

    @Test("each violation is one 'invalid: <Reason>: <detail>' line, and the exit status is 1")
    func everyViolationIsPrinted() throws {
        let file = try temporaryFile(#"{"aps":{"alert":"Hi","content-available":1}}"#)
        let result = try pushline("validate", "payload", file, "--push-type", "background", "--topic", "com.example.app.voip",
                                  "--priority", "10")
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("invalid: ") })
        #expect(lines.contains { $0.hasPrefix("invalid: TopicSuffixMismatch: ") })
        #expect(lines.contains { $0.hasPrefix("invalid: BackgroundPriority: ") })
        #expect(lines.contains { $0.hasPrefix("invalid: BackgroundWithAlertSoundOrBadge: ") })
    }

    @Test("a file that is not JSON is a violation, not a crash")
    func notJSON() throws {
        let file = try temporaryFile("this is not json")
        let result = try pushline("validate", "payload", file, "--push-type", "alert")
        #expect(result.status == 1)
        #expect(result.standardOutput.hasPrefix("invalid: MalformedJSON: "))
    }

    @Test("an oversized payload reports bytes and limit")
    func oversized() throws {
        let body = String(repeating: "é", count: 2100) // 2100 characters, 4200 bytes
        let file = try temporaryFile(#"{"aps":{"alert":"\#(body)"}}"#)
        let result = try pushline("validate", "payload", file, "--push-type", "alert")
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("invalid: PayloadTooLarge: payload is 4220 bytes; the limit for push type alert is 4096"))
    }

    @Test("a missing file is a usage error naming the file")
    func missingFile() throws {
        let result = try pushline("validate", "payload", "/nonexistent/payload.json", "--push-type", "alert")
        #expect(result.status == 2)
        #expect(result.standardError.contains("cannot read payload \"/nonexistent/payload.json\": no such file"))
    }

    @Test("an unknown push type is a usage error listing the known ones")
    func unknownPushType() throws {
        let file = try temporaryFile(#"{"aps":{"alert":"Hello"}}"#)
        let result = try pushline("validate", "payload", file, "--push-type", "email")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--push-type \"email\" is not one of alert, background"))
    }

    @Test("--push-type is required")
    func pushTypeRequired() throws {
        let file = try temporaryFile(#"{"aps":{"alert":"Hello"}}"#)
        let result = try pushline("validate", "payload", file)
        #expect(result.status == 2)
        #expect(result.standardError.contains("--push-type is required"))
    }

    @Test("a priority other than 10, 5 or 1 is a usage error")
    func badPriority() throws {
        let file = try temporaryFile(#"{"aps":{"alert":"Hello"}}"#)
        let result = try pushline("validate", "payload", file, "--push-type", "alert", "--priority", "7")
        #expect(result.status == 2)
        #expect(result.standardError.contains("--priority must be 10, 5 or 1, got 7"))
    }

    @Test("every example under Config/examples/<push-type>/ is valid for its push type")
    func examplesAreValid() throws {
        let examples = RepositoryPaths.root.appendingPathComponent("Config/examples")
        let pushTypes = try FileManager.default.contentsOfDirectory(atPath: examples.path).sorted()
        #expect(pushTypes.count >= 5)
        for pushType in pushTypes {
            let folder = examples.appendingPathComponent(pushType)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".json") {
                let path = folder.appendingPathComponent(file).path
                let result = try pushline("validate", "payload", path, "--push-type", pushType)
                #expect(result.status == 0, "\(path): \(result.standardOutput)")
            }
        }
    }
}
