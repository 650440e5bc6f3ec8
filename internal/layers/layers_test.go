// Package layers checks the direction of the module's layers (README.md,
// "Layout"): every package sits in one, imports only its own layer or
// those below, and stays clear of what its layer may not link — so a
// user's test binary holds nothing they did not ask for.
package layers

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentsnap/agentsnap"

// layer is one room of the house, bottom (0) to top.
type layer struct {
	name     string
	packages []string // relative to the module; "x/..." is x and below
	// forbidden are imports (a path, or a prefix ending in "/") that no
	// package of the layer may have among its dependencies.
	forbidden []string
}

var testFrameworks = []string{"testing", "github.com/onsi/", "github.com/sebdah/goldie/"}

var layers = []layer{
	{name: "leaf utilities", packages: []string{"internal/atomicfile", "internal/columns", "internal/jsonscan", "internal/placeholder",
		"internal/textdiff", "internal/sessiontext", "internal/termtext", "internal/wait", "internal/envvar", "internal/secret", "internal/httpguard", "internal/par", "internal/held", "internal/english", "internal/readfile"},
		forbidden: testFrameworks},
	{name: "the log format and the driver seam", packages: []string{"session", "llm/..."}, forbidden: testFrameworks},
	{name: "stores, journal, replay driver, rendering, scenario", packages: []string{".", "persistence", "persistence/jsonl",
		"persistence/memory", "persistence/sqlite", "persistence/open", "journal", "fakellm", "transcript", "report", "budget", "scenario"},
		forbidden: testFrameworks},
	// storetest returns errors for plain go test; testing only for its
	// benchmark helpers.
	{name: "the store contract", packages: []string{"persistence/storetest"},
		forbidden: []string{"github.com/onsi/", "github.com/sebdah/goldie/"}},
	{name: "the fixture folder", packages: []string{"fixture"},
		forbidden: append([]string{module + "/agent", module + "/wire"}, testFrameworks...)},
	// mcpsnap is a module of its own (the MCP SDK stays out of go.mod).
	{name: "runtimes", packages: []string{"agent/...", "wire", "mcpsnap"},
		forbidden: append([]string{module + "/judge", module + "/recorder"}, testFrameworks...)},
	// A user's test imports the harness, and so these: SQLite (a store
	// the CLI opens by name) stays out of its build.
	{name: "recorder and judge", packages: []string{"recorder", "judge"},
		forbidden: append([]string{module + "/persistence/open", module + "/persistence/sqlite", "modernc.org/"}, testFrameworks...)},
	{name: "test adapters and the CLI", packages: []string{"harness/...", "conformance", "cmd/...", "suites/...", "examples/...",
		"internal/aimock", "internal/drivertest", "internal/nexttest", "internal/wirebench/...", "internal/leaktest", "internal/unprivileged", "internal/fuzztree", "internal/layers/..."}},
}

// ownModules are the folders of the repository's modules beside the
// main one whose packages sit in the layers too (internal/wirebench/govcr
// keeps go-vcr, a benchmark's peer, out of go.mod).
var ownModules = []string{"mcpsnap", "internal/wirebench/govcr"}

// inModule returns go list's args for pattern p (relative to the main
// module): -C DIR for a package of ownModules.
func inModule(p string, args ...string) []string {
	for _, m := range ownModules {
		if p == m || strings.HasPrefix(p, m+"/") {
			return append(append([]string{"-C", m}, args...), "."+strings.TrimPrefix(p, m))
		}
	}
	if p == "." {
		return append(args, ".")
	}
	return append(args, "./"+p)
}

