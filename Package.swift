// swift-tools-version:6.0
// TouchBridge: UIKit's touch semantics for Linux touchscreens.
// Modules follow the path a touch takes (see README "Pipeline"):
//   TouchCore  (geometry, views, hit-testing, touches, recognizers; pure Swift)
import PackageDescription

let package = Package(
    name: "TouchBridge",
    products: [
        .library(name: "TouchCore", targets: ["TouchCore"]),
    ],
    targets: [
        .target(name: "TouchCore"),
        .testTarget(name: "TouchCoreTests", dependencies: ["TouchCore"]),
        .testTarget(name: "TouchCorePublicAPITests", dependencies: ["TouchCore"]),
    ]
)
