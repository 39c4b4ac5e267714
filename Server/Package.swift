// swift-tools-version:6.1
// nexusd, the sync server. It shares the wire types with nexusctl through the
// root package, so the protocol has a single definition.
import PackageDescription

let package = Package(
    name: "nexusd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nexusd", targets: ["nexusd"]),
        .executable(name: "nexusd-bench", targets: ["nexusd-bench"]),
        .executable(name: "nexus-bench", targets: ["nexus-bench"]),
        .executable(name: "nexus-soak", targets: ["nexus-soak"]),
        .executable(name: "nexus-peak", targets: ["nexus-peak"]),
    ],
    dependencies: [
        .package(name: "nexus", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        .target(
            name: "NexusServer",
            dependencies: [
                .product(name: "NexusWire", package: "nexus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // The parked polls' handler sits in Hummingbird's HTTP/1 pipeline (ParkingHandler).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        // nexusd's command line, shared by nexusd and nexusd-bench.
        .target(
            name: "NexusdCommand",
            dependencies: [
                "NexusServer",
                .product(name: "NexusWire", package: "nexus"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "nexusd", dependencies: ["NexusdCommand"]),
        // `make bench`: the speed and memory figures, against the real binaries.
        // nexusd-bench: nexusd and the trivial routes the bench measures the limit with.
        .target(
            name: "BenchRoutes",
            dependencies: [
                "NexusServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        .executableTarget(name: "nexusd-bench", dependencies: ["NexusdCommand", "BenchRoutes"]),
        // Starting and timing child processes, for nexus-bench and nexus-soak.
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "nexus-bench",
            dependencies: ["BenchSupport", "TailEpoll", .product(name: "NexusCore", package: "nexus")],
            // A top-level script of shared state, measured from one thread at a time.
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // nexus-bench's live tails: epoll, which Swift's Glibc module lacks (TailPolls.swift).
        .target(name: "TailEpoll"),
        // nexus-bench's peak-memory rows: a command's own peak, not nexus-bench's (main.c).
        .executableTarget(name: "nexus-peak"),
        // `make soak`: 200 tails, steady senders and a nexusd restarted every minute.
        .executableTarget(
            name: "nexus-soak",
            dependencies: ["BenchSupport", .product(name: "NexusCore", package: "nexus")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "NexusServerTests",
            dependencies: [
                "NexusServer",
                "BenchRoutes",
                .product(name: "NexusWire", package: "nexus"),
                // The client's view of a conversation list, to compare the server's with.
                .product(name: "NexusCore", package: "nexus"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
