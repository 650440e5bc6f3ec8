package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentsnap/agentsnap/internal/english"
	"golang.org/x/term"
)

// keys delivers what the reviewer types, one key at a time: single
// keystrokes from a terminal in raw mode, else the first character of each
// line ('\n' for an empty one).
type keys struct {
	ch   <-chan byte // closed at the end of the input
	done chan struct{}
}

// keyEOF is what next returns at the end of the input or on cancellation.
const keyEOF = 0

func readKeys(in io.Reader, raw bool) *keys {
	ch, done := make(chan byte), make(chan struct{})
	send := func(b byte) bool {
		select {
		case ch <- b:
			return true
		case <-done:
			return false
		}
	}
	go func() {
		defer close(ch)
		if in == nil {
			return
		}
		if raw {
			buf := make([]byte, 64)
			for {
				n, err := in.Read(buf)
				// An escape sequence (an arrow key: ESC [ A) or a paste
				// arrives as several bytes; none of it is an answer.
				b := byte('?')
				if n == 1 {
					b = buf[0]
				}
				if n > 0 && !send(b) || err != nil {
					return
				}
			}
		}
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			b := byte('\n')
			if line != "" {
				b = line[0]
			}
			if !send(b) {
				return
			}
		}
	}()
	return &keys{ch: ch, done: done}
}

// next waits for a key; keyEOF at the end of the input, on Ctrl-C or
// Ctrl-D in raw mode, or when ctx ends.
func (k *keys) next(ctx context.Context) byte {
	select {
	case b, ok := <-k.ch:
		if !ok || b == 3 || b == 4 {
			return keyEOF
		}
		return b
	case <-ctx.Done():
		return keyEOF
	}
}

func (k *keys) close() { close(k.done) }

// crlf turns "\n" into "\r\n": a terminal in raw mode moves down a line
// without returning to its start.
type crlf struct{ w io.Writer }

