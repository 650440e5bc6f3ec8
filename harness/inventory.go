package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// Discover returns the scenario folders root/CATEGORY/NAME, sorted. Folders
// starting with "." (temporary folders of a recording) are skipped. A
// category or scenario folder that is a symlink (to a folder, or to
// nothing) is an error naming it (scenario.RefuseLinkedFolder): never
// followed, never skipped silently.
func Discover(root string) ([]string, error) {
	cats, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	var out []string
	for _, c := range cats {
		cat := filepath.Join(root, c.Name())
		if strings.HasPrefix(c.Name(), ".") {
			continue
		}
		if err := scenario.RefuseLinkedFolder(cat, c); err != nil {
			return nil, fmt.Errorf("harness: %w", err)
		}
		if !c.IsDir() {
			continue
		}
		names, err := os.ReadDir(cat)
		if err != nil {
			return nil, fmt.Errorf("harness: %w", err)
		}
		for _, n := range names {
			dir := filepath.Join(cat, n.Name())
			if strings.HasPrefix(n.Name(), ".") {
				continue
			}
			if err := scenario.RefuseLinkedFolder(dir, n); err != nil {
				return nil, fmt.Errorf("harness: %w", err)
			}
			if n.IsDir() {
				out = append(out, dir)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// Inventory checks the fixture tree under root: every scenario folder must
// hold scenario.json, session.jsonl and transcript.golden, with child logs
// numbered without gaps. It returns one problem per line, or nil.
func Inventory(root string) []string {
	dirs, err := Discover(root)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	for _, dir := range dirs {
		for _, f := range []string{scenario.File, session.RootFile, scenario.GoldenFile} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				problems = append(problems, fmt.Sprintf("%s: missing %s; %s", dir, f, fixFor(f, dir)))
			}
		}
		if _, err := os.Stat(filepath.Join(dir, session.RootFile)); err == nil {
			paths, err := recordedLogs(dir)
			if err == nil {
				err = missingChild(dir, len(paths)-1)
			}
			if err != nil {
				problems = append(problems, err.Error())
			}
		}
	}
	return problems
}

func fixFor(file, dir string) string {
	c := commands{cli: true}
	switch file {
	case scenario.File:
		return "every scenario folder needs one (go tool agentsnap new CATEGORY/NAME scaffolds it)"
	case scenario.GoldenFile:
		return "create it with: " + c.tool("check --update", dir)
	}
	return "record the scenario with: " + c.tool("record", dir)
}
