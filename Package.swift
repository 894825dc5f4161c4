// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "filterchain",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FilterChain", targets: ["FilterChain"]),
        .executable(name: "filterchain", targets: ["filterchain"]),
        // The browser editor, a separate program so that `filterchain apply` never builds
        // the HTTP server; `filterchain edit` runs it from beside itself.
        .executable(name: "filterchain-edit", targets: ["filterchain-edit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation --target FilterChain` (DocC).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // The system libraries, found through pkg-config (Debian: libpng-dev libjpeg-dev zlib1g-dev
        // libwebp-dev liblcms2-dev libtiff-dev libavif-dev; macOS: brew install libpng jpeg-turbo webp
        // little-cms2 libtiff libavif pkg-config).
        .systemLibrary(name: "SystemPNG", pkgConfig: "libpng16",
                       providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(name: "SystemJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "SystemZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // libwebp, libwebpdemux and libwebpmux.
        .systemLibrary(name: "SystemWebP", pkgConfig: "libwebpdemux",
                       providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        // Little CMS 2, the colour engine (Debian: liblcms2-dev; macOS: brew install little-cms2).
        .systemLibrary(name: "SystemLCMS", pkgConfig: "lcms2",
                       providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
        // libtiff 4.5 or newer (TIFFOpenOptions).
        .systemLibrary(name: "SystemTIFF", pkgConfig: "libtiff-4",
                       providers: [.apt(["libtiff-dev"]), .brew(["libtiff"])]),
        // libavif 0.11 or newer, with its AV1 codecs (Debian 12: dav1d and libaom among them).
        .systemLibrary(name: "SystemAVIF", pkgConfig: "libavif",
                       providers: [.apt(["libavif-dev"]), .brew(["libavif"])]),
        // libheif 1.15 or newer, with its AV1 decoder, and libde265 (linked by name: fc_heif drives it
        // as its own HEVC plugin) (Debian: libheif-dev, which brings libde265-dev; macOS: brew install
        // libheif).
        .systemLibrary(name: "SystemHEIF", pkgConfig: "libheif",
                       providers: [.apt(["libheif-dev"]), .brew(["libheif"])]),
        // Tiny C shims: each call does one whole job under its own setjmp (see STYLE.md, 4).
        // No unsafe flags: a package that has them cannot be a versioned dependency. Release
        // builds already compile C targets optimised (SwiftPM passes -O2 with -c release).
        // What every shim shares: its status (one mapping to typed errors in Swift), the report
        // writer, the metadata an encoder embeds.
        .target(name: "CCommon"),
        .target(name: "CPNG", dependencies: ["CCommon", "SystemPNG", "SystemZlib"]),
        .target(name: "CJPEG", dependencies: ["CCommon", "SystemJPEG", "CEngines"]),
        // giflib 5 (MIT; Debian: libgif-dev; macOS: brew install giflib), linked by name: it has
        // no pkg-config file.
        // libjxl 0.7 or newer and libjxl_threads (BSD-3-Clause; Debian: libjxl-dev; macOS: brew
        // install jpeg-xl): on Linux loaded when a JPEG XL file first needs them, as libavif is.
        .target(name: "CJXL", dependencies: ["CCommon", "CDynamic"],
                linkerSettings: [.linkedLibrary("jxl", .when(platforms: [.macOS])), .linkedLibrary("jxl_threads", .when(platforms: [.macOS]))]),
        .target(name: "CGIF", dependencies: ["CCommon"], linkerSettings: [.linkedLibrary("gif")]),
        // LibRaw 0.20 or newer, its thread-safe build (LGPL-2.1 or CDDL-1.0; Debian: libraw-dev;
        // macOS: brew install libraw): on Linux loaded when a RAW file first needs it.
        .target(name: "CRAW", dependencies: ["CCommon", "CDynamic"],
                linkerSettings: [.linkedLibrary("raw_r", .when(platforms: [.macOS]))]),
        .target(name: "CLCMS", dependencies: ["SystemLCMS", "CEngines"]),
        // The fast engines, apart from the shims: the hand-vectorised loops (AVX chosen at run
        // time, with paths of identical results), the two-thread Huffman decoder that fc_jpeg.c
        // drives, and the lcms2 plug-ins that fc_lcms.c registers. Each gives its reference's
        // results to the bit, and has tests that hold it to that reference (SlidingBlurTests,
        // ResampleKernelTests, PixelConversionTests, ParallelEntropyTests, LCMSInterpolationTests).
        .target(name: "CEngines", dependencies: ["SystemJPEG", "SystemLCMS"]),
        // pkg-config gives libwebpdemux and libwebp; the muxer is linked by name (a system
        // library target has one pkg-config name).
        .target(name: "CWebP", dependencies: ["CCommon", "SystemWebP"], linkerSettings: [.linkedLibrary("webpmux")]),
        // libtiff, libavif and libheif with libde265: on Linux loaded when a file first needs
        // them (CDynamic: they and what they bring cost about 7 ms at every start), so not
        // linked, their headers found where Debian puts them; on macOS linked through pkg-config.
        .target(name: "CDynamic", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "CTIFF", dependencies: ["CCommon", "CDynamic", .target(name: "SystemTIFF", condition: .when(platforms: [.macOS]))]),
        .target(name: "CAVIF", dependencies: ["CCommon", "CDynamic", .target(name: "SystemAVIF", condition: .when(platforms: [.macOS]))],
                linkerSettings: [.linkedLibrary("dav1d", .when(platforms: [.linux]))]),
        .target(name: "CHEIF", dependencies: ["CCommon", "CDynamic", .target(name: "SystemHEIF", condition: .when(platforms: [.macOS]))],
                linkerSettings: [.linkedLibrary("de265", .when(platforms: [.macOS]))]),
        .target(name: "FilterChain", dependencies: ["CCommon", "CPNG", "CJPEG", "CWebP", "CGIF", "CJXL", "CRAW", "CTIFF", "CHEIF", "CAVIF", "CEngines", "CLCMS"]),
        .executableTarget(name: "filterchain", dependencies: [
            "FilterChain",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The editor's HTTP API and embedded page (FlyingFox: no dependencies of its own).
        // Its page is files (Resources/: HTML, CSS, JavaScript) compiled into the code.
        .target(name: "FilterChainEditor", dependencies: [
            "FilterChain",
            .product(name: "FlyingFox", package: "FlyingFox"),
        ], resources: [
            .embedInCode("Resources/index.html"), .embedInCode("Resources/style.css"), .embedInCode("Resources/graph.css"),
            .embedInCode("Resources/app.js"), .embedInCode("Resources/curve.js"), .embedInCode("Resources/controls.js"),
            .embedInCode("Resources/graph-layout.js"), .embedInCode("Resources/graph.js"), .embedInCode("Resources/masks.js"),
            .embedInCode("Resources/numbers.js"), .embedInCode("Resources/variables.js"), .embedInCode("Resources/zoom.js"),
            .embedInCode("Resources/wire-route.js"),
        ]),
        .executableTarget(name: "filterchain-edit", dependencies: [
            "FilterChainEditor",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "FilterChainTests", dependencies: ["FilterChain"]),
        .testTarget(name: "FilterChainEditorTests", dependencies: ["FilterChainEditor", "FilterChain"]),
        .testTarget(name: "FilterChainCLITests", dependencies: ["filterchain", "FilterChain"]),
    ]
)
