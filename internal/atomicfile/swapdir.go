package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReplaceDir makes the folder next take the place of dir in one step and
// removes the old content. With exchange support (Linux renameat2) a crash
// at any point leaves dir either wholly old or wholly new. Elsewhere dir is
// moved aside first; a crash between the two renames leaves it aside as
// .<name>.old-*, which RecoverDir puts back. next must be in dir's parent
// folder. If dir does not exist, next is simply renamed to it.
func ReplaceDir(next, dir string) error {
	if filepath.Dir(filepath.Clean(next)) != filepath.Dir(filepath.Clean(dir)) {
		return fmt.Errorf("replace %s: %s is not in the same folder", dir, next)
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(next, dir); err != nil {
			return fmt.Errorf("replace %s: %w", dir, err)
		}
		return SyncDir(filepath.Dir(dir))
	}
	if err := exchange(next, dir); err == nil {
		if err := SyncDir(filepath.Dir(dir)); err != nil {
			return err
		}
		return os.RemoveAll(next) // now holds the old content
	}
	aside, err := os.MkdirTemp(filepath.Dir(dir), asidePrefix(filepath.Base(dir)))
	if err != nil {
		return fmt.Errorf("replace %s: %w", dir, err)
	}
	if err := os.Remove(aside); err != nil {
		return fmt.Errorf("replace %s: %w", dir, err)
	}
	if err := os.Rename(dir, aside); err != nil {
		return fmt.Errorf("replace %s: %w", dir, err)
	}
	if err := os.Rename(next, dir); err != nil {
		_ = os.Rename(aside, dir)
		return fmt.Errorf("replace %s: %w", dir, err)
	}
	if err := SyncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	return os.RemoveAll(aside)
}

// RecoverDir undoes what an interrupted ReplaceDir or a killed writer left
// beside dir: if dir is missing but a moved-aside copy exists, the copy is
// put back; stray temporary folders named .<name>.<tag>-* are removed for
// each tag given (for example "record"). It reports what it did.
func RecoverDir(dir string, tags ...string) ([]string, error) {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	entries, err := os.ReadDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var did []string
	_, statErr := os.Lstat(dir)
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(parent, name)
		switch {
		case strings.HasPrefix(name, asidePrefix(base)):
			if errors.Is(statErr, os.ErrNotExist) {
				if err := os.Rename(path, dir); err != nil {
					return did, err
				}
				statErr = nil
				did = append(did, "restored "+dir+" from "+name)
				continue
			}
			if err := os.RemoveAll(path); err != nil {
				return did, err
			}
			did = append(did, "removed "+path)
		default:
			for _, tag := range tags {
				if strings.HasPrefix(name, "."+base+"."+tag+"-") {
					if err := os.RemoveAll(path); err != nil {
						return did, err
					}
					did = append(did, "removed "+path)
				}
			}
		}
	}
	return did, nil
}

// asidePrefix begins the name of the folder ReplaceDir moves the folder
// base aside to.
func asidePrefix(base string) string { return "." + base + ".old-" }

// AsideOf reports, for the name of a folder, whether it is where ReplaceDir
// moved a folder aside, and that folder's name: ".codeword.old-123" is
// "codeword"'s.
func AsideOf(name string) (base string, ok bool) {
	i := strings.LastIndex(name, ".old-")
	if !strings.HasPrefix(name, ".") || i < 2 {
		return "", false
	}
	return name[1:i], true
}

// MovedAside returns the copy of dir an interrupted ReplaceDir left aside,
// the one RecoverDir puts back, when dir is missing; "" when dir exists or
// no copy does.
func MovedAside(dir string) string {
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		return ""
	}
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), asidePrefix(base)) {
			return filepath.Join(parent, e.Name())
		}
	}
	return ""
}
