//go:build !linux

package atomicfile

import "errors"

func exchange(a, b string) error { return errors.New("no atomic exchange on this platform") }
