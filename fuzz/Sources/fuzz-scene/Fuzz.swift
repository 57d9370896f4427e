// libFuzzer's entry point for the "scene" target (TouchBridgeFuzzing's Fuzz.swift says what it checks).
import TouchBridgeFuzzing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    Fuzz.run("scene", UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
