import Foundation
import Synchronization
import Testing
@testable import FilterChain
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The pool under every schedule: thousands of tiny renders (file outputs, so encoder tasks,
/// their background jobs and the job budget take part, and memory outputs) on renderers of
/// 1, 2 and 8 threads and several strip heights, some renderers called from several threads
/// at once as a batch does, all at the same time on however few cores there are. A watchdog
/// fails the test, printing what every pool thread and every image in flight is doing, as
/// soon as one render takes longer than `stallLimit`, instead of hanging.
@Suite struct PoolStressTests {
    /// No render here takes more than a few milliseconds alone; this allows for a debug build
    /// on two loaded cores and 60 threads wanting them (3.8 s seen at most), and three times
    /// that under a sanitizer (CI sets ASAN_OPTIONS or TSAN_OPTIONS there; its ASan stage also
    /// runs three minutes of random chains beside this). A lost wakeup hangs for good, so a
    /// wider limit finds it all the same.
    static let stallLimit: Double = {
        let environment = ProcessInfo.processInfo.environment
        return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil ? 60 : 20
    }()
    /// Renders per calling thread.
    static let rendersPerCaller = 100

    struct Setup {
        var threads: Int
        var stripHeight: Int
        /// Threads calling `render` on the one renderer at once.
        var callers: Int
    }

    static let setups = [
        Setup(threads: 1, stripHeight: 1, callers: 1), Setup(threads: 1, stripHeight: 4, callers: 3),
        Setup(threads: 1, stripHeight: 16, callers: 2), Setup(threads: 2, stripHeight: 3, callers: 2),
        Setup(threads: 2, stripHeight: 16, callers: 1), Setup(threads: 8, stripHeight: 2, callers: 1),
        Setup(threads: 8, stripHeight: 7, callers: 3),
    ]

    static var chains: [(label: String, chain: Chain)] {
        var blur5 = GaussianBlur()
        blur5.sigma = 5
        var blur2 = GaussianBlur()
        blur2.sigma = 2
        var controls = ColorControls()
        controls.saturation = 1.3
        // Alpha from the colour: an opaque image gains alpha here.
        let alpha = ColorMatrix(matrix: [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0.3, 0.3, 0.3, 0, 0.1]])
        return [
            ("resize x3, blur 5", Chain([Resize(scale: 3), blur5])),
            ("unsharp mask, colour controls", Chain([UnsharpMask(sigma: 1.5, amount: 0.8), controls])),
            ("blur 2, alpha matrix", Chain([blur2, alpha])),
        ]
    }

    /// Sizes from 8 x 8 to 64 x 5 (tripled by the resize); RGB, RGBA, 16-bit and grey (a grey input whose chain
    /// may not stay neutral takes a first pass that stops early, then a second).
    static let inputs: [RasterImage] = [
        (8, 8, PixelFormat(.rgb, .eight)), (33, 17, PixelFormat(.rgba, .eight)), (24, 24, PixelFormat(.rgb, .sixteen)),
        (13, 29, PixelFormat(.grey, .eight)), (64, 5, PixelFormat(.rgba, .sixteen)),
    ].enumerated().map { i, s in Pixels.random(width: s.0, height: s.1, format: s.2, seed: UInt64(40 + i)).raster }

    /// What one calling thread is doing, for the watchdog.
    final class Caller: Sendable {
        let name: String
        /// When the render in progress started (CLOCK_MONOTONIC nanoseconds), 0 between renders.
        let started = Atomic<UInt64>(0)
        let current = Mutex("")
        let finished = Atomic<Bool>(false)
        let renders = Atomic<Int>(0)
        /// The longest render, in nanoseconds.
        let longest = Atomic<UInt64>(0)
        let failures = Mutex<[String]>([])
        init(name: String) { self.name = name }
    }

    static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// Runs `body` on a detached thread of its own: if it never returns, the test still can.
    static func detached(_ body: @escaping @Sendable () -> Void) {
        final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 4 << 20)
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(Box(body)).toOpaque())
        pthread_attr_destroy(&attributes)
        precondition(created == 0, "cannot start a thread")
    }

    @Test func thousandsOfSmallRendersNeverStall() throws {
        let folder = NSTemporaryDirectory() + "filterchain-pool-stress-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let chains = Self.chains
        let inputs = Self.inputs
        // The inputs as PNG files too: renders from files decode on the pool.
        let inputPaths = try inputs.indices.map { i in
            let path = folder + "/input\(i).png"
            let writer = try ImageWriter(.file(path), format: .png,
                                         header: EncodeHeader(width: inputs[i].width, height: inputs[i].height,
                                                              format: inputs[i].format))
            try writer.write(inputs[i])
            try writer.finish()
            return path
        }
        // What every memory output must be, from one thread and whole-image strips.
        let reference = Renderer(threads: 1, stripHeight: 1000)
        let expected = try chains.map { c in
            try inputs.map { input in
                try reference.render(c.chain, image: input, outputs: [RenderOutput(step: 1, .memory()),
                                                                      RenderOutput(step: 2, .memory())]).images
            }
        }

        var pools: [(String, WorkerPool)] = []
        var callers: [Caller] = []
        let start = Self.now()
        for (s, setup) in Self.setups.enumerated() {
            let renderer = Renderer(threads: setup.threads, stripHeight: setup.stripHeight)
            let label = "\(setup.threads) threads, strips of \(setup.stripHeight), \(setup.callers) callers"
            pools.append((label, renderer.pool))
            // The batch's way: images numbered in the order they start.
            let nextOrder = Atomic<Int>(0)
            for c in 0..<setup.callers {
                let caller = Caller(name: "renderer \(s) (\(label)), caller \(c)")
                callers.append(caller)
                let prefix = folder + "/r\(s)c\(c)"
                Self.detached {
                    defer { caller.finished.store(true, ordering: .releasing) }
                    for n in 0..<Self.rendersPerCaller {
                        if stopAll.load(ordering: .relaxed) { return }
                        let k = (n + c + s) % chains.count, i = (n / chains.count + s) % inputs.count
                        var outputs = [RenderOutput(step: 2, .memory())]
                        var files: [(path: String, expected: RasterImage?)] = []
                        // Most renders write files: up to four outputs, PNG and JPEG, at both
                        // steps, so one render's encoder jobs exceed the budget of a 1-thread pool.
                        if n % 4 != 0 {
                            let count = 1 + (n / 4) % 4
                            for f in 0..<count {
                                let step = f % 2 == 0 ? 2 : 1
                                let png = f != 1
                                let path = "\(prefix)-\(f).\(png ? "png" : "jpg")"
                                outputs.append(RenderOutput(step: step, .file(.file(path), EncodeOptions())))
                                files.append((path, png ? expected[k][i][step - 1] : nil))
                            }
                        }
                        if n % 3 == 1 { outputs.append(RenderOutput(step: 1, .memory())) }
                        let fromFile = n % 2 == 1
                        let order = n % 5 == 0 ? 0 : nextOrder.add(1, ordering: .relaxed).newValue
                        caller.current.withLock {
                            $0 = "render \(n): \(chains[k].label) on input \(i) (\(inputs[i].width)x\(inputs[i].height) \(inputs[i].format))"
                                + "\(fromFile ? " from a file" : ""), order \(order), \(outputs.count) outputs"
                        }
                        caller.started.store(Self.now(), ordering: .relaxed)
                        do {
                            let result = fromFile
                                ? try renderer.render(chains[k].chain, source: .file(inputPaths[i]), outputs: outputs, order: order)
                                : try renderer.render(chains[k].chain, image: inputs[i], outputs: outputs, order: order)
                            let took = Self.now() &- caller.started.exchange(0, ordering: .relaxed)
                            caller.longest.max(took, ordering: .relaxed)
                            var wrong: [String] = []
                            if result.images[0] != expected[k][i][1] { wrong.append("the final image in memory") }
                            if n % 3 == 1, result.images[outputs.count - 1] != expected[k][i][0] { wrong.append("step 1 in memory") }
                            // PNG files decode to the memory output; every few renders, to save time.
                            if n % 7 == 3 {
                                for file in files {
                                    let reader = try ImageReader.open(.file(file.path))
                                    let pixels = try reader.readAll()
                                    if let image = file.expected, image.pixels != pixels || image.format != reader.info.format {
                                        wrong.append(file.path)
                                    }
                                }
                            }
                            if !wrong.isEmpty {
                                let what = caller.current.withLock { $0 }
                                caller.failures.withLock { $0.append("\(what): wrong \(wrong.joined(separator: ", "))") }
                            }
                        } catch {
                            caller.started.store(0, ordering: .relaxed)
                            let what = caller.current.withLock { $0 }
                            caller.failures.withLock { $0.append("\(what): \(error)") }
                        }
                        caller.renders.add(1, ordering: .relaxed)
                    }
                }
            }
        }

        // The watchdog, on the test's thread.
        var stalled: Caller?
        while !callers.allSatisfy({ $0.finished.load(ordering: .acquiring) }) {
            usleep(20_000)
            if let late = callers.first(where: { c in
                let t = c.started.load(ordering: .relaxed)
                // The clock is read after the start time: a render that began after an earlier
                // reading would otherwise look 2^64 ns old (seen once in CI).
                let now = Self.now()
                return t != 0 && now > t && Double(now - t) / 1e9 > Self.stallLimit
            }) {
                stalled = late
                break
            }
        }
        let seconds = Double(Self.now() - start) / 1e9
        if let stalled {
            stopAll.store(true, ordering: .relaxed)
            var report = ["\(stalled.name): \(stalled.current.withLock { $0 }) has taken more than \(Self.stallLimit) s."]
            for c in callers where !c.finished.load(ordering: .acquiring) {
                let t = c.started.load(ordering: .relaxed)
                report.append("\(c.name): " + (t == 0 ? "between renders"
                    : String(format: "%.1f s into ", Double(Self.now() &- t) / 1e9) + c.current.withLock { $0 }))
            }
            for (label, pool) in pools { report.append("Renderer \(label):\n" + pool.stateDescription()) }
            Issue.record(Comment(rawValue: report.joined(separator: "\n")))
            // The stuck threads keep the folder's files open: leave it.
            return
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let total = callers.reduce(0) { $0 + $1.renders.load(ordering: .relaxed) }
        let longest = Double(callers.map { $0.longest.load(ordering: .relaxed) }.max() ?? 0) / 1e9
        print("PoolStressTests: \(total) renders on \(callers.count) calling threads in \(String(format: "%.1f", seconds)) s; "
              + "the longest took \(String(format: "%.2f", longest)) s")
        #expect(total == callers.count * Self.rendersPerCaller)
        for c in callers {
            for failure in c.failures.withLock({ $0 }).prefix(3) { Issue.record(Comment(rawValue: "\(c.name): \(failure)")) }
        }
    }
}

/// Stops the calling threads once the watchdog has fired.
private let stopAll = Atomic<Bool>(false)
