// swift-tools-version:6.0
// nexusctl and its libraries. No package dependencies, by the owner's choice:
// everything here builds with the toolchain alone.
import PackageDescription

let package = Package(
    name: "nexus",
    products: [
        .library(name: "NexusCore", targets: ["NexusCore"]),
        .executable(name: "nexusctl", targets: ["nexusctl"]),
    ],
    targets: [
        .target(name: "NexusCore"),
        .target(name: "NexusCLI", dependencies: ["NexusCore"]),
        .executableTarget(name: "nexusctl", dependencies: ["NexusCLI"]),
        .testTarget(name: "NexusCoreTests", dependencies: ["NexusCore"]),
        .testTarget(name: "NexusCLITests", dependencies: ["NexusCLI", "NexusCore"]),
        .testTarget(name: "IntegrationTests", dependencies: ["NexusCore"]),
    ]
)
