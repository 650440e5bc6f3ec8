package jsonl_test

import (
	"runtime"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestJSONL(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "persistence/jsonl")
}

// skipOnWindows skips a spec that removes, or renames over, a session
// file the store holds open: Windows refuses both (Go opens files without
// FILE_SHARE_DELETE), so no log is lost that way there.
func skipOnWindows() {
	if runtime.GOOS == "windows" {
		Skip("Windows refuses to remove or rename over a file the store holds open")
	}
}
