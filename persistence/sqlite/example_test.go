package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/session"
)

// A new path becomes a version-4 database. OpenReadOnly reads it back for
// inspection without changing it.
func ExampleOpen() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sessions")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "runs.db")

	store, err := sqlite.Open(ctx, path)
	if err != nil {
		panic(err)
	}
	_ = store.Create(ctx, session.Header{ID: "root", CreatedAt: 1}, nil)
	start, _ := session.NewEvent(session.TypeTurnStart, session.TurnStartData{Turn: 1})
	if err := store.Append(ctx, "root", []session.Event{start}); err != nil {
		panic(err)
	}
	_ = store.Close()

	db, err := sqlite.OpenReadOnly(ctx, path)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	headers, _ := db.Sessions(ctx)
	l, _ := db.Read(ctx, "root")
	fmt.Println(len(headers), headers[0].ID, len(l.Events))
	// Output:
	// 1 root 1
}

// A database of another schema version is refused, untouched.
func ExampleOpen_otherVersion() {
	dir, _ := os.MkdirTemp("", "sessions")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "old.db")
	store, _ := sqlite.Open(context.Background(), path)
	_ = store.Close()
	// Pretend a future agentsnap migrated it: bump user_version in the
	// database header (bytes 60-63).
	data, _ := os.ReadFile(path)
	data[63] = 5
	_ = os.WriteFile(path, data, 0o644)

	_, err := sqlite.Open(context.Background(), path)
	fmt.Println(errors.Is(err, sqlite.ErrSchemaVersion))
	// Output:
	// true
}
