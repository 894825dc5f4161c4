extension Page {
    static let html = #"""
<!doctype html><title>x</title>
"""#
}
