import Glibc

/// libFuzzer's driver (linked by -sanitize=fuzzer): parses libFuzzer's options and calls back with
/// each input. Called from our own `main` because SwiftPM gives every executable one.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<Int32>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

var argumentCount = CommandLine.argc
var arguments = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argumentCount, &arguments) { data, size in enrichmentFuzzOneInput(data, size) })
