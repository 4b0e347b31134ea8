import PushlineConfiguration
import PushlineTestKit
import Testing

@Suite("Configuration errors name the file, the line and the key")
struct ConfigurationErrorTests {
    @Test("an unknown key is reported with its line and the keys that exist")
    func unknownKey() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  hots: 127.0.0.1\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .unknownKey)
        #expect(error.file == fixture.file)
        #expect(error.line == 12)
        #expect(error.key == "redis.hots")
        #expect(error.message.contains("known keys:") && error.message.contains("host"))
        #expect(error.description.hasPrefix("\(fixture.file):12: redis.hots: unknown key"))
    }

    @Test("a value of the wrong type is reported with what it must be")
    func wrongType() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\ntelemetry:\n  metrics_port: nine\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .wrongType)
        #expect(error.line == 12)
        #expect(error.key == "telemetry.metrics_port")
        #expect(error.message == #"must be an integer from 1 to 65535, got "nine""#)
    }

    @Test("telemetry.bind that is not an IP address is reported with its line, from the file or from PUSHLINE_TELEMETRY_BIND")
    func bindNotAnAddress() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\ntelemetry:\n  bind: localhost\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .wrongType)
        #expect(error.line == 12)
        #expect(error.key == "telemetry.bind")
        #expect(error.message == #"must be an IPv4 or IPv6 address such as 0.0.0.0, 127.0.0.1, :: or ::1, got "localhost""#)
        let fromVariable = try #require(ConfigurationFixture().errors(environment: ["PUSHLINE_TELEMETRY_BIND": "10.0.0.300"]).only)
        #expect(fromVariable.key == "telemetry.bind")
        #expect(fromVariable.variable == "PUSHLINE_TELEMETRY_BIND")
    }

    @Test("a mapping where a scalar belongs is a wrong type")
    func mappingForScalar() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\nredis:\n  port:\n    number: 1\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .wrongType)
        #expect(error.key == "redis.port")
        #expect(error.line == 13)
        #expect(error.message == "must be a scalar, got a mapping")
    }

    @Test("a value out of range is reported with the range")
    func outOfRange() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\n      max_connections: 500\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .outOfRange)
        #expect(error.line == 11)
        #expect(error.key == "apns.pools[0].max_connections")
        #expect(error.message == "500 is out of range: must be an integer from 1 to 64")
    }

    @Test("a pipeline's max_intent_bytes out of range is reported with its file, line and key")
    func maximumIntentBytesOutOfRange() throws {
        let fixture = try ConfigurationFixture(pipelines: ["main.yaml": ConfigurationFixture.validPipeline + "\nmax_intent_bytes: 10\n"])
        let error = try #require(fixture.errors().only)
        #expect(error.code == .outOfRange)
        #expect(error.file == "\(fixture.pipelines)/main.yaml")
        #expect(error.line == 4)
        #expect(error.key == "max_intent_bytes")
        #expect(error.message == "10 is out of range: must be an integer from 1024 to 67108864")
    }

    @Test("more minimum than maximum connections is out of range")
    func minimumAboveMaximum() throws {
        let fixture = try ConfigurationFixture(worker: ConfigurationFixture.validWorker + "\n      min_connections: 8\n      max_connections: 2\n")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .outOfRange)
        #expect(error.key == "apns.pools[0].min_connections")
        #expect(error.line == 11)
    }

    @Test("a missing required key is reported at its mapping")
    func missingKey() throws {
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(of: "      environment: sandbox", with: "")
        let error = try #require(try ConfigurationFixture(worker: worker).errors().only)
        #expect(error.code == .missingKey)
        #expect(error.key == "apns.pools[0].environment")
        #expect(error.line == 8)
        #expect(error.message == "is required")
    }

    @Test("a missing credentials file is reported with its path")
    func missingCredentialsFile() throws {
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(of: DevCredentials.privateKeyFile, with: "keys/AuthKey.p8")
        let fixture = try ConfigurationFixture(worker: worker)
        let error = try #require(fixture.errors().only)
        #expect(error.code == .missingFile)
        #expect(error.line == 4)
        #expect(error.key == "apns.credentials.dev.key_file")
        #expect(error.message == "no such file \"\(fixture.directory)/keys/AuthKey.p8\"")
    }

    @Test("a key file that holds no ES256 key is unusable, and nothing of it is repeated")
    func unusableKeyFile() throws {
        let fixture = try ConfigurationFixture()
        let keyFile = try fixture.write("not-a-key-c2VjcmV0\n", to: "AuthKey.p8")
        try fixture.write(ConfigurationFixture.validWorker.replacingOccurrences(of: DevCredentials.privateKeyFile, with: keyFile),
                          to: "pushline.yaml")
        let error = try #require(fixture.errors().only)
        #expect(error.code == .unusableCredentials)
        #expect(error.key == "apns.credentials.dev.key_file")
        #expect(error.line == 4)
        #expect(!error.description.contains("c2VjcmV0"))
    }

    @Test("a pool that names unknown credentials is an unknown reference")
    func unknownCredentials() throws {
        let worker = ConfigurationFixture.validWorker.replacingOccurrences(of: "credentials: dev", with: "credentials: prod")
        let error = try #require(try ConfigurationFixture(worker: worker).errors().only)
        #expect(error.code == .unknownReference)
        #expect(error.key == "apns.pools[0].credentials")
        #expect(error.line == 9)
        #expect(error.message == #""prod" is not an entry of apns.credentials (defined: dev)"#)
    }

    @Test("a pipeline that names an unknown pool is an unknown reference in the pipeline's file")
    func unknownPool() throws {
        let pipeline = ConfigurationFixture.validPipeline.replacingOccurrences(of: "apns_pool: default", with: "apns_pool: eu")
        let fixture = try ConfigurationFixture(pipelines: ["main.yaml": pipeline])
        let error = try #require(fixture.errors().only)
        #expect(error.code == .unknownReference)
        #expect(error.file == "\(fixture.pipelines)/main.yaml")
        #expect(error.line == 3)
        #expect(error.key == "apns_pool")
    }

    @Test("two pools with one name are a duplicate")
    func duplicatePool() throws {
        let worker = ConfigurationFixture.validWorker + "\n    - name: default\n      credentials: dev\n      environment: production\n"
        let error = try #require(try ConfigurationFixture(worker: worker).errors().only)
        #expect(error.code == .duplicate)
        #expect(error.key == "apns.pools[1].name")
        #expect(error.line == 11)
    }

    @Test("a YAML syntax error is reported with its line")
    func syntax() throws {
        let error = try #require(try ConfigurationFixture(worker: "kafka:\n  group_id: [unclosed\nredis: {}\n").errors().only)
        #expect(error.code == .syntax)
        #expect(error.line == 3)
    }

    @Test("a missing configuration file is unreadable")
    func missingFile() throws {
        let error = try #require(throws: InvalidConfiguration.self) {
            try PushlineConfiguration.load(file: "/nonexistent/pushline.yaml", environment: [:])
        }
        #expect(error.errors.map(\.code) == [.unreadableFile])
        #expect(error.errors.first?.description == "/nonexistent/pushline.yaml: (file): no such file")
    }

    @Test("every problem is reported, not only the first, in the order of the lines")
    func allProblems() throws {
        let worker = ConfigurationFixture.validWorker + """

            redis:
              port: 0
              colour: blue
            shutdown:
              deadline: soon
            """
        let pipeline = ConfigurationFixture.validPipeline + "\nbatch:\n  size: many\n"
        let errors = try ConfigurationFixture(worker: worker, pipelines: ["main.yaml": pipeline]).errors()
        #expect(errors.map(\.key) == ["redis.port", "redis.colour", "shutdown.deadline", "batch.size"])
        #expect(errors.map(\.code) == [.outOfRange, .unknownKey, .wrongType, .wrongType])
        #expect(errors.map(\.line) == [12, 13, 15, 5])
    }

    @Test("a pipelines folder without pipelines is an error")
    func noPipelines() throws {
        let errors = try ConfigurationFixture(pipelines: [:]).errors()
        #expect(errors.map(\.code) == [.missingFile])
        #expect(errors.first?.key == "pipelines")
    }
}

extension Array {
    /// The single element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