// goList runs go list in the module root with args.
func goList(t *testing.T, args ...string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	cmd := exec.Command(goTool, append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// layerOf returns the index of the layer holding pkg (relative to the
// module), or -1.
func layerOf(pkg string) int {
	for i, l := range layers {
		for _, p := range l.packages {
			if base, ok := strings.CutSuffix(p, "/..."); ok && (pkg == base || strings.HasPrefix(pkg, base+"/")) || pkg == p {
				return i
			}
		}
	}
	return -1
}

func rel(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

func TestImportsRunDownward(t *testing.T) {
	var problems []string
	lines := goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	for _, m := range ownModules {
		lines += goList(t, inModule(m+"/...", "-f", "{{.ImportPath}} {{join .Imports \" \"}}")...)
	}
	for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
		fields := strings.Fields(line)
		pkg := rel(fields[0])
		at := layerOf(pkg)
		if at < 0 {
			problems = append(problems, fmt.Sprintf("%s is in no layer: place it in a layer of internal/layers/layers_test.go and in README.md's Layout", pkg))
			continue
		}
		for _, imp := range fields[1:] {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			if to := layerOf(rel(imp)); to > at {
				problems = append(problems, fmt.Sprintf("%s (%s) imports %s (%s), a layer above it", pkg, layers[at].name, rel(imp), layers[to].name))
			}
		}
	}
	report(t, problems)
}

func TestLayersLinkNothingForbidden(t *testing.T) {
	var problems []string
	for _, l := range layers {
		if len(l.forbidden) == 0 {
			continue
		}
		for _, p := range l.packages {
			var pkg string
			for _, dep := range strings.Fields(goList(t, inModule(p, "-f", "{{.ImportPath}}:{{join .Deps \" \"}}")...)) {
				if name, deps, ok := strings.Cut(dep, ":"); ok {
					pkg, dep = rel(name), deps
				}
				if bad := forbidden(dep, l.forbidden); bad {
					problems = append(problems, fmt.Sprintf("%s (%s) links %s", pkg, l.name, dep))
				}
			}
		}
	}
	report(t, problems)
}

func forbidden(dep string, list []string) bool {
	for _, f := range list {
		if dep == f || strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f) {
			return true
		}
	}
	return false
}

// TestCLILinksNoTestFramework: the agentsnap command is a tool, not a test.
func TestCLILinksNoTestFramework(t *testing.T) {
	var problems []string
	for _, dep := range strings.Fields(goList(t, "-deps", "./cmd/agentsnap")) {
		if forbidden(dep, append([]string{"testing", module + "/harness"}, testFrameworks...)) {
			problems = append(problems, "cmd/agentsnap links "+dep)
		}
	}
	report(t, problems)
}

// TestExamplesLinkNoReferenceAgent: a user's tests replay their own
// runtime; agentsnap's reference agent is not in their binary.
func TestExamplesLinkNoReferenceAgent(t *testing.T) {
	var problems []string
	for _, dir := range []string{"sdkagent", "ownloop", "node-agent", "openai-agents-js", "vercel-ai", "eino", "langchaingo", "mcp-agent"} {
		pattern := "./examples/" + dir
		args := []string{"-deps", "-test", pattern}
		if _, err := os.Stat(filepath.Join("../../examples", dir, "go.mod")); err == nil {
			args = []string{"-C", "examples/" + dir, "-deps", "-test", "."} // its own module
		}
		if slices.Contains(strings.Fields(goList(t, args...)), module+"/agent") {
			problems = append(problems, "the tests of examples/"+dir+" link "+module+"/agent")
		}
	}
	report(t, problems)
}

// TestPlainTestBinaryHasNoGinkgoFlags: a go test that imports only the
// harness shows the harness's flags, not a framework's it never imported.
func TestPlainTestBinaryHasNoGinkgoFlags(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "plain.test")
	build := exec.Command(goTool, "test", "-c", "-o", bin, "./testdata/plain")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c ./testdata/plain: %v\n%s", err, out)
	}
	out, _ := exec.Command(bin, "-h").CombinedOutput() // -h exits 2
	help := string(out)
	if strings.Contains(help, "ginkgo") {
		t.Errorf("the plain test binary shows Ginkgo flags:\n%s", help)
	}
	for _, want := range []string{"-record", "-schedule-seed", "-update"} {
		if !strings.Contains(help, "\n  "+want+" ") && !strings.Contains(help, "\n  "+want+"\n") {
			t.Errorf("the plain test binary lacks the harness flag %s:\n%s", want, help)
		}
	}
}

func report(t *testing.T, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Errorf("%d problems:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
}
