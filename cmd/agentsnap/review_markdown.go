package main

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/english"
	"github.com/agentsnap/agentsnap/judge"
)

// printProposalsMarkdown prints the proposals for a pull request comment:
// a section per scenario, a diff block per session. Its commands name the
// folders review was given (dirs), which the default does not find in a
// module whose scenarios are elsewhere. A write that fails is an error:
// the comment is the command's product (and a reader that stopped
// reading lost it too). Every name and path it quotes (a scenario's, a
// session's, a file's, and the messages that hold them) is escaped
// (mdText, mdCode), so a name holding a '|', a backtick, a '*', a '<', a
// '$' or a line break shows as written and cannot add markup to the
// comment.
func printProposalsMarkdown(out io.Writer, props []proposal, dirs []string) error {
	w := &firstError{w: out}
	where := ""
	for _, d := range dirs {
		where += " " + judge.ShellQuote(d)
	}
	settled := map[string]int{}
	for _, p := range props {
		settled[p.settled]++
	}
	fmt.Fprintf(w, "# Golden proposals\n\n")
	switch {
	case settled[""] == len(props):
		fmt.Fprintf(w, "%s pending review. Accept them with %s, or one at a time with %s.\n", english.Count(len(props), "proposal"), mdCode("go tool agentsnap review --accept"+where), mdCode("go tool agentsnap review"+where))
	case settled[""] > 0:
		fmt.Fprintf(w, "%s: %d accepted, %d rejected, %d pending. Review the pending ones with %s.\n", english.Count(len(props), "proposal"), settled["accepted"], settled["rejected"], settled[""], mdCode("go tool agentsnap review"+where))
	default:
		fmt.Fprintf(w, "%s: %d accepted, %d rejected.\n", english.Count(len(props), "proposal"), settled["accepted"], settled["rejected"])
	}
	for _, p := range props {
		proposal, golden := mdCode(p.Proposal), mdCode(p.Golden)
		switch p.settled {
		case "accepted":
			fmt.Fprintf(w, "\n## %s\n\n%s replaced %s (accepted).\n", mdText(p.Scenario), proposal, golden)
		case "rejected":
			fmt.Fprintf(w, "\n## %s\n\n%s was rejected and removed; %s stays.\n", mdText(p.Scenario), proposal, golden)
		default:
			fmt.Fprintf(w, "\n## %s\n\n%s would replace %s.\n", mdText(p.Scenario), proposal, golden)
		}
		if p.Refused != "" {
			fmt.Fprintf(w, "\n> **Not accepted:** %s\n", mdText(p.Refused))
		}
		for _, warn := range p.Warnings {
			fmt.Fprintf(w, "\n> **Warning:** %s (accepted only with `--force`)\n", mdText(warn))
		}
		if len(p.Sessions) == 0 {
			fmt.Fprintf(w, "\nThe proposal is the same as the golden.\n")
		}
		for _, s := range p.Sessions {
			fence := codeFence(s.Diff)
			fmt.Fprintf(w, "\n**%s** (%s)\n\n%sdiff\n%s%s\n", mdText(s.Session), mdText(s.Status), fence, s.Diff, fence)
		}
	}
	if w.err != nil {
		return fmt.Errorf("writing the markdown to stdout: %w; it is incomplete: write it where it can be read whole", w.err)
	}
	return nil
}

// codeFence returns a backtick fence longer than any backtick run in text,
// so a transcript quoting Markdown cannot close the block.
func codeFence(text string) string {
	return strings.Repeat("`", max(3, backtickRun(text)+1))
}

// backtickRun returns the length of the longest run of backticks in text.
func backtickRun(text string) int {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// mdText returns s as Markdown text on one line: escaped for a terminal
// first (printable: a line break or a control character shows as its
// escape), then each character Markdown could read as markup escaped with
// a backslash ('$' too: GitHub reads $...$ as math). An underscore inside
// a word is no markup, and stays.
func mdText(s string) string {
	s = printable(s)
	var b strings.Builder
	prev := rune(-1)
	for i, r := range s {
		switch {
		case strings.ContainsRune("\\`*<>[]|#~&!$", r):
			b.WriteByte('\\')
		case r == '_':
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			if !wordRune(prev) || !wordRune(next) {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// mdCode returns s as a Markdown code span on one line (printable first):
// its fence is longer than any backtick run in it, and a space pads an s
// that begins or ends with a backtick, which Markdown strips again.
func mdCode(s string) string {
	s = printable(s)
	fence := strings.Repeat("`", backtickRun(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}
