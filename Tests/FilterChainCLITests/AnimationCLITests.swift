import Foundation
import Testing
import FilterChain

/// `apply` on animations: which frames go where by default, --frames, --preview-frame, --loop,
/// --delay, --max-frames, and `info`'s listing.
@Suite struct AnimationCLITests {
    static let empty = #"{"version": 1, "filters": []}"#

    /// A 6-frame GIF (frames of few colours, 40 + 10k ms each, playing 3 times) and the frames.
    static func animation(in folder: String) throws -> (path: String, frames: [RasterImage]) {
        let path = folder + "/in.gif"
        var frames: [RasterImage] = []
        for k in 0..<6 {
            var p = [UInt8](repeating: 0, count: 30 * 20 * 3)
            for i in 0..<(30 * 20) {
                let x = i % 30, y = i / 30
                let box = x >= k * 4 && x < k * 4 + 8 && y > 4 && y < 15
                p[i * 3] = box ? 230 : 30
                p[i * 3 + 1] = box ? UInt8(40 * k) : 90
                p[i * 3 + 2] = box ? 20 : 160
            }
            frames.append(try RasterImage(width: 30, height: 20, format: PixelFormat(.rgb, .eight), pixels: p))
        }
        let writer = try AnimationWriter(.file(path), format: .gif, width: 30, height: 20, pixelFormat: frames[0].format, loopCount: 3)
        for (k, f) in frames.enumerated() { try writer.add(f, delay: 40 + 10 * k) }
        try writer.finish()
        return (path, frames)
    }

    @Test func framesGoWhereTheOutputCanHoldThem() throws {
        let folder = CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (_, frames) = try Self.animation(in: folder)
        CLI.write(Self.empty, to: folder + "/empty.json")
        // To a GIF or WebP: every frame, with its delay and the loop count.
        let all = try CLI.run(["apply", "empty.json", "in.gif", "all.webp", "--lossless"], in: folder)
        #expect(all.status == 0 && all.stderr.isEmpty, "\(all.stderr)")
        let back = try AnimationReader(.file(folder + "/all.webp"))
        #expect(back.animation == AnimationInfo(delays: [40, 50, 60, 70, 80, 90], loopCount: 3))
        // A batch takes every frame too.
        let batch = try CLI.run(["apply", "empty.json", "in.gif", "--output-dir", "o", "--format", "webp", "--lossless", "--quiet"], in: folder)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try AnimationReader(.file(folder + "/o/in.webp")).animation.frameCount == 6)
        // To a PNG: the first frame, saying so.
        let first = try CLI.run(["apply", "empty.json", "in.gif", "first.png"], in: folder)
        #expect(first.status == 0 && first.stderr == "filterchain: warning: in.gif: an animation of 6 frames: only the first frame was read\n",
                "\(first.stderr)")
        #expect(try CLI.pixels(folder + "/first.png").1 == frames[0].pixels)
        // --frames N: that frame; a range to a PNG cannot be.
        #expect(try CLI.run(["apply", "empty.json", "in.gif", "f4.png", "--frames", "4"], in: folder).status == 0)
        #expect(try CLI.pixels(folder + "/f4.png").1 == frames[4].pixels)
        let range = try CLI.run(["apply", "empty.json", "in.gif", "r.png", "--frames", "2-4"], in: folder)
        #expect(range.status == 64 && range.stderr.contains("PNG holds no animation"), "\(range.stderr)")
        let past = try CLI.run(["apply", "empty.json", "in.gif", "p.gif", "--frames", "3-9"], in: folder)
        #expect(past.status == 64 && past.stderr.contains("the animation has 6 frames (0-5)"), "\(past.stderr)")
        let bad = try CLI.run(["apply", "empty.json", "in.gif", "b.gif", "--frames", "x"], in: folder)
        #expect(bad.status == 64 && bad.stderr.contains("all, first, N or N-M"), "\(bad.stderr)")
        #expect(!CLI.files(in: folder).contains { ["r.png", "p.gif", "b.gif"].contains($0) })
    }

    @Test func loopDelayPreviewFrameAndTheFrameLimit() throws {
        let folder = CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (_, frames) = try Self.animation(in: folder)
        CLI.write(Self.empty, to: folder + "/empty.json")
        let run = try CLI.run(["apply", "empty.json", "in.gif", "out.gif", "--frames", "1-3", "--loop", "0", "--delay", "30",
                               "--preview", "0", "--preview-output", "p.png", "--preview-frame", "2"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let back = try AnimationReader(.file(folder + "/out.gif"))
        #expect(back.animation == AnimationInfo(delays: [30, 30, 30], loopCount: 0))
        for k in 1...3 { #expect(try back.nextFrame().pixels == frames[k].pixels) }
        #expect(try CLI.pixels(folder + "/p.png").1 == frames[2].pixels)
        // steps --frame N: every step of frame N.
        let steps = try CLI.run(["steps", "empty.json", "in.gif", "--output-dir", "s", "--frame", "4"], in: folder)
        #expect(steps.status == 0, "\(steps.stderr)")
        #expect(try CLI.pixels(folder + "/s/00-input.png").1 == frames[4].pixels)
        let limited = try CLI.run(["apply", "empty.json", "in.gif", "l.gif", "--max-frames", "5"], in: folder)
        #expect(limited.status == 1 && limited.stderr == "filterchain: error: in.gif: an animation of more than 5 frames, over the limit (raise it with --max-frames, 0 for none)\n", "\(limited.stderr)")
        let info = try CLI.run(["info", "in.gif"], in: folder)
        #expect(info.out.contains("  animation: 6 frames, 0.39 s, plays 3 times; delays 40, 50, 60, 70, 80, 90 ms\n"), "\(info.out)")
        let json = try CLI.run(["info", "--json", "in.gif"], in: folder)
        #expect(json.out.contains(#""frames":6,"delays":[40,50,60,70,80,90],"loop":3"#), "\(json.out)")
    }
}
