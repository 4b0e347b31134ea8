// swift-tools-version:6.0
// Pushline: Kafka intents in, Apple push notifications out. No outside Swift packages: the
// toolchain plus Debian's C libraries through system-library targets.
import PackageDescription

/// Release builds take the Swift runtime, Dispatch and Foundation in statically (`-static-stdlib`,
/// what `swift build --static-swift-stdlib` passes), at the three executables' link and at every
/// non-system target's compile (the loop at the end of this manifest): `ldd` of the binaries then
/// lists none of the toolchain's shared libraries, and the worker spends about 4 % less CPU per
/// delivery (docs/BENCHMARKS.md, "The Swift runtime linked in"), likely because calls into the
/// runtime (`swift_retain`, `swift_release`, about 1,500 calls per delivery) go straight to it rather
/// than through the dynamic linker's table. Debug builds (the tests) stay dynamic: quicker to link.
let staticRuntimeInRelease = BuildSettingCondition.when(platforms: [.linux], configuration: .release)
let staticRuntimeFlags = ["-static-stdlib"]

/// How the three executables link. jemalloc instead of glibc's malloc: the worker allocates and
/// frees on several threads, and glibc's arenas cost it ~4 µs of CPU per delivery more
/// (docs/BENCHMARKS.md, "Third round"); the Swift runtime statically in release builds (above).
let executableLinking: [LinkerSetting] = [
    .linkedLibrary("jemalloc", .when(platforms: [.linux])),
    .unsafeFlags(staticRuntimeFlags, staticRuntimeInRelease),
]

