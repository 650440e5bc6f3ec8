package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
)

func init() {
	register(&command{
		name:    "new",
		args:    "CATEGORY/NAME [--fixtures DIR]",
		summary: "scaffold a scenario: scenario.json and an example playbook.json",
		order:   10,
		detail: `
Creates DIR/CATEGORY/NAME (DIR defaults to ./fixtures) with an example
scenario.json (prompts, agent, tools) and a documented playbook.json (the
model's answers, authored, so recording needs no key), both written for
agentsnap's reference runtime: for an agent of your own, give its settings
under "agent" and its own tools' calls in the playbook. A fork/... scenario
gets a fork example, spawn/... a spawn example; any other category gets
the fork example, and new says so on stderr, with what that category
requires of a recording. Edit both, then record it (new prints these):

    agentsnap record DIR/CATEGORY/NAME
        with agentsnap's reference runtime
    AGENTSNAP_RECORD='^CATEGORY/NAME$' go test ./...
        with a runtime of your own, from its tests
    agentsnap serve DIR/CATEGORY/NAME --record --runtime NAME
        with an agent in another process, run against the URL serve prints

Names are lower-case letters, digits, '-' and '_'; they cannot leave the
fixtures folder.`,
		flags: func() *flag.FlagSet { fs, _ := newFlags(); return fs },
		run:   runNew,
	})
}

// newFlags builds new's flag set, for both parsing and help, and returns
// where --fixtures lands.
func newFlags() (*flag.FlagSet, *string) {
	fs := newFlagSet("new")
	root := fs.String("fixtures", "fixtures", "the fixtures `DIR` the scenario is created under")
	return fs, root
}

func runNew(_ context.Context, e *env, args []string) int {
	fs, root := newFlags()
	pos, err := parseFlags(fs, args)
	if err != nil {
		return usageError(e, "new", "%v", err)
	}
	if len(pos) != 1 {
		return usageError(e, "new", "want one CATEGORY/NAME, got %d arguments", len(pos))
	}
	if created, err := fixture.ScaffoldAs(e.path(*root), *root, pos[0]); err != nil {
		if created == "" && (errors.Is(err, syscall.ENOTDIR) || errors.Is(err, os.ErrPermission)) {
			// The bare "lstat DIR/fork: not a directory" or "mkdir ...:
			// permission denied" names no flag.
			err = fmt.Errorf("%w; --fixtures %s must be a folder this user can write (one that does not exist yet is created)", err, *root)
		}
		return fail(e, "new", err)
	}
	dir := filepath.Join(*root, pos[0]) // as the user named it
	if note := exampleNote(pos[0]); note != "" {
		warn(e, "new", "note: %s", note)
	}
	fmt.Fprintf(e.stdout, "created %s\n  %s/scenario.json   edit the prompts and the agent\n  %s/playbook.json    edit the model's answers\nthen record it:\n  go tool agentsnap record %s              with agentsnap's reference runtime\n  AGENTSNAP_RECORD='^%s$' go test ./...   with your own runtime, from its tests\n  go tool agentsnap serve %s --record --runtime NAME   with an agent in another process, run against the URL serve prints\n", dir, dir, dir, dir, pos[0], dir)
	return exitOK
}

// exampleNote says which example a scenario of a category without one of
// its own was given, and what its category asks of it beyond that example
// (judge.CategoryRules); "" for fork/ and spawn/, which have theirs.
func exampleNote(name string) string {
	category, _, _ := strings.Cut(name, "/")
	example := fixture.ExampleFor(category)
	if example == category {
		return ""
	}
	note := fmt.Sprintf("there is no example for %s/ scenarios (only for fork/ and spawn/), so %s starts from the %s example, a parent that forks one child; ", category, name, example)
	for _, r := range judge.CategoryRules {
		if r.Category == category {
			return note + fmt.Sprintf("%s/ scenarios need %s, which that example has not: edit scenario.json and playbook.json so the recording has it", category, r.Requires)
		}
	}
	return note + fmt.Sprintf("%s/ has no rules of its own, only the checks every scenario gets: edit it to what your agent does", category)
}
