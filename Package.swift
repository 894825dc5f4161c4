// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "filterchain",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FilterChain", targets: ["FilterChain"]),
        .executable(name: "filterchain", targets: ["filterchain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The system libraries, found through pkg-config (Debian: libpng-dev libjpeg-dev zlib1g-dev;
        // macOS: brew install libpng jpeg-turbo pkg-config).
        .systemLibrary(name: "SystemPNG", pkgConfig: "libpng16",
                       providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(name: "SystemJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "SystemZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // Tiny C shims: each call does one whole job under its own setjmp, so no longjmp
        // crosses a Swift frame (see the comment at the top of each shim's header).
        .target(name: "CPNG", dependencies: ["SystemPNG", "SystemZlib"],
                cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "CJPEG", dependencies: ["SystemJPEG"],
                cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "FilterChain", dependencies: ["CPNG", "CJPEG"]),
        .executableTarget(name: "filterchain", dependencies: [
            "FilterChain",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "FilterChainTests", dependencies: ["FilterChain"]),
        .testTarget(name: "FilterChainCLITests", dependencies: ["filterchain", "FilterChain"]),
    ]
)
