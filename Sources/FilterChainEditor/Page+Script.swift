extension Page {
    static let script = #"""
"""#
}
