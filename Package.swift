// swift-tools-version:6.0
// TouchBridge: UIKit's touch semantics for Linux touchscreens.
// Modules follow the path a touch takes (see README "Pipeline"):
//   TouchCore   geometry, views, hit-testing, touches, recognizers (pure Swift: no Foundation, no Glibc)
//   TouchInput  evdev events → frames: libevdev, libudev, recordings, calibration
import PackageDescription

let package = Package(
    name: "TouchBridge",
    products: [
        .library(name: "TouchCore", targets: ["TouchCore"]),
        .library(name: "TouchInput", targets: ["TouchInput"]),
    ],
    targets: [
        .target(name: "TouchCore"),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .target(name: "TouchInput", dependencies: ["TouchCore", "CEvdev", "CUdev"]),
        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchCorePublicAPITests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchInputTests", dependencies: ["TouchInput", "TouchCore"], exclude: []),
    ]
)
