// swift-tools-version:6.0
// TouchBridge: UIKit's touch semantics for Linux touchscreens.
// Modules follow the path a touch takes (see README "Pipeline"):
//   TouchCore   geometry, views, hit-testing, touches, recognizers (pure Swift: no Foundation, no Glibc)
//   TouchInput  evdev events → frames: libevdev, libudev, recordings, calibration
//   TouchBridge the daemon: scene files, event loop, socket protocol, systemd; and the CLI's commands
//   touchbridged, touchbridgectl: thin executables over TouchBridge
import PackageDescription

let package = Package(
    name: "TouchBridge",
    products: [
        .library(name: "TouchCore", targets: ["TouchCore"]),
        .library(name: "TouchInput", targets: ["TouchInput"]),
        .executable(name: "touchbridged", targets: ["touchbridged"]),
        .executable(name: "touchbridgectl", targets: ["touchbridgectl"]),
    ],
    targets: [
        .target(name: "TouchCore"),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .target(name: "TouchInput", dependencies: ["TouchCore", "CEvdev", "CUdev"]),
        .systemLibrary(name: "CLinux"),
        .target(name: "TouchBridge", dependencies: ["TouchCore", "TouchInput", "CLinux"]),
        .executableTarget(name: "touchbridged", dependencies: ["TouchBridge"]),
        .executableTarget(name: "touchbridgectl", dependencies: ["TouchBridge"]),
        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchCorePublicAPITests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchInputTests", dependencies: ["TouchInput", "TouchCore"]),
        .testTarget(name: "TouchBridgeTests", dependencies: ["TouchBridge", "TouchInput", "TouchCore"]),
    ]
)
