/// This release of FilterChain (the library and the `filterchain` tool), as tagged.
public let filterChainVersion = "0.3.0"
