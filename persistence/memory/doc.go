// Package memory is an in-memory persistence.Store: for tests and for
// replays whose logs are only compared, never kept.
//
// Its [Backend] keeps every session as what its JSONL log reads back as —
// Read returns exactly what decoding the bytes a jsonl backend would hold
// returns, without decoding them — and as those bytes themselves once they
// hold what no event stands for, such as a torn tail. A fork's seed shares
// its parent's stored data instead of a copy. The store runs under the
// same persistence.Coordinator as the durable backends: ordering,
// validation, lazy materialisation and crash repair behave identically,
// and a closed store's Backend can be opened again (see [Open]).
package memory
