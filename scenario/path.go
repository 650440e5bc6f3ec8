package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ErrBadName is wrapped by the errors of FixtureDir.
var ErrBadName = errors.New("bad scenario name")

var namePart = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// FixtureDir returns root/CATEGORY/NAME for a scenario name "CATEGORY/NAME",
// refusing names that could escape root: absolute paths, "..", extra or
// empty components, characters outside [a-z0-9_-], and existing path
// components that are symlinks.
func FixtureDir(root, name string) (string, error) {
	if filepath.IsAbs(name) || strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("scenario: %w %q: give CATEGORY/NAME relative to %s, not an absolute path", ErrBadName, name, root)
	}
	parts := strings.Split(name, "/")
	if len(parts) != 2 {
		return "", fmt.Errorf("scenario: %w %q: want CATEGORY/NAME, such as fork/codeword", ErrBadName, name)
	}
	for _, p := range parts {
		if !namePart.MatchString(p) {
			return "", fmt.Errorf("scenario: %w %q: %q must be lower-case letters, digits, '-' or '_', starting with a letter or digit", ErrBadName, name, p)
		}
	}
	dir := filepath.Join(root, parts[0], parts[1])
	if err := noSymlinks(root, parts); err != nil {
		return "", err
	}
	return dir, nil
}

// noSymlinks refuses when root or a component under it is a symlink.
func noSymlinks(root string, parts []string) error {
	p := root
	for i := -1; i < len(parts); i++ {
		if i >= 0 {
			p = filepath.Join(p, parts[i])
		}
		st, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("scenario: %w", err)
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("scenario: %w: %s is a symlink; fixtures must be real folders inside %s", ErrBadName, p, root)
		}
	}
	return nil
}

// Within reports an error when dir, after resolving symlinks, is not inside
// root. Commands that take a fixture folder use it to stay in the tree.
func Within(root, dir string) error {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	rel, err := filepath.Rel(r, d)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("scenario: %w: %s is outside %s; give a fixture folder inside it", ErrBadName, dir, root)
	}
	return nil
}

// ErrLinkedFolder is wrapped by the error for a symlinked folder found
// while discovering the scenarios of a fixtures tree.
var ErrLinkedFolder = errors.New("symlinked folder in a fixtures tree")

// RefuseLinkedFolder returns an error when path, an entry e found while
// walking a fixtures tree, is a symlink to a folder or to nothing. Discovery
// neither follows such a link — a recording would then write outside the
// tree, and one scenario could be checked twice under two names — nor skips
// it silently, which would leave the scenario behind it unchecked while the
// run reports green. A symlink to a file is the caller's to treat like any
// file.
func RefuseLinkedFolder(path string, e fs.DirEntry) error {
	if e.Type()&fs.ModeSymlink == 0 {
		return nil
	}
	target, _ := os.Readlink(path)
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("scenario: %w: %s is a symlink to %s, which does not exist; remove the link (a fixtures tree holds real folders only)", ErrLinkedFolder, path, target)
	case err != nil:
		return fmt.Errorf("scenario: %w: %s is a symlink that cannot be followed: %w; remove the link (a fixtures tree holds real folders only)", ErrLinkedFolder, path, err)
	case !st.IsDir():
		return nil
	}
	return fmt.Errorf("scenario: %w: %s is a symlink to the folder %s; a fixtures tree holds real folders only and discovery does not follow links: replace the link with the folder itself, or name the folder it points to on the command line", ErrLinkedFolder, path, target)
}
