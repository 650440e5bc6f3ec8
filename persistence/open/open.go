package open

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/session"
)

// Kind is a kind of storage.
type Kind string

// Kinds of storage.
const (
	JSONL  Kind = "jsonl"  // a folder of JSONL logs, or (read-only) one log file
	SQLite Kind = "sqlite" // a SQLite database
	Memory Kind = "memory" // memory; gone when the store closes
)

// Spec names storage: a kind and a path.
type Spec struct {
	Kind Kind
	Path string // the folder, log file or database; "" for memory
}

// String returns the spec in the form Parse reads.
func (s Spec) String() string { return string(s.Kind) + ":" + s.Path }

// ErrSpec reports a spec Parse cannot read.
var ErrSpec = errors.New("bad store spec")

// Parse reads "jsonl:DIR", "sqlite:PATH" or "memory:".
func Parse(spec string) (Spec, error) {
	kind, path, ok := strings.Cut(spec, ":")
	s := Spec{Kind: Kind(kind), Path: path}
	switch {
	case !ok:
	case s.Kind == Memory && path == "":
		return s, nil
	case (s.Kind == JSONL || s.Kind == SQLite) && path != "":
		return s, nil
	}
	return Spec{}, fmt.Errorf("open: %w %q: want jsonl:DIR, sqlite:PATH or memory:", ErrSpec, spec)
}

// Detect tells what kind of storage the existing path is: a folder is
// JSONL, a file that starts with the SQLite header is SQLite, and so is a
// file named like a database (.db, .sqlite, .sqlite3, .db3) that does not
// start like a log; any other file is one JSONL log. It reads at most 16
// bytes.
func Detect(path string) (Spec, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Spec{}, fmt.Errorf("open: %w", err)
	}
	if st.IsDir() {
		return Spec{Kind: JSONL, Path: path}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Spec{}, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	head := make([]byte, detectLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Spec{}, fmt.Errorf("open: %w", err)
	}
	if bytes.Equal(head[:n], []byte("SQLite format 3\x00")) || dbName(path) && !looksJSON(head[:n]) {
		// A .db file that is no log is a database, damaged, empty or not
		// SQLite at all: its error says so, not "bad session header".
		return Spec{Kind: SQLite, Path: path}, nil
	}
	return Spec{Kind: JSONL, Path: path}, nil
}

// detectLen is how many bytes of a file Detect reads.
const detectLen = 16

// dbName reports whether path has the name of a database file.
func dbName(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".db", ".sqlite", ".sqlite3", ".db3":
		return true
	}
	return false
}

// looksJSON reports whether head, a file's first bytes, could start a
// JSONL log: an object after optional white space and byte order mark. A
// full head of white space could too (the reader takes a header line
// indented that far), and no SQLite file starts with it.
func looksJSON(head []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(t) == 0 {
		return len(head) == detectLen
	}
	return t[0] == '{'
}

// Store opens the store spec names for reading and writing; see
// jsonl.Open, sqlite.Open and memory.New. The caller closes it.
func Store(ctx context.Context, spec string) (persistence.Store, error) {
	s, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	return s.Store(ctx)
}

// Store opens the store s names for reading and writing.
func (s Spec) Store(ctx context.Context) (persistence.Store, error) {
	switch s.Kind {
	case JSONL:
		if st, err := os.Stat(s.Path); err == nil && !st.IsDir() {
			return nil, fmt.Errorf("open: %s is a file; a jsonl store is a folder of logs", s.Path)
		}
		if name, err := jsonl.Foreign(s.Path); err != nil {
			return nil, err
		} else if name != "" {
			return nil, persistence.Advised(fmt.Errorf("open: the folder %s holds %s, which is no session log of a jsonl store, and the store would write its logs among what it holds; give the jsonl store an empty or new folder", s.Path, name))
		}
		return jsonl.Open(ctx, s.Path)
	case SQLite:
		return sqlite.Open(ctx, s.Path)
	case Memory:
		return memory.New(), nil
	}
	return nil, fmt.Errorf("open: %w: unknown kind %q", ErrSpec, s.Kind)
}

// ReadOnly opens what path holds — a spec, or a path told apart by Detect —
// for reading exactly what is stored: no crash repair, no writes, no file
// created. The caller closes it.
func ReadOnly(ctx context.Context, path string) (persistence.Source, error) {
	s, err := Parse(path)
	if err != nil {
		if s, err = Detect(path); err != nil {
			return nil, err
		}
	}
	return s.ReadOnly(ctx)
}

// ReadOnly opens the storage s names for reading exactly what is stored.
func (s Spec) ReadOnly(ctx context.Context) (persistence.Source, error) {
	switch s.Kind {
	case JSONL:
		st, err := os.Stat(s.Path)
		if err != nil {
			return nil, fmt.Errorf("open: %w", err)
		}
		if !st.IsDir() {
			return newFileSource(s.Path)
		}
		return jsonl.NewBackend(s.Path, jsonl.ReadOnly())
	case SQLite:
		return sqlite.OpenReadOnly(ctx, s.Path)
	}
	return nil, fmt.Errorf("open: %s storage has nothing to read", s.Kind)
}

// fileSource is one log file as a Source.
type fileSource struct {
	path   string
	header session.Header
}

func newFileSource(path string) (*fileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	h, err := session.NewReader(f, path).Header()
	if err != nil {
		return nil, err
	}
	return &fileSource{path: path, header: *h}, nil
}

func (f *fileSource) Sessions(context.Context) ([]session.Header, error) {
	return []session.Header{f.header}, nil
}

func (f *fileSource) Read(_ context.Context, id string) (*session.Log, error) {
	if id != f.header.ID {
		return nil, fmt.Errorf("open: %s holds session %s, not %s: %w", f.path, f.header.ID, id, persistence.ErrUnknownSession)
	}
	return session.ReadFile(f.path)
}

func (f *fileSource) Close() error { return nil }
