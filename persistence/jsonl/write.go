package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// create writes a new session's file: header, seed and batch go to a
// temporary file that is synced and then linked to the final name, so the
// file appears whole or not at all.
func (b *Backend) create(w *persistence.Batch) error {
	id := w.Header.ID
	b.mu.Lock()
	closed, exists := b.closed, b.paths[id] != ""
	b.mu.Unlock()
	switch {
	case closed:
		return fmt.Errorf("jsonl: %s: %w", b.dir, persistence.ErrClosed)
	case exists:
		return fmt.Errorf("jsonl: %s: session %s: %w", b.dir, id, persistence.ErrSessionExists)
	}
	path := filepath.Join(b.dir, FileName(id))
	if err := b.mkdir(); err != nil {
		return err
	}
	made, err := b.publish(path, session.Encode(w.Header, w.Events))
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.paths[id] = path
	b.headers = append(b.headers, *w.Header)
	b.mu.Unlock()
	b.keep(id, path, made)
	// After the link: the file holds the batch whole under its name
	// whether or not the folder's sync fails, so the session is known,
	// and the next call reads it back.
	if b.sync {
		return b.syncDir(b.dir)
	}
	return nil
}

// keep holds a new session's file open for the appends to come, so the
// check before each (still) knows the file this store wrote: another put
// in its place before the second append is refused, as one put there
// later is. Nothing is kept, and the next append opens the path, when the
// file cannot be opened or already is another (made is what was written).
func (b *Backend) keep(id, path string, made os.FileInfo) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return
	}
	fi, err := f.Stat()
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil || !os.SameFile(fi, made) || b.closed || b.files[id] != nil {
		f.Close()
		return
	}
	b.files[id] = &appendFile{f: f, fi: fi}
}

// mkdir creates the store's folder on first use.
func (b *Backend) mkdir() error {
	if _, err := os.Stat(b.dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	if b.sync {
		return b.syncDir(filepath.Dir(filepath.Clean(b.dir)))
	}
	return nil
}

// publish writes data to path through a synced temporary file, and
// returns the file's FileInfo. It never replaces an existing file. The
// folder is the caller's to sync.
func (b *Backend) publish(path string, data []byte) (os.FileInfo, error) {
	tmp, err := os.CreateTemp(b.dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	// The temporary name goes in every case: after the link the file
	// lives on under path.
	defer os.Remove(tmp.Name())
	if err := b.fill(tmp, data); err != nil {
		tmp.Close()
		return nil, err
	}
	fi, err := tmp.Stat()
	if err != nil {
		tmp.Close()
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	if err := link(tmp.Name(), path); err != nil {
		return nil, err
	}
	return fi, nil
}

// fill writes data to a new file and syncs it.
func (b *Backend) fill(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("jsonl: write %s: %w", f.Name(), err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	if b.sync {
		if err := b.syncFile(f); err != nil {
			return fmt.Errorf("jsonl: sync %s: %w", f.Name(), err)
		}
	}
	return nil
}

// link gives the file at tmp the name path, failing if path exists. A hard
// link does both atomically; where links are not supported, a check and a
// rename do (the store is the folder's only writer).
func link(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("jsonl: %s already exists and holds another session: %w", path, persistence.ErrSessionExists)
	}
	if _, statErr := os.Lstat(path); statErr == nil {
		return fmt.Errorf("jsonl: %s already exists and holds another session: %w", path, persistence.ErrSessionExists)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	return nil
}

// append writes one batch to an existing session file with one Write call,
// then syncs it.
func (b *Backend) append(w *persistence.Batch) error {
	id := w.Header.ID
	af, err := b.open(id, w.Torn)
	if err != nil {
		return err
	}
	if len(w.Events) == 0 {
		return nil
	}
	// Bytes written to a file no longer at its path would be acknowledged
	// and never read again.
	if err := b.still(id, af); err != nil {
		return err
	}
	var buf []byte
	if af.needNL {
		buf = append(buf, '\n')
	}
	for i := range w.Events {
		buf = session.AppendEvent(buf, &w.Events[i])
	}
	if _, err := af.f.Write(buf); err != nil {
		b.drop(id)
		return fmt.Errorf("jsonl: append to %s: %w", af.f.Name(), err)
	}
	af.needNL = false
	if b.sync {
		if err := b.syncFile(af.f); err != nil {
			b.drop(id)
			return fmt.Errorf("jsonl: sync %s: %w", af.f.Name(), err)
		}
	}
	return nil
}

// open returns the session's file open for appending, opening it on first
// use. A torn last line is cut first, and a whole last line without a
// newline gets one with the next write.
func (b *Backend) open(id string, torn *session.TornLine) (*appendFile, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("jsonl: %s: %w", b.dir, persistence.ErrClosed)
	}
	if af := b.files[id]; af != nil {
		return af, nil
	}
	path, ok := b.paths[id]
	if !ok {
		return nil, fmt.Errorf("jsonl: %s holds no session %s: %w", b.dir, id, persistence.ErrUnknownSession)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, gone(path)
	}
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	af := &appendFile{f: f, fi: fi}
	if err := repairTail(af, torn); err != nil {
		f.Close()
		return nil, fmt.Errorf("jsonl: repair the end of %s: %w", path, err)
	}
	b.files[id] = af
	return af, nil
}

// still checks that the path of session id still names af's file, which
// a user may have removed or replaced while it was open; if not, it drops
// af, so the next write opens the path afresh.
func (b *Backend) still(id string, af *appendFile) error {
	moved, err := unlinked(af)
	if err == nil && !moved {
		return nil
	}
	b.drop(id)
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	if _, err := os.Lstat(af.f.Name()); errors.Is(err, fs.ErrNotExist) {
		return gone(af.f.Name())
	}
	return fmt.Errorf("jsonl: %s was replaced by another file since this store opened it; nothing was written: load the session to continue from what the new file holds", af.f.Name())
}

// gone is the error of a session whose file was removed behind the
// store's back.
func gone(path string) error {
	return fmt.Errorf("jsonl: %s is gone (removed behind the store's back): %w", path, persistence.ErrUnknownSession)
}

// drop closes a file after a failed write, so the next write opens it
// again and looks at its end afresh.
func (b *Backend) drop(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if af := b.files[id]; af != nil {
		af.f.Close()
		delete(b.files, id)
	}
}

// repairTail looks at the end of a file about to be appended to.
func repairTail(af *appendFile, torn *session.TornLine) error {
	st, err := af.f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size == 0 {
		return nil
	}
	var last [1]byte
	if _, err := af.f.ReadAt(last[:], size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	if torn == nil {
		af.needNL = true
		return nil
	}
	end, err := lineStart(af.f, size)
	if err != nil {
		return err
	}
	return af.f.Truncate(end)
}

// lineStart returns the offset just past the last newline before size.
func lineStart(f *os.File, size int64) (int64, error) {
	const block = 64 << 10
	buf := make([]byte, block)
	for end := size; end > 0; {
		start := max(end-block, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, errors.New("no whole line to keep; the header itself is torn")
}
