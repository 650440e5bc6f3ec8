package harness

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
)

// rerun returns the command that runs t's test again with extra
// arguments, as the go command takes it from the module's root: go test
// with t's -run pattern, or, for a Ginkgo spec (GinkgoTB()), go tool
// ginkgo focused on the fixture.
func rerun(t testing.TB) func(fx *fixture.Fixture, args string) string {
	ginkgo := underGinkgo(t)
	name := t.Name()
	return func(fx *fixture.Fixture, args string) string {
		if ginkgo {
			return fmt.Sprintf("go tool ginkgo --focus=%s %s -- %s", judge.ShellQuote(fx.Name), judge.Package(), args)
		}
		parts := strings.Split(name, "/")
		for i, p := range parts {
			parts[i] = "^" + regexp.QuoteMeta(p) + "$"
		}
		return fmt.Sprintf("go test %s -run %s %s", judge.Package(), judge.ShellQuote(strings.Join(parts, "/")), args)
	}
}

// underGinkgo reports whether t is a Ginkgo spec's (GinkgoTB()), so the
// spec is run again through the ginkgo command. The harness links no
// Ginkgo, so it asks the type's package.
func underGinkgo(t testing.TB) bool {
	ty := reflect.TypeOf(t)
	for ty != nil && ty.Kind() == reflect.Pointer {
		ty = ty.Elem()
	}
	return ty != nil && strings.HasPrefix(ty.PkgPath(), "github.com/onsi/ginkgo/")
}

// recordHint is what a test whose fixture does not load does: the
// command that re-records it, from this test.
func recordHint(dir string, opts Options) string {
	return "re-record it with: " + judge.RecordCommandFor(dir, opts)
}
