package persistence

import "context"

type keepDataKey struct{}

// KeepData returns ctx telling the store that the raw members of the events
// appended under it (Data, SurfaceOp and Extra values), and of the seed its
// first append writes, are never written
// again by anyone, so a store that keeps events in memory may keep those
// bytes instead of copying them: a log is then held once, not by its writer
// and again by the store. Package journal appends under it (each payload
// is encoded into memory it never reuses); a caller that reuses buffers must
// not.
func KeepData(ctx context.Context) context.Context {
	return context.WithValue(ctx, keepDataKey{}, true)
}

// KeepsData reports whether ctx comes from KeepData.
func KeepsData(ctx context.Context) bool {
	keep, _ := ctx.Value(keepDataKey{}).(bool)
	return keep
}