let package = Package(
    name: "Pushline",
    products: [
        .executable(name: "pushline", targets: ["pushline"]),
        .executable(name: "pushline-dev", targets: ["pushline-dev"]),
        .executable(name: "apns-sim", targets: ["apns-sim"]),
    ],
    targets: [
        // C libraries (system-library targets: a module map, one shim.h, no code).
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CICU", pkgConfig: "icu-i18n", providers: [.apt(["libicu-dev"])]),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),

        // C shims: only what Swift cannot call (macros, variadics).
        .target(name: "CPushlineShims", dependencies: ["COpenSSL", "CMicroHTTPD"]),
        .target(name: "CPushlineICU", dependencies: ["CICU"]),
        // jemalloc's options for the executables that link it and librdkafka (a C global, `malloc_conf`).
        .target(name: "CJemallocOptions"),

        // Integers written as decimal bytes: shared by JSON records and Redis commands.
        .target(name: "DecimalBytes"),
        // SHA-1 in Swift: name-based apns-ids and Redis script names; the compression on the CPU's SHA
        // extensions (x86-64's SHA-NI) in C where it has them.
        .target(name: "CDigests"),
        .target(name: "Digests", dependencies: ["CDigests"]),

        // Runtime: event loops, sockets.
        .target(name: "Runtime", dependencies: ["CLinux"]),

        // Telemetry: JSON logs, metrics, Prometheus exposition and endpoints.
        .target(name: "Telemetry", dependencies: ["APNsCore", "EmbeddedHTTP", "Runtime"]),

        // Wrappers.
        .target(name: "EmbeddedHTTP", dependencies: ["CMicroHTTPD", "CPushlineShims"]),
        .target(name: "TLS", dependencies: ["COpenSSL", "CPushlineShims"]),
        .target(name: "HTTPFields"),
        .target(name: "HTTP2", dependencies: ["CNghttp2", "Runtime", "TLS", "HTTPFields"]),
        .target(name: "Kafka", dependencies: ["CRdKafka", "Runtime"]),
        .target(name: "Redis", dependencies: ["CHiredis", "DecimalBytes", "Digests", "Runtime", "TLS"]),

        // Benchmarks: a wrapper measured against a plain C loop doing the same work.
        .target(name: "KafkaBenchmark", dependencies: ["Kafka", "CRdKafka", "Runtime"]),

        // APNs.
        .target(name: "APNsCore", dependencies: ["DecimalBytes", "Digests"]),
        .target(name: "APNsClient", dependencies: ["APNsCore", "HTTP2", "Runtime", "TLS"]),
        .target(name: "APNsSimulator", dependencies: ["APNsCore", "TLS", "EmbeddedHTTP", "HTTPFields", "Runtime"]),
        .target(name: "APNsSimulatorServer", dependencies: ["APNsSimulator", "HTTP2", "Runtime", "TLS"]),
        .target(name: "APNsTelemetry", dependencies: ["APNsClient", "Telemetry"]),

        // YAML documents with line numbers (libyaml), for templates and configuration.
        .target(name: "YAML", dependencies: ["CYAML"]),

        // ICU's plural rules (through the CPushlineICU shim), for the catalogs' plural forms.
        .target(name: "ICU", dependencies: ["CPushlineICU"]),

        // Domain.
        .target(name: "Pipeline", dependencies: ["APNsCore", "DecimalBytes", "IntentCore", "Redis", "Runtime", "TLS"]),
        // The intent, its decoding error, language tags and encryption keys: shared by Enrichment and
        // the token registry (Pipeline), so Pipeline does not depend on Enrichment.
        .target(name: "IntentCore", dependencies: ["APNsCore", "TLS"]),
        .target(name: "Enrichment", dependencies: ["APNsCore", "ICU", "IntentCore", "Runtime", "YAML", "TLS"]),
        .target(name: "PushlineConfiguration", dependencies: ["APNsClient", "Kafka", "Redis", "Runtime", "Telemetry", "YAML"]),
        // The worker: one pipeline from Kafka intents to APNs and back to Kafka outputs.
        .target(name: "Worker", dependencies: [
            "APNsClient", "APNsCore", "Enrichment", "Kafka", "Pipeline", "PushlineConfiguration", "Redis", "Runtime", "Telemetry",
        ]),

        // Pushline's output topics read back: outcome reports and exports, dead-letter replay.
        .target(name: "OutputTopics", dependencies: ["APNsCore", "Kafka", "Pipeline", "Runtime", "TLS"]),

        // Executables and their shared command-line parsing.
        .target(name: "CLI"),
        // The production binary: no simulator, local stack or benchmark (`pushline-dev` has those).
        .executableTarget(name: "pushline", dependencies: ["CLI", "CJemallocOptions", "APNsCore", "APNsClient", "Enrichment", "Kafka", "Runtime",
                                                         "PushlineConfiguration", "Redis", "Worker", "OutputTopics",
                                                         "APNsTelemetry", "Telemetry", "TLS"],
                          linkerSettings: executableLinking),
        // The development tools: the demo, dev-kafka and the benchmarks, on local components.
        .executableTarget(name: "pushline-dev", dependencies: ["CLI", "CJemallocOptions", "COpenSSL", "APNsClient", "APNsCore", "APNsTelemetry", "Digests", "Enrichment", "Kafka",
                                                             "KafkaBenchmark", "LocalStack", "Pipeline", "PushlineConfiguration", "Redis", "Runtime",
                                                             "Telemetry", "TLS", "Worker"],
                          // Linked like pushline: the benchmarks measure what the worker runs with.
                          linkerSettings: executableLinking),
        .executableTarget(name: "apns-sim", dependencies: ["CLI", "APNsSimulator", "APNsSimulatorServer", "Runtime", "TLS"],
                          // Linked like pushline (glibc's malloc cost the simulator ~4 µs of CPU per request more).
                          linkerSettings: executableLinking),

        // Local components for the demo, benchmarks and tests: redis-server on a free port, the
        // simulator in process, the mock Kafka cluster wired to a worker.
        .target(name: "LocalStack", dependencies: [
            "APNsClient", "APNsCore", "APNsSimulator", "APNsSimulatorServer", "Enrichment", "Kafka", "PushlineConfiguration", "Redis", "Runtime", "TLS",
            "Worker",
        ]),

        // Test support (re-exports LocalStack).
        .target(name: "PushlineTestKit", dependencies: ["LocalStack", "Runtime", "Telemetry", "YAML"]),

        // Tests.
        .testTarget(
            name: "CLibrarySmokeTests",
            dependencies: ["CRdKafka", "CNghttp2", "COpenSSL", "CHiredis", "CPushlineShims", "Runtime"]
        ),
        .testTarget(name: "APNsCoreTests", dependencies: ["APNsCore", "DecimalBytes", "Digests", "PushlineTestKit"]),
        .testTarget(name: "TLSTests", dependencies: ["TLS", "PushlineTestKit"]),
        .testTarget(name: "RuntimeTests", dependencies: ["Runtime", "CLinux", "PushlineTestKit"]),
        .testTarget(name: "HTTP2Tests", dependencies: ["HTTP2", "Runtime", "TLS", "PushlineTestKit"]),
        .testTarget(name: "APNsClientTests", dependencies: ["APNsClient", "APNsCore", "TLS", "PushlineTestKit"]),
        .testTarget(name: "EnrichmentTests", dependencies: ["Enrichment", "APNsCore", "ICU", "PushlineTestKit"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "APNsCore", "Enrichment", "Redis", "PushlineTestKit", "Runtime"]),
        .testTarget(name: "WorkerTests", dependencies: [
            "Worker", "APNsClient", "APNsCore", "APNsSimulator", "Enrichment", "Kafka", "Pipeline", "Redis", "PushlineTestKit",
        ]),
        .testTarget(name: "KafkaTests", dependencies: ["Kafka", "PushlineTestKit"]),
        .testTarget(name: "RedisTests", dependencies: ["Redis", "PushlineTestKit"]),
        .testTarget(name: "PushlineCLITests", dependencies: ["pushline", "pushline-dev", "APNsCore", "APNsSimulator", "Kafka", "PushlineTestKit", "Runtime",
                                                              "Enrichment", "OutputTopics", "TLS", "Worker"]),
        // `pushline run` subprocesses through crashes, a second member, a Redis outage and SIGTERM.
        .testTarget(name: "EndToEndTests", dependencies: ["pushline", "pushline-dev", "APNsCore", "Kafka", "PushlineTestKit"]),
        .testTarget(name: "APNsSimulatorServerTests", dependencies: [
            "apns-sim", "APNsSimulatorServer", "APNsSimulator", "APNsClient", "APNsCore", "HTTP2", "Runtime", "TLS", "PushlineTestKit",
        ]),
        .testTarget(name: "SenderTests", dependencies: ["APNsClient", "APNsCore", "APNsSimulator", "TLS", "PushlineTestKit"]),
        .testTarget(name: "PushlineConfigurationTests", dependencies: [
            "PushlineConfiguration", "APNsClient", "Kafka", "Redis", "Telemetry", "PushlineTestKit",
        ]),
        .testTarget(name: "EmbeddedHTTPTests", dependencies: ["EmbeddedHTTP", "PushlineTestKit"]),
        .testTarget(name: "TelemetryTests", dependencies: [
            "Telemetry", "APNsTelemetry", "APNsClient", "APNsCore", "EmbeddedHTTP", "PushlineTestKit",
        ]),
        .testTarget(
            name: "APNsSimulatorTests",
            dependencies: ["APNsSimulator", "APNsCore", "APNsClient", "TLS", "EmbeddedHTTP", "HTTPFields", "PushlineTestKit"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `make fuzz` only: the target calls libFuzzer's driver, so it links only with -sanitize=fuzzer.
if Context.environment["PUSHLINE_FUZZ"] != nil {
    package.targets.append(.executableTarget(name: "EnrichmentFuzz", dependencies: ["Enrichment", "APNsCore", "APNsClient", "Kafka", "Pipeline", "Worker"],
                                             path: "Fuzz/EnrichmentFuzz"))
}

// Release builds compile with the static runtime's flags too (``staticRuntimeFlags``): the modules
// then name the static libraries Foundation needs (its ICU among them) for the link. Tests build in
// the debug configuration; a release build of the tests (`swift test -c release`) is not used here
// and was not tried with this.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(staticRuntimeFlags, staticRuntimeInRelease)]
}
