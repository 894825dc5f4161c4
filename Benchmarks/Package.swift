// swift-tools-version: 6.1
// Benchmarks for FilterChain, kept in their own package so the library does not depend on
// ordo-one/benchmark. Run from this folder: swift package benchmark (see README.md).
import PackageDescription

let package = Package(
    name: "FilterChainBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "filterchain", path: ".."),
        // Only the malloc interposer trait: the default set also enables "RuntimeInterposer",
        // which on Linux with Swift 6.3 pulls in swift-runtime-interposer.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "FilterChainBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FilterChain", package: "filterchain"),
            ],
            path: "Benchmarks/FilterChainBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ]
)
