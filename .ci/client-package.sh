#!/bin/sh
# A client package that depends on a tagged version of this checkout by URL, as a user's
# package would (README: `.package(url: "https://github.com/OWNER/filterchain.git", from:
# VERSION)`; SwiftPM refuses unsafe build flags in such dependencies), with README's library
# example as its program; builds it, fails on any warning in the example, and runs it on a
# sample photograph. The clone is tagged with the release's version, as releases are
# (Sources/FilterChain/Version.swift, what `filterchain --version` prints).
# The clone takes the committed HEAD: commit before running this locally.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^public let filterChainVersion = "\(.*\)"$/\1/p' "$root/Sources/FilterChain/Version.swift")
test -n "$version" || { echo "client-package: no version in Sources/FilterChain/Version.swift" >&2; exit 1; }

git clone --quiet "$root" "$work/filterchain"
git -C "$work/filterchain" tag "$version"

mkdir -p "$work/client/Sources/client"
cat > "$work/client/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "client",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "file://$work/filterchain", from: "$version")],
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
    echo "client-package: the client does not build against filterchain $version" >&2
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
echo "client-package: a client of filterchain $version (by URL) built and ran README's example"
