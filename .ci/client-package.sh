#!/bin/sh
# A client package that depends on a tagged version of this checkout by URL, as a user's
# package would (`.package(url:, from: "0.1.0")`; SwiftPM refuses unsafe build flags in such
# dependencies), with README's library example as its program; builds it, fails on any
# warning in the example, and runs it on a sample photograph.
# The clone takes the committed HEAD: commit before running this locally.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git clone --quiet "$root" "$work/filterchain"
git -C "$work/filterchain" tag 0.1.0

mkdir -p "$work/client/Sources/client"
cat > "$work/client/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "client",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "file://$work/filterchain", from: "0.1.0")],
    targets: [
        .executableTarget(name: "client", dependencies: [.product(name: "FilterChain", package: "filterchain")]),
    ]
)
SWIFT
# README's library example, exactly as written.
awk '/^## The library/ { section = 1 } section && /^```swift$/ { inside = 1; next }
     inside && /^```$/ { exit } inside { print }' "$root/README.md" > "$work/client/Sources/client/main.swift"
test -s "$work/client/Sources/client/main.swift"

cp "$root/samples/chains/look.json" "$work/client/look.json"
cp "$root/samples/rocket.jpg" "$work/client/in.jpg"
cd "$work/client"
if ! swift build > build.log 2>&1; then
    cat build.log
    echo "client-package: the client does not build against filterchain 0.1.0" >&2
    exit 1
fi
cat build.log
if grep -E "main\.swift:[0-9]+:[0-9]+: (warning|error)" build.log; then
    echo "client-package: README's example does not build cleanly" >&2
    exit 1
fi
swift run client
for f in out.jpg step2.png; do
    test -s "$f" || { echo "client-package: $f was not written" >&2; exit 1; }
done
echo "client-package: a client of filterchain 0.1.0 (by URL) built and ran README's example"
