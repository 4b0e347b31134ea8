// swift-tools-version:6.0
// Pushline: Kafka intents in, Apple push notifications out. No outside Swift packages: the
// toolchain plus Debian's C libraries through system-library targets.
import PackageDescription

let package = Package(
    name: "Pushline",
    products: [
        .executable(name: "pushline", targets: ["pushline"]),
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

        // C shims: only what Swift cannot call (macros, variadics).
        .target(name: "CPushlineShims", dependencies: ["COpenSSL", "CMicroHTTPD"]),

        // Runtime: event loops, sockets.
        .target(name: "Runtime", dependencies: ["CLinux"]),

        // Wrappers.
        .target(name: "EmbeddedHTTP", dependencies: ["CMicroHTTPD", "CPushlineShims"]),
        .target(name: "TLS", dependencies: ["COpenSSL", "CPushlineShims"]),
        .target(name: "HTTPFields"),
        .target(name: "HTTP2", dependencies: ["CNghttp2", "Runtime", "TLS", "HTTPFields"]),

        // APNs.
        .target(name: "APNsCore"),
        .target(name: "APNsClient", dependencies: ["APNsCore", "TLS"]),
        .target(name: "APNsSimulator", dependencies: ["APNsCore", "TLS", "EmbeddedHTTP", "HTTPFields"]),
        .target(name: "APNsSimulatorServer", dependencies: ["APNsSimulator", "HTTP2", "Runtime", "TLS"]),

        // Executables and their shared command-line parsing.
        .target(name: "CLI"),
        .executableTarget(name: "pushline", dependencies: ["CLI", "APNsCore", "APNsClient"]),
        .executableTarget(name: "apns-sim", dependencies: ["CLI", "APNsSimulator", "APNsSimulatorServer", "Runtime", "TLS"]),

        // Test support.
        .target(name: "PushlineTestKit", dependencies: ["APNsSimulator", "APNsSimulatorServer", "TLS"]),

        // Tests.
        .testTarget(
            name: "CLibrarySmokeTests",
            dependencies: ["CRdKafka", "CNghttp2", "COpenSSL", "CHiredis", "CPushlineShims"]
        ),
        .testTarget(name: "APNsCoreTests", dependencies: ["APNsCore"]),
        .testTarget(name: "TLSTests", dependencies: ["TLS", "PushlineTestKit"]),
        .testTarget(name: "RuntimeTests", dependencies: ["Runtime"]),
        .testTarget(name: "HTTP2Tests", dependencies: ["HTTP2", "Runtime", "TLS", "PushlineTestKit"]),
        .testTarget(name: "APNsClientTests", dependencies: ["APNsClient", "APNsCore", "TLS", "PushlineTestKit"]),
        .testTarget(name: "PushlineCLITests", dependencies: ["pushline", "APNsCore", "PushlineTestKit"]),
        .testTarget(name: "APNsSimulatorServerTests", dependencies: [
            "apns-sim", "APNsSimulatorServer", "APNsSimulator", "APNsClient", "APNsCore", "HTTP2", "Runtime", "TLS", "PushlineTestKit",
        ]),
        .testTarget(name: "EmbeddedHTTPTests", dependencies: ["EmbeddedHTTP", "PushlineTestKit"]),
        .testTarget(
            name: "APNsSimulatorTests",
            dependencies: ["APNsSimulator", "APNsCore", "APNsClient", "TLS", "EmbeddedHTTP", "PushlineTestKit"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
