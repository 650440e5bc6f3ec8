package sqlite_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSQLite(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		crashWhileAppending() // a child process of the crash specs; it never returns
	}
	if os.Getenv(killEnv) != "" {
		appendUntilKilled() // a child process of the SIGKILL specs; it never returns
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "persistence/sqlite")
}
