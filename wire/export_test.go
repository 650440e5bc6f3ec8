package wire

// CallKey exposes callKey to the specs.
var CallKey = callKey
