// swift-tools-version: 6.1
// libFuzzer harnesses for filterchain's parsers, kept in their own package so the library's
// products stay as they are. Build and run with ./fuzz (see README.md in this folder).
import PackageDescription

let package = Package(
    name: "FilterChainFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "filterchain", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "FuzzChain", dependencies: [.product(name: "FilterChain", package: "filterchain")]),
        .target(name: "FuzzSupport", dependencies: [.product(name: "FilterChain", package: "filterchain")]),
        .executableTarget(name: "FuzzPNG", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzJPEG", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzWebP", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzGIF", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzJXL", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzRAW", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzTIFF", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzAVIF", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzHEIF", dependencies: ["FuzzSupport", .product(name: "FilterChain", package: "filterchain")]),
        .executableTarget(name: "FuzzStepReference", dependencies: [.product(name: "FilterChain", package: "filterchain")]),
        .executableTarget(name: "FuzzCube", dependencies: [.product(name: "FilterChain", package: "filterchain")]),
        .executableTarget(name: "FuzzGainMap", dependencies: [.product(name: "FilterChain", package: "filterchain")]),
        .executableTarget(name: "FuzzExpression", dependencies: [.product(name: "FilterChain", package: "filterchain")]),
        // RandomChain.swift is the tests' generator (a link to Tests/FilterChainTests/Support/).
        .executableTarget(name: "FuzzRender", dependencies: [.product(name: "FilterChain", package: "filterchain")]),
    ]
)
