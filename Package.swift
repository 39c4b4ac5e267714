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
        // The C library (Glibc, Musl or Darwin), imported in one place.
        .target(name: "LibC"),
        .target(name: "NexusCore", dependencies: ["COpenSSL", "LibC"]),
        .target(name: "NexusCLI", dependencies: ["NexusCore", "LibC"]),
        .executableTarget(name: "nexusctl", dependencies: ["NexusCLI", "LibC"]),
        .testTarget(name: "NexusCoreTests", dependencies: ["NexusCore"]),
        .testTarget(name: "NexusCLITests", dependencies: ["NexusCLI", "NexusCore"]),
        .testTarget(name: "IntegrationTests", dependencies: ["NexusCore"]),
    ]
)