func (c crlf) Write(p []byte) (int, error) {
	if _, err := c.w.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isTerminal reports whether f is an *os.File on a terminal.
func isTerminal(f any) (int, bool) {
	file, ok := f.(*os.File)
	if !ok || file == nil {
		return 0, false
	}
	fd := int(file.Fd())
	return fd, term.IsTerminal(fd)
}

// palette colours diff lines; the zero palette adds nothing.
type palette struct{ on bool }

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

func (p palette) paint(code, s string) string {
	if !p.on {
		return s
	}
	return code + s + ansiReset
}

// diff colours a diff's lines: removed red, added green, hunks cyan.
func (p palette) diff(d string) string {
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@ "):
			lines[i] = p.paint(ansiCyan, l)
		case strings.HasPrefix(l, "-"):
			lines[i] = p.paint(ansiRed, l)
		case strings.HasPrefix(l, "+"):
			lines[i] = p.paint(ansiGreen, l)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// reviewInteractive asks about each proposal in turn. Once stdout cannot
// be written (its reader left: review | less, then q), it stops: a key
// typed then would settle a proposal the reviewer has not seen.
func reviewInteractive(ctx context.Context, e *env, props []proposal, force bool) int {
	shown := &firstError{w: e.stdout}
	out, raw := io.Writer(shown), false
	if fd, ok := isTerminal(e.stdin); ok {
		if state, err := term.MakeRaw(fd); err == nil {
			defer term.Restore(fd, state)
			out, raw = crlf{shown}, true
		}
	}
	_, tty := isTerminal(e.stdout)
	colour := palette{on: tty && e.getenv("NO_COLOR") == ""}
	in := readKeys(e.stdin, raw)
	defer in.close()

	fmt.Fprintf(out, "%s pending review\n", english.Count(len(props), "golden proposal"))
	var accepted, rejected, skipped, refused, holding int
	all := false
	i := 0
loop:
	for ; i < len(props); i++ {
		p := &props[i]
		showProposal(out, colour, i+1, len(props), p)
		key := byte('a')
		if !all {
			key = ask(ctx, out, in, "[a]ccept  [r]eject  [s]kip  [A]ccept all remaining  [q]uit: ", "arsAq")
		}
		if shown.err != nil {
			break
		}
		var err error
		switch key {
		case 'A':
			all = true
			fallthrough
		case 'a':
			if p.Refused != "" {
				fmt.Fprintf(out, "left pending: %s\n", p.Refused)
				holding++
				continue
			}
			if len(p.Warnings) > 0 && !force {
				fmt.Fprint(out, colour.paint(ansiYellow, "This proposal looks like a mistake (see the warnings above).")+"\n")
				if ask(ctx, out, in, "Accept it anyway? [y/N]: ", "") != 'y' {
					fmt.Fprintf(out, "left pending: %s\n", p.Proposal)
					refused++
					continue
				}
			}
			if err = acceptProposal(p); err == nil {
				fmt.Fprintf(out, "accepted: %s now holds the proposal\n", p.Golden)
				accepted++
			}
		case 'r':
			if err = rejectProposal(p); err == nil {
				fmt.Fprintf(out, "rejected: removed %s\n", p.Proposal)
				rejected++
			}
		case 's':
			fmt.Fprintf(out, "skipped: %s stays pending\n", p.Proposal)
			skipped++
		default: // q, or the end of the input
			break loop
		}
		if err != nil {
			fmt.Fprintf(out, "agentsnap review: %v\n", err)
			return exitFail
		}
	}
	left := skipped + refused + holding + len(props) - i
	if shown.err != nil {
		fmt.Fprintf(e.stderr, "agentsnap review: stopped: stdout cannot be written (%v), so the proposals cannot be shown; %d accepted, %d rejected, %d left pending: review them where stdout can be read\n", shown.err, accepted, rejected, left)
		return exitFail
	}
	fmt.Fprintf(out, "\nreview: %d accepted, %d rejected, %d left pending\n", accepted, rejected, left)
	if refused > 0 {
		fmt.Fprintf(out, "%s that looked like a mistake left pending; accept with --force once intended\n", english.Count(refused, "proposal"))
	}
	if holding > 0 {
		fmt.Fprintf(out, "%s holding a key left pending; reject, keep the key out of the scenario and of what the agent writes, then check again\n", english.Count(holding, "proposal"))
	}
	if refused+holding > 0 {
		return exitFail
	}
	return exitOK
}

// ask prompts until one of the valid keys (any key when valid is "",
// answered as 'y' for y or Y and 'n' otherwise) or the end of the input,
// and echoes the answer. A prompt that cannot be written is answered q:
// the reviewer did not see it.
func ask(ctx context.Context, out io.Writer, in *keys, prompt, valid string) byte {
	for {
		if _, err := fmt.Fprint(out, prompt); err != nil {
			return 'q'
		}
		k := in.next(ctx)
		switch {
		case k == keyEOF:
			fmt.Fprintln(out, "(end of input: quit)")
			return 'q'
		case valid == "":
			if k == 'y' || k == 'Y' {
				fmt.Fprintln(out, "y")
				return 'y'
			}
			fmt.Fprintln(out, "n")
			return 'n'
		case strings.IndexByte(valid, k) >= 0:
			fmt.Fprintln(out, string(k))
			return k
		}
		fmt.Fprintf(out, "\npress one of %s\n", strings.Join(strings.Split(valid, ""), ", "))
	}
}

// showProposal prints one proposal: where it is, its session diffs and its
// warnings.
func showProposal(out io.Writer, c palette, n, total int, p *proposal) {
	fmt.Fprintf(out, "\n%s %s\n", c.paint(ansiBold, fmt.Sprintf("[%d/%d] %s", n, total, printable(p.Scenario))), printable(p.Proposal))
	if len(p.Sessions) == 0 {
		fmt.Fprintln(out, "the proposal is the same as the golden")
	}
	for _, s := range p.Sessions {
		fmt.Fprintf(out, "%s (%s)\n%s", c.paint(ansiBold, "== "+printable(s.Session)+" =="), s.Status, c.diff(printableLines(s.Diff)))
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(out, c.paint(ansiYellow, "warning: "+printableLines(w)))
	}
	if p.Refused != "" {
		fmt.Fprintln(out, c.paint(ansiYellow, "not accepted: "+printableLines(p.Refused)))
	}
}
