package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
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
			return nil, flagValueError(fs, err)
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

// builtinValueError matches the flag package's error for a value its own
// kinds (a duration, a number, a boolean) cannot parse, which names the
// flag but ends in a bare "parse error" or "value out of range". Compiled
// on the first such error: every run of the CLI would pay for it at
// start-up, and only a mistyped flag needs it.
var builtinValueError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): (parse error|value out of range)$`)
})

// flagValueError rewrites such an error to say what the flag takes, in the
// style of the CLI's own bounds ("--timeout 0s: want a duration from 1s to
// 24h0m0s, such as 10m"). Any other error, a flag of agentsnap's own kind
// included (its message says what to give), is returned as it is.
func flagValueError(fs *flag.FlagSet, err error) error {
	m := builtinValueError().FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	value, name := m[1], m[2]
	f := fs.Lookup(name)
	getter, ok := f.Value.(flag.Getter)
	if !ok {
		return err
	}
	var want string
	switch getter.Get().(type) {
	case time.Duration:
		want = "want a duration such as 20ms, 30s, 10m or 1h30m"
	case bool:
		return fmt.Errorf("--%s=%s: want true or false, or --%s alone for true", name, strings.Trim(value, `"`), name)
	case int, int64, uint, uint64:
		want = "want a whole number such as " + f.DefValue + " (the default)"
	case float64:
		want = "want a number such as " + f.DefValue + " (the default)"
	default:
		return err
	}
	if m[3] == "value out of range" {
		want = "out of range; " + want
	}
	return fmt.Errorf("--%s %s: %s", name, value, want)
}
