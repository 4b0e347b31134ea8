// swift-tools-version:6.0
// Pushline: Kafka intents in, Apple push notifications out. No outside Swift packages: the
// toolchain plus Debian's C libraries through system-library targets.
import PackageDescription

let package = Package(
    name: "Pushline",
    products: [
        .executable(name: "pushline", targets: ["pushline"]),
    ],
    targets: [
        // C libraries (system-library targets: a module map, one shim.h, no code).
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),

        // C shims: only what Swift cannot call (macros, variadics).
        .target(name: "CPushlineShims", dependencies: ["COpenSSL"]),

        // Wrappers.
        .target(name: "TLS", dependencies: ["COpenSSL", "CPushlineShims"]),
        .target(name: "Kafka", dependencies: ["CRdKafka"]),

        // Benchmarks: a wrapper measured against a plain C loop doing the same work.
        .target(name: "KafkaBenchmark", dependencies: ["Kafka", "CRdKafka"]),

        // APNs.
        .target(name: "APNsCore"),
        .target(name: "APNsClient", dependencies: ["APNsCore", "TLS"]),

        // Executables.
        .executableTarget(name: "pushline", dependencies: ["APNsCore", "APNsClient", "Kafka", "KafkaBenchmark"]),

        // Test support.
        .target(name: "PushlineTestKit"),

        // Tests.
        .testTarget(
            name: "CLibrarySmokeTests",
            dependencies: ["CRdKafka", "CNghttp2", "COpenSSL", "CHiredis", "CPushlineShims"]
        ),
        .testTarget(name: "APNsCoreTests", dependencies: ["APNsCore"]),
        .testTarget(name: "TLSTests", dependencies: ["TLS", "PushlineTestKit"]),
        .testTarget(name: "APNsClientTests", dependencies: ["APNsClient", "APNsCore", "TLS", "PushlineTestKit"]),
        .testTarget(name: "KafkaTests", dependencies: ["Kafka", "PushlineTestKit"]),
        .testTarget(name: "PushlineCLITests", dependencies: ["pushline", "APNsCore", "PushlineTestKit"]),
    ],
    swiftLanguageModes: [.v6]
)
