// Command agentsnap records, inspects, converts and checks the session logs
// of golden-snapshot tests for LLM agents. Run "agentsnap help" for the
// commands.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
)

// command is one subcommand. Each lives in its own file and registers itself
// in init, so the table, the usage lines and "agentsnap help" come from one place.
type command struct {
	name    string
	args    string // usage after the name, e.g. "FILE [--attempts every|acted-on]"
	summary string // one line for the command list
	detail  string // paragraphs for "agentsnap help NAME"
	order   int    // position in the command list
	run     func(ctx context.Context, env *env, args []string) int
}

// env is what a command may touch; tests replace it.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	dir            string // working folder; "" means the process's
}

// path resolves a command-line path against the working folder.
func (e *env) path(p string) string {
	if e.dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.dir, p)
}

// newFlagSet returns a flag set that reports errors to the caller.
func newFlagSet(name string) *flag.FlagSet {
	return flag.NewFlagSet("agentsnap "+name, flag.ContinueOnError)
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// exit codes
const (
	exitOK      = 0
	exitFail    = 1 // the command ran and found a failure (check)
	exitUsage   = 2
	exitBadData = 1
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		printCommands(e.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return help(e, args[1])
		}
		printCommands(e.stdout)
		return exitOK
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "agentsnap: unknown command %q\n\n", name)
		printCommands(e.stderr)
		return exitUsage
	}
	return c.run(ctx, e, args[1:])
}

func sorted() []*command {
	out := make([]*command, 0, len(commands))
	for _, c := range commands {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *command) int {
		if a.order != b.order {
			return a.order - b.order
		}
		return strings.Compare(a.name, b.name)
	})
	return out
}

func printCommands(w io.Writer) {
	fmt.Fprintln(w, "agentsnap: golden-snapshot testing of LLM agents and their subagents")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: agentsnap COMMAND [ARGS]")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range sorted() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "agentsnap help COMMAND" for a command's arguments and details.`)
}

func help(e *env, name string) int {
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "agentsnap help: unknown command %q\n", name)
		return exitUsage
	}
	fmt.Fprintf(e.stdout, "usage: agentsnap %s %s\n\n%s\n", c.name, c.args, c.summary)
	if c.detail != "" {
		fmt.Fprintf(e.stdout, "\n%s\n", strings.TrimSpace(c.detail))
	}
	return exitOK
}

// usageError prints the command's usage line with a reason and returns exitUsage.
func usageError(e *env, name, format string, args ...any) int {
	c := commands[name]
	fmt.Fprintf(e.stderr, "agentsnap %s: %s\nusage: agentsnap %s %s\n", name, fmt.Sprintf(format, args...), c.name, c.args)
	return exitUsage
}

// fail prints an error for a command and returns exitBadData.
func fail(e *env, name string, err error) int {
	fmt.Fprintf(e.stderr, "agentsnap %s: %v\n", name, err)
	return exitBadData
}
