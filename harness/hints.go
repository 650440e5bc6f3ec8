package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
)

// rerun returns the command that runs t's test again with extra
// arguments, as the go command takes it from the module's root: go test
// with t's -run pattern, or, for a Ginkgo spec (GinkgoTB()), focused on
// the fixture: go tool ginkgo when the module has the ginkgo tool, else go
// test with -ginkgo.focus (go tool ginkgo would fail: "no such tool").
func rerun(t testing.TB) func(fx *fixture.Fixture, args string) string {
	ginkgo := underGinkgo(t)
	name := t.Name()
	return func(fx *fixture.Fixture, args string) string {
		switch {
		case ginkgo && ginkgoTool():
			return fmt.Sprintf("go tool ginkgo --focus=%s %s -- %s", judge.ShellQuote(ginkgoFocus(name, fx)), judge.Package(), args)
		case ginkgo:
			return fmt.Sprintf("go test %s -ginkgo.focus=%s %s", judge.Package(), judge.ShellQuote(ginkgoFocus(name, fx)), args)
		}
		parts := strings.Split(name, "/")
		for i, p := range parts {
			parts[i] = "^" + regexp.QuoteMeta(p) + "$"
		}
		return fmt.Sprintf("go test %s -run %s %s", judge.Package(), judge.ShellQuote(strings.Join(parts, "/")), args)
	}
}

// ginkgoFocus is the focus that runs the Ginkgo spec named text (its
// full text, GinkgoTB().Name(): its containers' texts and its own, joined
// by spaces) and no other. Ginkgo matches a focus against the suite's
// description, a space and that text, so the focus is anchored at that
// space and at the end: "mixed/desk" would also run "mixed/desk-gemini".
// A spec without text is focused on the fixture's name, the end of the
// text of the suites' entries.
func ginkgoFocus(text string, fx *fixture.Fixture) string {
	if text == "" {
		text = fx.Name
	}
	return "(^| )" + regexp.QuoteMeta(text) + "$"
}

// underGinkgo reports whether t is a Ginkgo spec's (GinkgoTB()), so the
// spec is run again through the ginkgo command. The harness links no
// Ginkgo, so it asks the type's package.
func underGinkgo(t testing.TB) bool {
	ty := reflect.TypeOf(unwrapped(t))
	for ty != nil && ty.Kind() == reflect.Pointer {
		ty = ty.Elem()
	}
	return ty != nil && strings.HasPrefix(ty.PkgPath(), "github.com/onsi/ginkgo/")
}

// recordHint is err, which a test's fixture in dir did not load or replay
// with, ending in the command that re-records it, from this test, where
// that mends it; else err (its message says what to do).
func recordHint(dir string, err error, opts Options) error {
	if !judge.RecordMends(dir, err) {
		return err
	}
	return judge.WithRecordCommand(err, judge.RecordCommandFor(dir, opts))
}

// ginkgoPath is the ginkgo command's package, as a go.mod tool line names it.
const ginkgoPath = "github.com/onsi/ginkgo/v2/ginkgo"

// ginkgoTool reports whether the go.mod of the module the test runs in
// declares the ginkgo command as a tool (go get -tool), so that "go tool
// ginkgo" runs there.
var ginkgoTool = sync.OnceValue(func() bool {
	dir, err := os.Getwd()
	if err != nil {
		return false
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			return declaresTool(string(b), ginkgoPath)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
})

// declaresTool reports whether the go.mod text gomod has a tool directive
// for path, alone ("tool path") or in a block ("tool (" ... ")").
func declaresTool(gomod, path string) bool {
	block := false
	for line := range strings.Lines(gomod) {
		f := strings.Fields(strings.SplitN(line, "//", 2)[0])
		switch {
		case block && len(f) == 1 && f[0] == ")":
			block = false
		case block && len(f) == 1 && f[0] == path:
			return true
		case len(f) == 2 && f[0] == "tool" && f[1] == "(":
			block = true
		case len(f) == 2 && f[0] == "tool" && f[1] == path:
			return true
		}
	}
	return false
}
