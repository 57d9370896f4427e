// swift-tools-version:6.1
// TouchBridge: UIKit's touch semantics for Linux touchscreens. The modules, lowest first (who may import
// whom: docs/development.md "Modules"; Tests/integration/test_layering.py holds the rules):
//   TouchCore      geometry, views, hit-testing, touches, recognizers (pure Swift: no Foundation, no Glibc)
//   TouchSystem    the process's one system layer: descriptors, errno, event loop, sockets, clocks, files,
//                  the command line and standard error
//   TouchInput     evdev events → frames: libevdev, libudev, recordings, calibration, uinput mirrors
//   TouchProtocol  the socket protocol both sides speak: topics, lines (encoders and typed decoders), JSON,
//                  client commands, configuration reading, and the one DaemonConnection every client uses
//   TouchScene     scene files and their schema, actions as scenes name them, keyboard layouts (xkbcommon):
//                  below both the daemon (which runs scenes) and the clients (which check them)
//   VisualizerPage the visualizer's page, for the live visualizer (a client) and replay --html (offline)
//   TouchDaemon    the daemon: pipeline, devices, actions' devices, socket server, systemd; and the offline
//                  commands that run its input side in touchbridgectl (replay, devices, udev-mirror-properties).
//                  Links neither libmosquitto nor sd-bus (sd_notify is a datagram of our own).
//   TouchClients   the daemon's clients: bind, mqtt, tuio, websocket, follow-rotation, follow-focus,
//                  visualize, the control and scene commands, doctor.
//                  The only module that links libmosquitto, sd-bus, liblo, wslay and libwayland-client;
//                  never imports TouchDaemon.
//   touchbridged, touchbridgectl: thin executables (touchbridgectl lists the commands of both sides)
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
        .library(name: "TouchProtocol", targets: ["TouchProtocol"]),
        .executable(name: "touchbridged", targets: ["touchbridged"]),
        .executable(name: "touchbridgectl", targets: ["touchbridgectl"]),
        .executable(name: "touchbridge-bench", targets: ["touchbridge-bench"]),
        // The fuzz targets' bodies: fuzz/Package.swift builds them under libFuzzer (`make fuzz`).
        .library(name: "TouchBridgeFuzzing", targets: ["TouchBridgeFuzzing"]),
    ],
    targets: [
        .target(name: "TouchCore", swiftSettings: releaseSpeed),
        .systemLibrary(name: "CLinux"),
        .target(name: "TouchSystem", dependencies: ["CLinux"], swiftSettings: releaseSpeed),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .target(name: "TouchInput", dependencies: ["TouchCore", "TouchSystem", "CEvdev", "CUdev"], swiftSettings: releaseSpeed),
        .target(name: "TouchProtocol", dependencies: ["TouchCore", "TouchSystem", "TouchInput"], swiftSettings: releaseSpeed),
        // The visualizer's page (Page/: HTML, CSS and JavaScript), carried into the binaries as Swift
        // strings by the EmbedPage build plugin (Plugins/EmbedPage, which runs embed-page).
        .target(name: "VisualizerPage", exclude: ["Page"], plugins: ["EmbedPage"]),
        .executableTarget(name: "embed-page"),
        .plugin(name: "EmbedPage", capability: .buildTool(), dependencies: ["embed-page"]),
        // Keysyms → key codes in the user's keyboard layout, for "keys" actions (docs/actions.md).
        .systemLibrary(name: "CXkbcommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        // Scene files and their schema, actions as a scene names them, the keyboard layout they type in:
        // read by the daemon and checked by the clients (scene check, bind --scene, doctor).
        .target(name: "TouchScene", dependencies: ["TouchCore", "TouchSystem", "TouchInput", "TouchProtocol", "CXkbcommon", "CEvdev"],
                swiftSettings: releaseSpeed),
        .target(name: "TouchDaemon", dependencies: ["TouchCore", "TouchSystem", "TouchInput", "TouchProtocol", "TouchScene", "VisualizerPage", "CLinux", "CXkbcommon", "CEvdev"],
                swiftSettings: releaseSpeed),
        // The system D-Bus through sd-bus, for `touchbridgectl follow-rotation iio`.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // MQTT for `touchbridgectl mqtt` (docs/mqtt.md).
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // OSC for `touchbridgectl tuio` (docs/tuio.md).
        .systemLibrary(name: "CLiblo", pkgConfig: "liblo", providers: [.apt(["liblo-dev"])]),
        // Debian ships no .pc for wslay; nettle is linked by the module map too.
        .systemLibrary(name: "CWslay", providers: [.apt(["libwslay-dev", "nettle-dev"])]),
        // The wlr foreign toplevel protocol through libwayland-client (Debian libwayland-dev), for
        // `touchbridgectl follow-focus wlr` (docs/focus.md): the vendored XML, wayland-scanner's C made
        // from it (`make wayland-protocols`), and a shim of ours.
        .target(name: "CWlrToplevel", exclude: ["protocol"], linkerSettings: [.linkedLibrary("wayland-client")]),
        .target(name: "TouchClients", dependencies: ["TouchCore", "TouchSystem", "TouchInput", "TouchProtocol", "TouchScene", "VisualizerPage", "CLinux", "CSystemd", "CMosquitto", "CLiblo", "CWslay", "CWlrToplevel"],
                swiftSettings: releaseSpeed),
        .executableTarget(name: "touchbridged", dependencies: ["TouchDaemon", "TouchSystem", "TouchProtocol"], swiftSettings: releaseSpeed),
        .executableTarget(name: "touchbridgectl", dependencies: ["TouchDaemon", "TouchClients", "TouchSystem", "TouchProtocol"], swiftSettings: releaseSpeed),
        .executableTarget(name: "touchbridge-bench", dependencies: ["TouchDaemon", "TouchClients", "TouchScene", "TouchProtocol", "TouchSystem", "TouchInput", "TouchCore", "CLinux"], swiftSettings: releaseSpeed),
        .target(name: "TouchBridgeFuzzing", dependencies: ["TouchDaemon", "TouchClients", "TouchScene", "TouchProtocol", "TouchSystem", "TouchInput", "TouchCore", "CEvdev"]),
        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchCorePublicAPITests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchInputTests", dependencies: ["TouchInput", "TouchSystem", "TouchCore"]),
        .testTarget(name: "TouchBridgeTests", dependencies: ["TouchDaemon", "TouchClients", "TouchScene", "TouchProtocol", "TouchSystem", "TouchInput", "TouchCore", "TouchBridgeFuzzing"]),
    ]
)
