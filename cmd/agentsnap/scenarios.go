package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
)

// findScenarios resolves the DIR arguments (default ./fixtures/...) of
// check, report and review to scenario folders in natural order, or
// returns the exit code of a failure it has reported.
func findScenarios(e *env, name string, pos []string) ([]string, int) {
	byDefault := len(pos) == 0
	if byDefault {
		pos = []string{"./fixtures/..."}
	}
	var dirs []string
	for _, p := range pos {
		found, err := scenarioDirs(e.path(p))
		if err != nil && byDefault && errors.Is(err, fs.ErrNotExist) {
			// A module of its own keeps its scenarios elsewhere
			// (testdata/fixtures, as the README's own agent does).
			return nil, fail(e, name, fmt.Errorf("no ./fixtures folder here, the default; name the folder your scenarios are in: go tool agentsnap %s %s", name, otherFixtures(e)))
		}
		if err != nil && errors.Is(err, fs.ErrNotExist) {
			return nil, fail(e, name, fmt.Errorf("%w; name a scenario, category or fixtures folder that exists: fixtures/fork/codeword, fixtures/fork or fixtures/...", err))
		}
		if err != nil {
			return nil, fail(e, name, err)
		}
		for _, d := range found {
			dirs = append(dirs, filepath.Clean(d))
		}
	}
	if len(dirs) == 0 {
		return nil, fail(e, name, fmt.Errorf("no scenarios under %s; create one with: go tool agentsnap new CATEGORY/NAME", strings.Join(pos, " ")))
	}
	slices.SortFunc(dirs, naturalCompare)
	// Arguments that overlap name a scenario once: replayed twice, its
	// second replay would meet the first's sessions in a kept store.
	return slices.Compact(dirs), exitOK
}

// oneScenario refuses a DIR of record or serve that names several
// scenarios — a category or fixtures folder, or a pattern DIR/... — rather
// than being one: the messages for a folder without a playbook.json or a
// scenario.json would tell the user to write one there. name is DIR as
// given, dir as resolved.
func oneScenario(command, name, dir string) error {
	root := strings.TrimSuffix(strings.TrimSuffix(dir, "..."), string(filepath.Separator))
	found, err := fixture.Discover(root)
	if err != nil || len(found) == 0 || len(found) == 1 && found[0] == filepath.Clean(dir) {
		return nil // one scenario, or none: the command's own checks say what is wrong
	}
	rel, err := filepath.Rel(root, found[0])
	if err != nil {
		return nil
	}
	example := filepath.Join(strings.TrimSuffix(strings.TrimSuffix(name, "..."), string(filepath.Separator)), rel)
	return fmt.Errorf("%s is not a scenario folder: it holds %s; %s takes one scenario folder at a time, such as: go tool agentsnap %s %s", name, english.Count(len(found), "scenario"), command, command, example)
}

// otherFixtures is the folder to suggest when ./fixtures is missing:
// testdata/fixtures when it exists, else a placeholder.
func otherFixtures(e *env) string {
	if fi, err := os.Stat(e.path(filepath.Join("testdata", "fixtures"))); err == nil && fi.IsDir() {
		return "testdata/fixtures/..."
	}
	return "DIR/..."
}

// scenarioDirs resolves one argument to scenario folders: the one rule
// of fixture.Discover (the tests' too), after the "..." of a pattern.
func scenarioDirs(arg string) ([]string, error) {
	return fixture.Discover(strings.TrimSuffix(strings.TrimSuffix(arg, "..."), string(filepath.Separator)))
}

// naturalCompare orders paths with their digit runs compared as numbers,
// so fan-out-2 comes before fan-out-10.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da != "" && db != "" {
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
