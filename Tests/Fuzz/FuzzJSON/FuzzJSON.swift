// libFuzzer target: arbitrary bytes through the fast JSON scanner and jansson; any disagreement
// (JSONDifferential) crashes, so libFuzzer keeps the input. Built by `make fuzz-json`, which adds
// -sanitize=fuzzer,address and -D FUZZING; a plain build replays files given as arguments instead.
import JWTVerify

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    if let problem = JSONDifferential.disagreement(bytes) { fatalError("scanner and jansson disagree: \(problem)") }
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// SwiftPM links executables through `<module>_main`; start libFuzzer's driver from it.
@_cdecl("jwtfuzz_json_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzJSON(data, size) }
}
#else
#if canImport(Glibc)
import Glibc
#endif

@main
enum FuzzJSONReplay {
    static func main() {
        var failures = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { continue }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case let n = fread(&chunk, 1, chunk.count, file), n > 0 { bytes += chunk[..<n] }
            fclose(file)
            if let problem = bytes.withUnsafeBytes(JSONDifferential.disagreement) {
                print("\(path): \(problem)")
                failures += 1
            }
        }
        exit(failures == 0 ? 0 : 1)
    }
}
#endif
