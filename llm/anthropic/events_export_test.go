package anthropic

import "bytes"

// The hand-written events, the old reflection path and the fuzz target's
// chunk sequences, for the specs.
var (
	AppendMessageStart = appendMessageStart
	AppendBlockStart   = appendBlockStart
	AppendBlockDelta   = appendBlockDelta
	AppendBlockStop    = appendBlockStop
	AppendMessageDelta = appendMessageDelta
	AppendErrorEvent   = appendErrorEvent
	APIUsage           = apiUsage
	FuzzChunks         = fuzzChunks
	SameServe          = sameServe
	EventStrings       = eventStrings
	ErrWrite           = errWrite
)

// WriteQueued is what a stream writes for a queued event of block b (its
// start) or delta d: the way to the fallback, which no stream takes.
func WriteQueued(typ string, b Block, d Delta) (string, error) {
	var out bytes.Buffer
	s := &streamWriter{streamBufs: &streamBufs{blocks: []outBlock{{start: b, ready: true}}}, w: &out, flush: func() {}}
	err := s.write(&queued{typ: typ, delta: d})
	return out.String(), err
}
