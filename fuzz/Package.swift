// swift-tools-version:6.0
// TouchBridge's fuzz targets (README "Fuzzing"), one executable each, built by `make fuzz` with
// `-sanitize=fuzzer,address` and `-parse-as-library` (libFuzzer brings main). A package of its own so
// that the project's ordinary builds never see a target without a main.
import PackageDescription

let targets = ["scene", "client-line", "recording", "frames"]

let package = Package(
    name: "TouchBridgeFuzz",
    dependencies: [.package(name: "TouchBridge", path: "..")],
    targets: targets.map { t in
        .executableTarget(name: "fuzz-\(t)", dependencies: [.product(name: "TouchBridgeFuzzing", package: "TouchBridge")],
                          path: "Sources/fuzz-\(t)")
    }
)
