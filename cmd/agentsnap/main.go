// Command agentsnap records, inspects, converts and checks the session logs
// of golden-snapshot tests for LLM agents. Run "agentsnap help" for the
// commands.
package main

import (
	"context"
	"errors"
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
	// flags returns a new flag set holding the command's flags with their
	// defaults and descriptions (an empty set for a command without
	// flags): "agentsnap help NAME" lists them and a --help among the
	// arguments is told from a flag value with them. A command's run
	// parses with a set built the same way, so the two cannot drift.
	flags func() *flag.FlagSet
	run   func(ctx context.Context, env *env, args []string) int
}

// env is what a command may touch; tests replace it.
type env struct {
	stdin          io.Reader // nil reads as empty
	stdout, stderr io.Writer
	// getenv reads the variables only the CLI reads: API keys, the live
	// model's, NO_COLOR, GOGC. Not CI and AGENTSNAP_FORCE_UPDATE: whether
	// fixtures may be written is decided by fixture.WritesRefused, from
	// the process's environment, for the CLI (record, serve --record,
	// check --update, review) and the library it calls (judge.UpdateGolden,
	// the golden proposals of a check) alike, as for the harness.
	getenv func(string) string
	dir    string // working folder; "" means the process's
	// args are the command's arguments: usageError and fail escape those
	// that hold a line break or a control character, and their path
	// elements (unsafeArgs), wherever their message quotes them — looked
	// for only when there is a message.
	args []string
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
	// A reader that stops reading (check … | head) makes a write to stdout
	// fail with EPIPE instead of killing agentsnap mid-command: check still
	// removes its temporary store and writes its --report file. Notify,
	// not Ignore: a program agentsnap starts gets SIGPIPE's default back.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
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
	case "-h", "-help", "--help":
		name = "help"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "agentsnap: unknown command %q\n\n", name)
		printCommands(e.stderr)
		return exitUsage
	}
	if helpAsked(c, args[1:]) {
		printHelp(e.stdout, c)
		return exitOK
	}
	e.args = args[1:]
	return c.run(ctx, e, args[1:])
}

// helpAsked reports whether args ask for the command's help with -h, -help
// or --help (before any "--"). Parsing with the command's flag set tells
// a value such as "--model -h" from a call for help; it is done only when
// an argument could be one, since the command parses its flags again.
func helpAsked(c *command, args []string) bool {
	if !slices.ContainsFunc(args, namesHelp) {
		return false
	}
	_, err := parseFlags(c.flags(), args)
	return errors.Is(err, flag.ErrHelp)
}

// namesHelp reports whether arg is the flag h or help (-h, --help,
// -help=true): the only flags the flag package answers with ErrHelp.
func namesHelp(arg string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok {
		return false
	}
	name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
	return name == "h" || name == "help"
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

// usageError prints the command's usage line with a reason and where the
// full help is, and returns exitUsage.
func usageError(e *env, name, format string, args ...any) int {
	c := commands[name]
	fmt.Fprintf(e.stderr, "agentsnap %s: %s\nusage: %s\nrun \"agentsnap help %s\" for the details and flags\n", name, printableLines(escapeNames(fmt.Sprintf(format, args...), unsafeArgs(e.args))), usageLine(c), c.name)
	return exitUsage
}

// fail prints an error for a command and returns exitBadData. The error
// may quote a folder's or a session's name, which a terminal must show,
// not act on: its control characters are escaped, its lines kept, and a
// line break in an argument it quotes escaped too.
func fail(e *env, name string, err error) int {
	if stdoutLeft(e, err) {
		// derive … | head: the reader took what it wanted. The command
		// fails, its output cut short, as the signal would have ended it,
		// and as quietly.
		return exitBadData
	}
	fmt.Fprintf(e.stderr, "agentsnap %s: %s\n", name, printableLines(escapeNames(err.Error(), unsafeArgs(e.args))))
	return exitBadData
}

// warn prints a line of command name's to stderr that is no failure (a
// warning, a note), escaped as fail escapes an error: a name the line
// quotes can neither drive the terminal nor split the line. A name that
// is no argument of the command (a log of a folder given) reaches it
// escaped already (printable).
func warn(e *env, name, format string, args ...any) {
	fmt.Fprintf(e.stderr, "agentsnap %s: %s\n", name, printableLines(escapeNames(fmt.Sprintf(format, args...), unsafeArgs(e.args))))
}

func init() {
	register(&command{
		name:    "help",
		args:    "[COMMAND]",
		summary: "list the commands, or explain one: its arguments, details and flags",
		order:   100,
		detail: `
Without COMMAND, lists the commands. With one, prints its usage line, what
it does and its flags with their defaults. "agentsnap COMMAND --help" (or -h)
prints the same.`,
		flags: func() *flag.FlagSet { return newFlagSet("help") },
		run:   runHelp,
	})
}

func runHelp(_ context.Context, e *env, args []string) int {
	pos, err := parseFlags(newFlagSet("help"), args)
	if err != nil {
		return usageError(e, "help", "%v", err)
	}
	switch len(pos) {
	case 0:
		printCommands(e.stdout)
		return exitOK
	case 1:
	default:
		return usageError(e, "help", "want at most one COMMAND, got %d arguments", len(pos))
	}
	c, ok := commands[pos[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "agentsnap help: unknown command %q\n\n", pos[0])
		printCommands(e.stderr)
		return exitUsage
	}
	printHelp(e.stdout, c)
	return exitOK
}

func usageLine(c *command) string {
	return strings.TrimSpace("agentsnap " + c.name + " " + c.args)
}

// printHelp prints a command's usage line, summary, detail and flags.
func printHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", usageLine(c), c.summary)
	if c.detail != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.detail))
	}
	printFlags(w, c.flags())
}

// printFlags lists a flag set the way the usage lines spell flags
// (--name VALUE), with each description, wrapped, and any default that is
// not the zero value.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	type row struct{ name, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name // -o, as it is written
		}
		if value != "" {
			name += " " + value
		}
		switch f.DefValue {
		case "", "false", "0", "0s":
		default:
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		rows = append(rows, row{name, usage})
		width = max(width, len(name))
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range rows {
		lines := wrap(r.usage, max(helpWidth-len(indent), 30))
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.name, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%s%s\n", indent, l)
		}
	}
}

// helpWidth is the width help text is wrapped to.
const helpWidth = 80
