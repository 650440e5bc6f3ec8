package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/agent"
	"github.com/onsi/ginkgo/v2"
)

// commands builds the commands failure messages end with, so they work
// where the user is: from the root of the user's module, with the
// agentsnap CLI installed as a Go tool (go get -tool
// github.com/agentsnap/agentsnap/cmd/agentsnap), and — for a runtime the
// CLI cannot load — through the user's own test binary.
type commands struct {
	tb  testing.TB // the running test, if any
	cli bool       // the agentsnap CLI is asking
	// user is set when the runtime under test is not agentsnap's
	// reference runtime: the CLI cannot run it, its tests record it.
	user bool
	// recordCmd overrides the record command (agentsnap serve's).
	recordCmd string
}

// commands returns the commands the messages of a replay with opts end
// with.
func (opts Options) commands() commands {
	rt := opts.runtime()
	user := rt != agent.Reference && agentsnap.NameOf(rt) != agent.ReferenceName
	return commands{tb: opts.tb, cli: opts.FromCLI, user: user, recordCmd: opts.RecordCommand}
}

// tool returns the agentsnap CLI command with args for the fixture folder
// (or folder of fixtures) dir: "go tool agentsnap record fixtures/fork/x".
func (c commands) tool(args, dir string) string {
	return "go tool agentsnap " + args + " " + c.dir(dir)
}

// dir returns fixture folder dir relative to the module root, when the
// process runs inside a module; else dir as given.
func (c commands) dir(dir string) string {
	if rel, ok := fromModuleRoot(dir); ok {
		return rel
	}
	return dir
}

// pkg returns the test's package folder relative to the module root, as
// the go command takes it ("./suites/fork").
func (c commands) pkg() string {
	rel, ok := fromModuleRoot(".")
	if !ok || rel == "." {
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}

// fromModuleRoot returns path relative to the root of the module the
// process runs in; false outside a module, or for a path outside it.
func fromModuleRoot(path string) (string, bool) {
	root := moduleRoot()
	abs, err := filepath.Abs(path)
	if root == "" || err != nil {
		return "", false
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return rel, true
}

// record returns the command that re-records fx.
func (c commands) record(fx *Fixture) string {
	if c.recordCmd != "" {
		return c.recordCmd
	}
	if !c.user || c.cli {
		return c.tool("record", fx.Dir)
	}
	return c.testCommand(fx, "-record="+shellQuote("^"+regexp.QuoteMeta(fx.Name)+"$"))
}

// update returns the command that rewrites fx's golden from a replay.
func (c commands) update(fx *Fixture) string {
	if c.recordCmd != "" {
		return c.recordCmd // only a recording writes the golden of such a fixture
	}
	if c.cli || c.tb == nil {
		return c.tool("check --update", fx.Dir)
	}
	return c.testCommand(fx, "-update")
}

// testCommand runs the user's test of fx again with flag.
func (c commands) testCommand(fx *Fixture, flag string) string {
	if underGinkgo(c.tb) {
		return fmt.Sprintf("go tool ginkgo --focus=%s %s -- %s", shellQuote(fx.Name), c.pkg(), flag)
	}
	run := ""
	if c.tb != nil {
		parts := strings.Split(c.tb.Name(), "/")
		for i, p := range parts {
			parts[i] = "^" + regexp.QuoteMeta(p) + "$"
		}
		run = " -run " + shellQuote(strings.Join(parts, "/"))
	}
	return fmt.Sprintf("go test %s%s %s", c.pkg(), run, flag)
}

// underGinkgo reports whether tb is a Ginkgo spec's (GinkgoTB()), so the
// spec is run again through the ginkgo command.
func underGinkgo(tb testing.TB) bool {
	_, ok := tb.(*ginkgo.GinkgoTBWrapper)
	return ok
}

// shellSafe matches the words a POSIX shell takes as they are.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@-]+$`)

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// moduleRoot returns the folder of the go.mod above the working folder.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
