import PushlineTestKit
import Testing

#if os(Linux)
/// The executables that link jemalloc start it with Pushline's options (Sources/CJemallocOptions), and
/// `MALLOC_CONF` still overrides them. jemalloc prints its options at exit with `stats_print`.
@Suite("jemalloc options")
struct JemallocOptionsTests {
    @Test("pushline and pushline-dev cache freed blocks up to 128 KiB per thread", arguments: ["pushline", "pushline-dev"])
    func threadCachesHoldLZ4Buffers(executable: String) throws {
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable(executable), ["--help"],
                                             environment: ["MALLOC_CONF": "stats_print:true"])
        #expect(result.status == 0)
        #expect(result.standardError.contains("opt.tcache_max: 131072"))
    }

    @Test("MALLOC_CONF in the environment wins over the built-in options")
    func environmentOverrides() throws {
        let result = try ExternalCommand.run(RepositoryPaths.builtExecutable("pushline"), ["--help"],
                                             environment: ["MALLOC_CONF": "stats_print:true,lg_tcache_max:15"])
        #expect(result.status == 0)
        #expect(result.standardError.contains("opt.tcache_max: 32768"))
    }
}
#endif
