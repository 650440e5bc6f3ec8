package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/scenario"
)

// findScenarios resolves the DIR arguments (default ./fixtures/...) of
// check, report and review to scenario folders in natural order, or
// returns the exit code of a failure it has reported.
func findScenarios(e *env, name string, pos []string) ([]string, int) {
	if len(pos) == 0 {
		pos = []string{"./fixtures/..."}
	}
	var dirs []string
	for _, p := range pos {
		found, err := scenarioDirs(e.path(p))
		if err != nil {
			return nil, fail(e, name, err)
		}
		dirs = append(dirs, found...)
	}
	if len(dirs) == 0 {
		return nil, fail(e, name, fmt.Errorf("no scenarios under %s; create one with: go tool agentsnap new CATEGORY/NAME", strings.Join(pos, " ")))
	}
	slices.SortFunc(dirs, naturalCompare)
	return dirs, exitOK
}

// scenarioDirs resolves one argument to scenario folders: the folder
// itself when it holds scenario.json, else every folder under it that
// does, skipping folders whose name starts with ".". The argument is
// followed when it is a symlink; a symlinked folder found under it is an
// error naming the link (scenario.RefuseLinkedFolder), the rule
// harness.Discover applies too.
func scenarioDirs(arg string) ([]string, error) {
	root := strings.TrimSuffix(strings.TrimSuffix(arg, "..."), string(filepath.Separator))
	if root == "" || root == "." {
		root = "."
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder; give a scenario folder, a category folder or a fixtures folder", arg)
	}
	if _, err := os.Stat(filepath.Join(root, scenario.File)); err == nil {
		return []string{root}, nil
	}
	walkRoot := root
	if lst, err := os.Lstat(root); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		walkRoot += string(filepath.Separator) // WalkDir does not follow a symlinked root itself
	}
	var out []string
	err = filepath.WalkDir(walkRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != walkRoot && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if err := scenario.RefuseLinkedFolder(p, d); err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == scenario.File {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
	return out, err
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
