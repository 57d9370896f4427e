// swift-tools-version:6.0
// TouchBridge's fuzz targets (README "Tests"), one executable each, built by `make fuzz` with
// `-sanitize=fuzzer,address`; each main hands its body to libFuzzer's driver. A package of its own so
// that the project's ordinary builds never link libFuzzer.
import PackageDescription

let targets = ["scene", "client-line", "recording", "frames", "mqtt", "websocket"]

let package = Package(
    name: "TouchBridgeFuzz",
    dependencies: [.package(name: "TouchBridge", path: "..")],
    targets: [.systemLibrary(name: "CFuzzer", path: "Sources/CFuzzer")] + targets.map { t in
        .executableTarget(name: "fuzz-\(t)", dependencies: ["CFuzzer", .product(name: "TouchBridgeFuzzing", package: "TouchBridge")],
                          path: "Sources/fuzz-\(t)")
    }
)
