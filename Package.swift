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
        // The system's OpenSSL for HTTPS and SHA-256 (not a package dependency): libssl-dev's
        // headers at build time, libssl3 loaded at run time by the first command that needs it.
        .target(name: "COpenSSL"),
        .target(name: "NexusCore", dependencies: ["COpenSSL"]),
        .target(name: "NexusCLI", dependencies: ["NexusCore"]),
        .executableTarget(name: "nexusctl", dependencies: ["NexusCLI"]),
        .testTarget(name: "NexusCoreTests", dependencies: ["NexusCore"]),
        .testTarget(name: "NexusCLITests", dependencies: ["NexusCLI", "NexusCore"]),
        .testTarget(name: "IntegrationTests", dependencies: ["NexusCore"]),
    ]
)
