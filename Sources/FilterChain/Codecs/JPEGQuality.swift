/// How a JPEG was encoded, as far as a re-encode should follow it: its quality, estimated
/// from the quantisation tables, and its chroma subsampling.
public struct JPEGEncoding: Sendable, Hashable {
    /// 1...100; nil when the tables match no libjpeg-style quality (custom tables).
    public var quality: Int?
    /// nil for grey images and layouts the encoder does not write.
    public var chroma: ChromaSubsampling?
    /// Whether its tables are exactly the standard's as libjpeg scales them at `quality` (most
    /// tools write these): a re-encode then keeps them (`--tables standard`), so an image
    /// written again at its own quality is quantised on the same grid and loses next to nothing.
    public var standardTables: Bool

    public init(quality: Int?, chroma: ChromaSubsampling?, standardTables: Bool = false) {
        self.quality = quality
        self.chroma = chroma
        self.standardTables = standardTables
    }

    /// What an output on other 8x8 blocks than the source's (resized, cropped, flipped or
    /// turned) follows of it: its quality only. Its chroma subsampling and its standard tables
    /// were chosen for its own blocks (a re-encode of them keeps them and loses next to
    /// nothing); a new image gets 4:2:0 and filterchain's tables, as from any other source (a
    /// thumbnail of a 4:4:4 JPEG was 1.5 times vips's at the same quality).
    public var onOtherBlocks: JPEGEncoding { JPEGEncoding(quality: quality, chroma: nil) }

    /// Whether `tables` (natural order; the first luma, the second chroma) are the standard's
    /// at `quality`.
    static func areStandard(_ tables: [[UInt16]?], quality: Int) -> Bool {
        guard let luma = tables.first ?? nil else { return false }
        let standard = JPEGTables.standard(quality: quality)
        let chroma = tables.count > 1 ? tables[1] : nil
        return luma == standard.luma && (chroma == nil || chroma == standard.chroma)
    }

    /// ImageMagick's estimate (coders/jpeg.c, JPEGSetImageQuality): the sum of every
    /// quantisation value and a few telling entries ("qvalue") are compared with those of
    /// the IJG tables at each quality, from the lowest up. `tables` are in natural order.
    static func estimateQuality(_ tables: [[UInt16]?]) -> Int? {
        // filterchain's own tables (JPEGTables) say their quality exactly.
        if let luma = tables.first ?? nil {
            let chroma = tables.count > 1 ? tables[1] : nil
            for q in 1...100 {
                let own = JPEGTables.tables(quality: q)
                if own.luma == luma && (chroma == nil || chroma == own.chroma) { return q }
            }
        }
        let sum = tables.compactMap { $0 }.reduce(0) { $0 + $1.reduce(0) { $0 + Int($1) } }
        guard let luma = tables.first ?? nil else { return nil }
        let hash: [Int], sums: [Int], qvalue: Int
        if tables.count > 1, let chroma = tables[1] {
            hash = hashTwoTables
            sums = sumsTwoTables
            qvalue = Int(luma[2]) + Int(luma[53]) + Int(chroma[0]) + Int(chroma[63])
        } else {
            hash = hashOneTable
            sums = sumsOneTable
            qvalue = Int(luma[2]) + Int(luma[53])
        }
        for i in 0..<100 {
            if qvalue < hash[i] && sum < sums[i] { continue }
            if (qvalue <= hash[i] && sum <= sums[i]) || i >= 50 { return i + 1 }
            return nil
        }
        return nil
    }

    static let hashTwoTables = [
        1020, 1015, 932, 848, 780, 735, 702, 679, 660, 645, 632, 623, 613, 607, 600, 594, 589, 585, 581, 571,
        555, 542, 529, 514, 494, 474, 457, 439, 424, 410, 397, 386, 373, 364, 351, 341, 334, 324, 317, 309,
        299, 294, 287, 279, 274, 267, 262, 257, 251, 247, 243, 237, 232, 227, 222, 217, 213, 207, 202, 198,
        192, 188, 183, 177, 173, 168, 163, 157, 153, 148, 143, 139, 132, 128, 125, 119, 115, 108, 104, 99,
        94, 90, 84, 79, 74, 70, 64, 59, 55, 49, 45, 40, 34, 30, 25, 20, 15, 11, 6, 4, 0,
    ]
    static let sumsTwoTables = [
        32640, 32635, 32266, 31495, 30665, 29804, 29146, 28599, 28104, 27670, 27225, 26725, 26210, 25716,
        25240, 24789, 24373, 23946, 23572, 22846, 21801, 20842, 19949, 19121, 18386, 17651, 16998, 16349,
        15800, 15247, 14783, 14321, 13859, 13535, 13081, 12702, 12423, 12056, 11779, 11513, 11135, 10955,
        10676, 10392, 10208, 9928, 9747, 9564, 9369, 9193, 9017, 8822, 8639, 8458, 8270, 8084, 7896, 7710,
        7527, 7347, 7156, 6977, 6788, 6607, 6422, 6236, 6054, 5867, 5684, 5495, 5305, 5128, 4945, 4751,
        4638, 4442, 4248, 4065, 3888, 3698, 3509, 3326, 3139, 2957, 2775, 2586, 2405, 2216, 2037, 1846,
        1666, 1483, 1297, 1109, 927, 735, 554, 375, 201, 128, 0,
    ]
    static let hashOneTable = [
        510, 505, 422, 380, 355, 338, 326, 318, 311, 305, 300, 297, 293, 291, 288, 286, 284, 283, 281, 280,
        279, 278, 277, 273, 262, 251, 243, 233, 225, 218, 211, 205, 198, 193, 186, 181, 177, 172, 168, 164,
        158, 156, 152, 148, 145, 142, 139, 136, 133, 131, 129, 126, 123, 120, 118, 115, 113, 110, 107, 105,
        102, 100, 97, 94, 92, 89, 87, 83, 81, 79, 76, 74, 70, 68, 66, 63, 61, 57, 55, 52,
        50, 48, 44, 42, 39, 37, 34, 31, 29, 26, 24, 21, 18, 16, 13, 11, 8, 6, 3, 2, 0,
    ]
    static let sumsOneTable = [
        16320, 16315, 15946, 15277, 14655, 14073, 13623, 13230, 12859, 12560, 12240, 11861, 11456, 11081,
        10714, 10360, 10027, 9679, 9368, 9056, 8680, 8331, 7995, 7668, 7376, 7084, 6823, 6562, 6345, 6125,
        5939, 5756, 5571, 5421, 5240, 5086, 4976, 4829, 4719, 4616, 4463, 4393, 4280, 4166, 4092, 3980,
        3909, 3835, 3755, 3688, 3621, 3541, 3467, 3396, 3323, 3247, 3170, 3096, 3021, 2952, 2874, 2804,
        2727, 2657, 2583, 2509, 2437, 2362, 2290, 2211, 2136, 2068, 1996, 1915, 1858, 1773, 1692, 1620,
        1552, 1477, 1398, 1326, 1251, 1179, 1109, 1031, 961, 884, 814, 736, 667, 592, 518, 441, 369, 292,
        221, 151, 86, 64, 0,
    ]
}
