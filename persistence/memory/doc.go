// Package memory is an in-memory persistence.Store: for tests and for
// replays whose logs are only compared, never kept.
//
// Its [Backend] keeps every session as the bytes of a JSONL log, exactly as
// the jsonl backend keeps files, and the store runs under the same
// persistence.Coordinator as the durable backends: ordering, validation,
// lazy materialisation and crash repair behave identically, and a closed
// store's Backend can be opened again (see [Open]).
package memory
