package jsonl_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// dirStorage is a temporary folder.
type dirStorage struct {
	dir  string
	full atomic.Bool // the disk is full: every fsync fails
}

func (d *dirStorage) Open() (persistence.Store, error) {
	b, err := jsonl.NewBackend(d.dir)
	if err != nil {
		return nil, err
	}
	b.SetSyncHooks(func(f *os.File) error {
		if d.full.Load() {
			return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.ENOSPC}
		}
		return f.Sync()
	}, atomicfile.SyncDir)
	return persistence.New(context.Background(), b)
}

// FailWrites fills the disk: a new file is never linked, an appended batch
// is written whole but its fsync fails.
func (d *dirStorage) FailWrites(fail bool) { d.full.Store(fail) }

// Lose removes the session's file, as a user would.
func (d *dirStorage) Lose(id string) error {
	return os.Remove(filepath.Join(d.dir, jsonl.FileName(id)))
}

// Crash appends what a crash in the middle of the batch's write leaves.
func (d *dirStorage) Crash(id string, events []session.Event) error {
	f, err := os.OpenFile(filepath.Join(d.dir, jsonl.FileName(id)), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(storetest.TornBytes(events))
	return err
}

var _ = Describe("jsonl store", func() {
	newStorage := func() (storetest.Storage, error) { return &dirStorage{dir: GinkgoT().TempDir()}, nil }
	// Every backend of the repository is a Deleter: a skipped check fails.
	for _, c := range storetest.Checks() {
		It(c.Name, func(ctx SpecContext) {
			if strings.HasPrefix(c.Name, "lost log:") || strings.Contains(c.Name, "written anew") {
				skipOnWindows() // it removes a file the store holds open
			}
			if err := c.Run(ctx, newStorage); err != nil {
				Fail(err.Error())
			}
		})
	}
})
