package main

import (
	"flag"
	"io"
	"strings"
)

// parseFlags parses args with flags and positional arguments mixed in any
// order ("derive FILE --attempts acted-on" and "derive --attempts acted-on
// FILE" both work), returning the positionals. Everything after "--" is
// positional.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		// Parse drops the "--" it stops at; the token before rest shows it.
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		args = rest
		if len(args) == 0 {
			return pos, nil
		}
		if strings.HasPrefix(args[0], "-") && args[0] != "-" {
			continue
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
