// The "websocket" fuzz target (TouchBridgeFuzzing's Fuzz.swift says what it checks): libFuzzer's driver with
// this target's body as its callback.
import CFuzzer
import Glibc
import TouchBridgeFuzzing

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    Fuzz.run("websocket", UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
exit(status)
