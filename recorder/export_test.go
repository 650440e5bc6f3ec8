package recorder

import (
	"context"
	"os"
	"syscall"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/memory"
)

// FailWritesAfter makes fixture writes fail like a full disk once n files
// were written whole: the next file gets half its bytes, then ENOSPC. It
// returns the restore.
func FailWritesAfter(n int) func() {
	written := 0
	writeFile = func(path string, b []byte) error {
		if written == n {
			_ = os.WriteFile(path, b[:len(b)/2], 0o644)
			return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
		}
		written++
		return writeSynced(path, b)
	}
	return func() { writeFile = writeSynced }
}

// NewSideStore returns the store a recording with a side store writes
// through: the recording's own memory store, side behind it, every write
// checked for the values of secrets first.
func NewSideStore(side persistence.Store, secrets map[string]string) persistence.Store {
	set := secret.New()
	set.AddAll(secrets)
	return newSideStore(memory.New(), side, set)
}

// WatchedCount is the count a recording's live watch answers with set
// for a live driver d.
func WatchedCount(ctx context.Context, d llm.Driver, set *secret.Set, req *llm.Request) (int64, error) {
	return (&liveWatch{inner: d, set: set}).CountTokens(ctx, req)
}

// LiveFailed is the error a live recording fails with whose calls ended
// with these finishes, each the last of its own step of session root; nil
// when none failed outside the model.
func LiveFailed(finishes ...llm.Chunk) error {
	w := &liveWatch{failure: live.InfrastructureFailure}
	for i, f := range finishes {
		w.note(&llm.Request{Session: llm.SessionRef{ID: "root"}, Turn: 1, Step: i + 1}, f)
	}
	return w.failed("")
}
