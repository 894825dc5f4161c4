import Foundation
import Testing
@testable import FilterChain

/// EXIF orientation: every value turns the stored pixels upright, as the EXIF specification
/// describes it (where the stored 0th row and 0th column appear).
@Suite struct OrientationTests {
    /// Stored 3x2 blocks of 8x8 pixels, each block its own colour: any mirror or turn shows.
    static let w = 24, h = 16
    static let colours: [[Int]] = [[250, 10, 10], [10, 250, 10], [10, 10, 250], [250, 250, 10], [10, 250, 250], [250, 10, 250]]

    static var stored: Pixels {
        var samples: [Int] = []
        for y in 0..<h { for x in 0..<w { samples += colours[(y / 8) * 3 + x / 8] } }
        return Pixels(width: w, height: h, format: PixelFormat(.rgb, .eight), samples: samples)
    }

    /// Upright image per EXIF: for 1-4 the stored 0th row is the visual top or bottom and the
    /// 0th column the visual left or right; for 5-8 the 0th row is the visual left or right
    /// side and the 0th column the visual top or bottom.
    static func upright(_ s: Pixels, orientation o: Int) -> Pixels {
        let rowZero = ["top", "top", "bottom", "bottom", "left", "right", "right", "left"][o - 1]
        let columnZero = ["left", "right", "right", "left", "top", "top", "bottom", "bottom"][o - 1]
        let swaps = o >= 5
        let (ow, oh) = swaps ? (s.height, s.width) : (s.width, s.height)
        var out = [Int](repeating: 0, count: ow * oh * 3)
        for y in 0..<s.height {
            for x in 0..<s.width {
                let vx, vy: Int
                if swaps {
                    vx = rowZero == "left" ? y : s.height - 1 - y
                    vy = columnZero == "top" ? x : s.width - 1 - x
                } else {
                    vy = rowZero == "top" ? y : s.height - 1 - y
                    vx = columnZero == "left" ? x : s.width - 1 - x
                }
                for c in 0..<3 { out[(vy * ow + vx) * 3 + c] = s.samples[(y * s.width + x) * 3 + c] }
            }
        }
        return Pixels(width: ow, height: oh, format: s.format, samples: out)
    }

    @Test(arguments: 1...8, [false, true])
    func jpegComesOutUpright(orientation: Int, bigEndian: Bool) throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("o\(orientation).jpg").path
        let exif = ExifFixture.make(orientation: orientation, bigEndian: bigEndian)
        try Self.stored.write(to: .file(path), format: .jpeg, metadata: ImageMetadata(exif: exif),
                              options: EncodeOptions(quality: 100, chroma: .yuv444))
        let expected = Self.upright(Self.stored, orientation: orientation)
        let (pixels, info) = try Pixels.read(path)
        #expect(info.width == expected.width && info.height == expected.height)
        let worst = zip(pixels.samples, expected.samples).map { abs($0 - $1) }.max()!
        #expect(worst <= 8, "orientation \(orientation): largest difference \(worst)")
        // The metadata now says the pixels are upright.
        #expect(Exif.orientation(in: info.metadata.exif!) == .up)
        #expect(info.appliedOrientation == (orientation == 1 ? nil : Orientation(rawValue: orientation)))

        // --no-auto-orient: pixels as stored, orientation kept.
        let (asStored, storedInfo) = try Pixels.read(path, options: DecodeOptions(autoOrient: false))
        #expect(storedInfo.width == Self.w && storedInfo.height == Self.h)
        #expect(zip(asStored.samples, Self.stored.samples).map { abs($0 - $1) }.max()! <= 8)
        #expect(Exif.orientation(in: storedInfo.metadata.exif!) == Orientation(rawValue: orientation))
    }

    @Test func damagedExifIsIgnored() {
        #expect(Exif.orientation(in: []) == nil)
        #expect(Exif.orientation(in: Array("II*\0\u{FF}\u{FF}\u{FF}\u{FF}".utf8)) == nil)
        var truncated = ExifFixture.make(orientation: 6)
        truncated.removeLast(8)
        #expect(Exif.orientation(in: truncated) == nil)
        #expect(Exif.withOrientationReset(truncated) == truncated)
    }
}
