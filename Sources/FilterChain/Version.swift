public enum FilterChainVersion { public static let string = "0.1.0" }
