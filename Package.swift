// swift-tools-version:6.1
// TouchBridge: UIKit's touch semantics for Linux touchscreens.
// Modules follow the path a touch takes (see README "Pipeline"):
//   TouchCore   geometry, views, hit-testing, touches, recognizers (pure Swift: no Foundation, no Glibc)
//   TouchInput  evdev events → frames: libevdev, libudev, recordings, calibration
//   TouchBridge the daemon: scene files, event loop, socket protocol, systemd; and the CLI's commands
//   touchbridged, touchbridgectl: thin executables over TouchBridge
import PackageDescription

/// Release builds skip Swift's dynamic exclusivity checks: the code is single-threaded, and the checks
/// cost a quarter of the per-frame time (measured with callgrind, see BENCHMARKS.md). They also inline
/// across modules and more eagerly: a frame then goes through fewer calls, and under emulation (the
/// lab) every call's return costs a jump-target lookup (BENCHMARKS.md, item 16).
let releaseSpeed: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked", "-Xfrontend", "-assume-single-threaded", "-Xllvm", "-inline-threshold=2000", "-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "TouchBridge",
    products: [
        .library(name: "TouchCore", targets: ["TouchCore"]),
        .library(name: "TouchInput", targets: ["TouchInput"]),
        .executable(name: "touchbridged", targets: ["touchbridged"]),
        .executable(name: "touchbridgectl", targets: ["touchbridgectl"]),
        .executable(name: "touchbridge-bench", targets: ["touchbridge-bench"]),
        // The fuzz targets' bodies: fuzz/Package.swift builds them under libFuzzer (`make fuzz`).
        .library(name: "TouchBridgeFuzzing", targets: ["TouchBridgeFuzzing"]),
    ],
    targets: [
        .target(name: "TouchCore", swiftSettings: releaseSpeed),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .target(name: "TouchInput", dependencies: ["TouchCore", "CEvdev", "CUdev"], swiftSettings: releaseSpeed),
        .systemLibrary(name: "CLinux"),
        // Keysyms → key codes in the user's keyboard layout, for "keys" actions (README "Actions").
        .systemLibrary(name: "CXkbcommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        // The system D-Bus through sd-bus, for `touchbridgectl follow-rotation iio` (README "Screen-aware").
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // MQTT for `touchbridgectl mqtt` (README "Fleets and Home Assistant").
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // Visualizer/Page: the page's HTML, CSS and JavaScript, carried into the binaries by the EmbedPage
        // build plugin (Plugins/EmbedPage, which runs embed-page).
        .target(name: "TouchBridge", dependencies: ["TouchCore", "TouchInput", "CLinux", "CXkbcommon", "CEvdev", "CSystemd", "CMosquitto"], exclude: ["Visualizer/Page"],
                swiftSettings: releaseSpeed, plugins: ["EmbedPage"]),
        .executableTarget(name: "embed-page"),
        .plugin(name: "EmbedPage", capability: .buildTool(), dependencies: ["embed-page"]),
        .executableTarget(name: "touchbridged", dependencies: ["TouchBridge"], swiftSettings: releaseSpeed),
        .executableTarget(name: "touchbridgectl", dependencies: ["TouchBridge"], swiftSettings: releaseSpeed),
        .executableTarget(name: "touchbridge-bench", dependencies: ["TouchBridge", "CLinux"], swiftSettings: releaseSpeed),
        .target(name: "TouchBridgeFuzzing", dependencies: ["TouchBridge", "TouchInput", "TouchCore", "CEvdev"]),
        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchCorePublicAPITests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchInputTests", dependencies: ["TouchInput", "TouchCore"]),
        .testTarget(name: "TouchBridgeTests", dependencies: ["TouchBridge", "TouchInput", "TouchCore", "TouchBridgeFuzzing"]),
    ]
)
