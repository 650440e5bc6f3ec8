package jsonl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Option configures a backend.
type Option func(*Backend)

// NoSync makes appends return without fsync: they survive a crash of the
// process but not of the machine. For tests and benchmarks.
func NoSync() Option { return func(b *Backend) { b.sync = false } }

// ReadOnly makes every write fail with persistence.ErrReadOnly, for
// inspecting a folder without any chance of changing it.
func ReadOnly() Option { return func(b *Backend) { b.readOnly = true } }

// Open opens the store in folder dir. The folder is created with the first
// session written; a folder that does not exist is an empty store. The
// caller closes the store.
func Open(ctx context.Context, dir string, opts ...Option) (*persistence.Coordinator, error) {
	b, err := NewBackend(dir, opts...)
	if err != nil {
		return nil, err
	}
	c, err := persistence.New(ctx, b)
	if err != nil {
		b.Close()
		return nil, err
	}
	return c, nil
}

// Backend is the storage of a JSONL store: a persistence.Backend over one
// folder. It reads every log's header when it is made; a file whose header
// does not read, or two files holding one session, make it fail. It is safe
// for concurrent use.
type Backend struct {
	dir      string
	sync     bool
	readOnly bool

	mu      sync.Mutex
	paths   map[string]string // session id -> file
	headers []session.Header  // in file order, then creation order
	files   map[string]*appendFile
	closed  bool

	// Seams for the durability tests.
	syncFile    func(*os.File) error
	syncDir     func(dir string) error
	afterIntent func() error // Delete's crash point, after the intent file
}

// appendFile is a session file open for appending.
type appendFile struct {
	f      *os.File
	fi     os.FileInfo // f's, to tell whether the path still names it
	needNL bool        // the last line is whole but has no newline yet
}

var _ persistence.Backend = (*Backend)(nil)

// NewBackend returns the backend of folder dir; see [Open].
func NewBackend(dir string, opts ...Option) (*Backend, error) {
	b := &Backend{
		dir: dir, sync: true,
		paths: map[string]string{}, files: map[string]*appendFile{},
		syncFile: (*os.File).Sync, syncDir: atomicfile.SyncDir,
	}
	for _, o := range opts {
		o(b)
	}
	// A deletion a crash interrupted is finished, or, read-only, read as
	// finished.
	pending, err := readIntent(dir)
	if err != nil {
		return nil, err
	}
	if pending != nil && !b.readOnly {
		if err := b.finishDelete(pending); err != nil {
			return nil, fmt.Errorf("jsonl: open %s: finishing an interrupted deletion: %w", dir, err)
		}
		pending = nil
	}
	paths, err := logFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if slices.Contains(pending, filepath.Base(p)) {
			continue
		}
		h, err := readHeader(p)
		if err != nil {
			return nil, fmt.Errorf("jsonl: open %s: %w", dir, err)
		}
		if other, dup := b.paths[h.ID]; dup {
			return nil, fmt.Errorf("jsonl: open %s: %s and %s both hold session %s; keep one of them", dir, other, p, h.ID)
		}
		b.paths[h.ID] = p
		b.headers = append(b.headers, *h)
	}
	return b, nil
}

// logFiles lists the session files of dir in fixture order; a folder that
// does not exist holds none.
func logFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), Ext) && !strings.HasPrefix(e.Name(), ".") {
			return session.FolderLogs(dir)
		}
	}
	return nil, nil
}

func readHeader(path string) (*session.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return session.NewReader(f, path).Header()
}

// Kind implements persistence.Backend.
func (b *Backend) Kind() string { return "jsonl" }

// Dir returns the backend's folder.
func (b *Backend) Dir() string { return b.dir }

// Where implements persistence.Backend: the session's file.
func (b *Backend) Where(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.paths[id]; ok {
		return p
	}
	return filepath.Join(b.dir, FileName(id))
}

// Sessions implements persistence.Source.
func (b *Backend) Sessions(ctx context.Context) ([]session.Header, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("jsonl: %s: %w", b.dir, persistence.ErrClosed)
	}
	return append([]session.Header(nil), b.headers...), nil
}

// Read implements persistence.Source. It opens the file read-only.
func (b *Backend) Read(ctx context.Context, id string) (*session.Log, error) {
	b.mu.Lock()
	p, ok := b.paths[id]
	closed := b.closed
	b.mu.Unlock()
	switch {
	case closed:
		return nil, fmt.Errorf("jsonl: %s: %w", b.dir, persistence.ErrClosed)
	case !ok:
		return nil, fmt.Errorf("jsonl: %s holds no session %s: %w", b.dir, id, persistence.ErrUnknownSession)
	}
	l, err := session.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, gone(p)
	}
	if err != nil {
		return nil, err
	}
	if l.Header.ID != id {
		return nil, fmt.Errorf("jsonl: %s:1: holds session %s, expected %s (was the file replaced?)", p, l.Header.ID, id)
	}
	return l, nil
}

// Write implements persistence.Backend.
func (b *Backend) Write(ctx context.Context, w *persistence.Batch) error {
	if b.readOnly {
		return fmt.Errorf("jsonl: %s: %w", b.dir, persistence.ErrReadOnly)
	}
	if w.New {
		return b.create(w)
	}
	return b.append(w)
}

// Close implements persistence.Source: it closes the open files.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	var errs []error
	for id, af := range b.files {
		errs = append(errs, af.f.Close())
		delete(b.files, id)
	}
	return errors.Join(errs...)
}
