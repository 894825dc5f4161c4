import Foundation
import Testing
@testable import FilterChain

/// The ISO 21496-1 metadata a created map is written with, read back by the reader, and the
/// levels a created map stores.
@Suite struct GainMapCreationTests {
    static func map(channels: Int, maximum: [Double]) -> GainMap {
        GainMap(width: 4, height: 4, channels: channels, source: .iso21496, byteCount: 0,
                gainMapMin: [0, -0.5, 0], gainMapMax: maximum, gamma: [1, 1.5, 1], baseOffset: [0, 1.0 / 64, 0],
                alternateOffset: [0, 1.0 / 64, 0], baseHeadroom: 0, alternateHeadroom: 2.3, baseIsHDR: false,
                usesBaseColourSpace: true)
    }

    @Test(arguments: [1, 3]) func isoMetadataReadsBack(channels: Int) {
        var written = Self.map(channels: channels, maximum: [2.3, 1.25, 3])
        if channels == 1 {
            for c in 1..<3 {
                (written.gainMapMin[c], written.gainMapMax[c], written.gamma[c]) = (written.gainMapMin[0], written.gainMapMax[0], written.gamma[0])
                (written.baseOffset[c], written.alternateOffset[c]) = (written.baseOffset[0], written.alternateOffset[0])
            }
        }
        var read = GainMap(width: 4, height: 4, channels: channels, source: .iso21496, byteCount: 0,
                           gainMapMin: [9, 9, 9], gainMapMax: [9, 9, 9], gamma: [9, 9, 9], baseOffset: [9, 9, 9],
                           alternateOffset: [9, 9, 9], baseHeadroom: 9, alternateHeadroom: 9, baseIsHDR: true,
                           usesBaseColourSpace: false)
        #expect(read.readISO(written.isoPayload) == nil)
        for (a, b) in zip(read.gainMapMin + read.gainMapMax + read.gamma + read.baseOffset + read.alternateOffset,
                          written.gainMapMin + written.gainMapMax + written.gamma + written.baseOffset + written.alternateOffset) {
            #expect(abs(a - b) < 1e-6)
        }
        #expect(abs(read.alternateHeadroom - 2.3) < 1e-6 && read.baseHeadroom == 0 && !read.baseIsHDR && read.usesBaseColourSpace)
    }

    @Test func levelsAreTheLogGainOverTheHeadroom() {
        let h = log2(1000 / 203.0)
        let map = GainMapInProgress(width: 2, height: 2, headroom: h, quality: 85)
        #expect(map.level(gain: 1) == 0 && map.level(gain: 0.5) == 0)
        #expect(map.level(gain: 1000 / 203.0) == 255 && map.level(gain: 50) == 255)
        #expect(map.level(gain: pow(2, h / 2)) == 128)
    }
}
