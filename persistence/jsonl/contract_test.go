package jsonl_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// dirStorage is a temporary folder.
type dirStorage struct{ dir string }

func (d *dirStorage) Open() (persistence.Store, error) {
	return jsonl.Open(context.Background(), d.dir)
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
			if err := c.Run(ctx, newStorage); err != nil {
				Fail(err.Error())
			}
		})
	}
})
