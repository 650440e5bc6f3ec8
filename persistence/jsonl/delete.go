package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// intentFile records a deletion in progress in a store's folder: the file
// names of the sessions being deleted, one a line. Delete writes it, synced,
// before it removes any log and removes it last, so a crash in between
// leaves a folder whose next open finishes the deletion; a read-only open
// reads the folder as if it were finished. Deleting files one by one is
// atomic this way.
const intentFile = ".agentsnap-delete"

var _ persistence.Deleter = (*Backend)(nil)

// Delete implements persistence.Deleter: the sessions' files are removed,
// all of them or (until an open finishes the deletion) none.
func (b *Backend) Delete(ctx context.Context, ids ...string) error {
	if b.readOnly {
		return fmt.Errorf("jsonl: %s: %w", b.dir, persistence.ErrReadOnly)
	}
	// An earlier deletion that did not finish goes first: the intent file
	// holds one deletion at a time.
	if names, err := readIntent(b.dir); err != nil {
		return err
	} else if names != nil {
		if err := b.finishDelete(names); err != nil {
			return err
		}
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return fmt.Errorf("jsonl: %s: %w", b.dir, persistence.ErrClosed)
	}
	var names []string
	for _, id := range ids {
		if p, ok := b.paths[id]; ok {
			names = append(names, filepath.Base(p))
		}
	}
	b.mu.Unlock()
	if len(names) == 0 {
		return nil
	}
	if err := b.writeIntent(names); err != nil {
		return err
	}
	if b.afterIntent != nil {
		if err := b.afterIntent(); err != nil {
			return err
		}
	}
	b.forget(ids)
	return b.finishDelete(names)
}

// forget drops the sessions ids from the backend's state, closing their
// open files.
func (b *Backend) forget(ids []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		if af := b.files[id]; af != nil {
			af.f.Close()
			delete(b.files, id)
		}
		delete(b.paths, id)
	}
	b.headers = slices.DeleteFunc(b.headers, func(h session.Header) bool { return slices.Contains(ids, h.ID) })
}

// writeIntent publishes the intent file listing names.
func (b *Backend) writeIntent(names []string) error {
	tmp, err := os.CreateTemp(b.dir, intentFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := b.fill(tmp, []byte(strings.Join(names, "\n")+"\n")); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(b.dir, intentFile)); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	return b.syncFolder()
}

// finishDelete removes the logs names, then the intent file.
func (b *Backend) finishDelete(names []string) error {
	for _, name := range names {
		if err := os.Remove(filepath.Join(b.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("jsonl: delete %s: %w", filepath.Join(b.dir, name), err)
		}
	}
	if err := b.syncFolder(); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(b.dir, intentFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("jsonl: %w", err)
	}
	return b.syncFolder()
}

func (b *Backend) syncFolder() error {
	if !b.sync {
		return nil
	}
	if err := b.syncDir(b.dir); err != nil {
		return fmt.Errorf("jsonl: sync %s: %w", b.dir, err)
	}
	return nil
}

// readIntent returns the file names of dir's unfinished deletion, or nil.
// Only plain log names in dir count: an intent file never removes anything
// else.
func readIntent(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, intentFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	names := []string{}
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		name := string(line)
		if strings.HasSuffix(name, Ext) && filepath.Base(name) == name && !strings.HasPrefix(name, ".") {
			names = append(names, name)
		}
	}
	return names, nil
}
