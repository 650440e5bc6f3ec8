package fuzztree

import (
	"os"
	"path/filepath"
	"testing"
)

// Make builds the tree data encodes in a new folder name of a temporary
// folder, and returns it with its Snapshot: what a fuzz target of a
// reader of folders starts from. An input the file system refuses skips
// t.
func Make(t testing.TB, name string, data []byte) (dir string, before map[string]string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if Build(dir, data) != nil {
		t.Skip("the file system refuses the tree")
	}
	before, err := Snapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, before
}
