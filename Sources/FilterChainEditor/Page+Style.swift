extension Page {
    static let style = #"""
"""#
}
