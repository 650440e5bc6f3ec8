package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/judge"
)

func init() {
	register(&command{
		name:    "review",
		args:    "[DIR...] [--accept | --reject] [--force] [--format json|markdown]",
		summary: "review golden proposals (transcript.golden.new): accept or reject each",
		order:   32,
		detail: `
A replay that matches its recording but whose transcript differs from
transcript.golden leaves the transcript beside the golden as a proposal,
transcript.golden.new (the suites and "agentsnap check" write it; never
under CI). review walks the proposals under the given folders (default
./fixtures/...), in natural order, and shows for each the diff golden ->
proposal [diff -golden +proposal], one diff per session that changed,
headed by its session line; a session only one side has shows whole as
added or removed.

In a terminal it asks for each: a accepts (the proposal replaces the
golden, atomically), r rejects (the proposal is deleted), s skips (it
stays pending), A accepts all remaining, q quits. Input that is not a
terminal is read a line at a time, by the line's first letter. Diffs are
coloured when stdout is a terminal and NO_COLOR is not set.

--accept accepts every proposal and --reject rejects every one, without
asking. --format json prints the proposals as a JSON array
([{"scenario", "dir", "golden", "proposal", "sessions": [{"session",
"status" (changed, added or removed), "diff"}], "warnings", "refused"}]) and
--format markdown as one section per scenario with diff blocks, for a pull
request comment, whose names are escaped so that none adds markup;
neither changes anything unless --accept or --reject is given too (the
markdown then says which proposals were accepted, rejected or left
pending).

review does not accept silently what is likely a mistake: a proposal in
which a session disappeared, a child's mode changed (spawn <-> fork) or a
fork's inherited prefix changed is listed with a warning and accepted only
with --force (in a terminal: a asks to confirm with y). Accepting writes
goldens and rejecting deletes proposals, so both are refused under CI
unless AGENTSNAP_FORCE_UPDATE=1 (check there writes and removes no
proposal either); listing them (--format without --accept or --reject)
is not.

A proposal holding the value of a key of the shell (the variables check
redacts: the API key variables, the base URL's credentials and those
AGENTSNAP_SECRET_VARS names) is never accepted, --force or not: a golden
is committed. review names its line and variable, never the value, and
leaves it pending; reject it, keep the key out of the scenario and of what
the agent writes, and check again.

Exit status 0 when done, 1 when a proposal refused as a likely mistake or
for a key was left pending (or a file could not be changed, or accepting or
rejecting is refused under CI, or stdout could not be written: the JSON or
markdown is lost, and review asking stops, settling nothing more), 2 on bad
usage.`,
		flags: func() *flag.FlagSet { return new(reviewFlags).set() },
		run:   runReview,
	})
}

type reviewFlags struct {
	accept, reject, force bool
	format                string
}

func (f *reviewFlags) set() *flag.FlagSet {
	fs := newFlagSet("review")
	fs.BoolVar(&f.accept, "accept", false, "accept every proposal without asking")
	fs.BoolVar(&f.reject, "reject", false, "reject (delete) every proposal without asking")
	fs.BoolVar(&f.force, "force", false, "accept proposals that drop a session or change a child's mode or fork seed")
	fs.StringVar(&f.format, "format", "", "print the proposals as `json|markdown` instead of asking")
	return fs
}

// proposal is one pending golden proposal; the member order is --format
// json's.
type proposal struct {
	Scenario string        `json:"scenario"`
	Dir      string        `json:"dir"`
	Golden   string        `json:"golden"`
	Proposal string        `json:"proposal"`
	Sessions []sessionDiff `json:"sessions"`
	Warnings []string      `json:"warnings"`
	// Refused says why the proposal is never accepted, --force or not: it
	// holds a key of the shell (see secretRefusal). "" when it may be.
	Refused string `json:"refused,omitempty"`
	// settled is what --accept or --reject did with it: "accepted",
	// "rejected", or "" while it is pending.
	settled string
}

func runReview(ctx context.Context, e *env, args []string) int {
	var f reviewFlags
	pos, err := parseFlags(f.set(), args)
	if err != nil {
		return usageError(e, "review", "%v", err)
	}
	if f.accept && f.reject {
		return usageError(e, "review", "--accept and --reject exclude each other")
	}
	switch f.format {
	case "", "json", "markdown":
	default:
		return usageError(e, "review", "--format %q: want json or markdown", f.format)
	}
	dirs, code := findScenarios(e, "review", pos)
	if code != exitOK {
		return code
	}
	secrets := secret.FromEnv(e.getenv)
	props, err := loadProposals(dirs, secrets)
	if err != nil {
		return fail(e, "review", err)
	}
	redactProposals(secrets, props)
	interactive := f.format == "" && !f.accept && !f.reject
	if len(props) == 0 {
		if f.format == "json" {
			if _, err := fmt.Fprintln(e.stdout, "[]"); err != nil {
				return fail(e, "review", err)
			}
		} else {
			fmt.Fprintf(e.stdout, "no golden proposals (%s) pending review\n", fixture.ProposalFile)
		}
		return exitOK
	}
	if f.accept || interactive {
		if why := judge.UpdateRefusal(); why != "" {
			return fail(e, "review", errors.New(why))
		}
	}
	if ci, refused := fixture.WritesRefused(); refused && f.reject {
		// Rejecting deletes a proposal, a file of the fixture folder: CI
		// changes none, as check there writes and removes no proposal.
		return fail(e, "review", fmt.Errorf("refusing to reject golden proposals with CI=%s: CI checks fixtures and changes no file of them, proposals included; reject locally, or set AGENTSNAP_FORCE_UPDATE=1 to force", ci))
	}
	log := e.stdout
	switch f.format {
	case "json":
		if err := writeJSON(e.stdout, props); err != nil {
			return fail(e, "review", err)
		}
		log = e.stderr // stdout holds the JSON
	case "markdown":
		log = e.stderr
		if f.accept || f.reject {
			// The comment says what this run did, so it is written after.
			code := settleAll(e, log, props, f.accept, f.force)
			if err := printProposalsMarkdown(e.stdout, props, pos); err != nil {
				return fail(e, "review", err)
			}
			return code
		}
		if err := printProposalsMarkdown(e.stdout, props, pos); err != nil {
			return fail(e, "review", err)
		}
	}
	switch {
	case f.accept || f.reject:
		return settleAll(e, log, props, f.accept, f.force)
	case interactive:
		return reviewInteractive(ctx, e, props, f.force)
	}
	return exitOK
}

// loadProposals reads the proposal of every scenario folder that has one,
// with its golden ("" when the golden is missing: every session is added),
// and refuses each that holds a value of secrets.
func loadProposals(dirs []string, secrets *secret.Set) ([]proposal, error) {
	var out []proposal
	for _, dir := range dirs {
		golden := filepath.Join(dir, fixture.GoldenFile)
		path := fixture.ProposalPath(golden)
		next, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil { // a folder, permissions: nothing check writes
			return nil, fmt.Errorf("%w; a proposal is a file agentsnap check writes: move this away (or fix its permissions), then check and review again", err)
		}
		old, err := os.ReadFile(golden)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w; the proposal beside it cannot be compared with it, nor accepted over it: restore the golden from version control (or fix its permissions), or move it away to accept the proposal as a new golden, then review again", err)
		}
		p := proposal{Scenario: fixture.Name(dir), Dir: dir, Golden: golden, Proposal: path, Refused: secretRefusal(secrets, path, next)}
		p.Sessions, p.Warnings = diffSessions(string(old), string(next))
		p.Sessions = append([]sessionDiff{}, p.Sessions...)
		p.Warnings = append([]string{}, p.Warnings...)
		out = append(out, p)
	}
	return out, nil
}

// secretRefusal says why the proposal at path, whose text is next, is
// never accepted: it holds a value of secrets, and a golden is committed.
// agentsnap writes no such proposal (judge refuses to); this is one made or
// edited by hand, or written by an older agentsnap. It names the line and
// the variable, never the value. "" when it holds none.
func secretRefusal(secrets *secret.Set, path string, next []byte) string {
	source, at, ok := secrets.Find(next)
	if !ok {
		return ""
	}
	line := 1 + bytes.Count(next[:at], []byte("\n"))
	return fmt.Sprintf("line %d of %s holds the value of %s, a credential, and a golden is committed: reject it (go tool agentsnap review --reject %s), keep the key out of the scenario and of what the agent writes, then check again",
		line, path, source, judge.ShellQuote(filepath.Dir(path)))
}

// acceptProposal renames the proposal over its golden: atomic, so the
// golden is always whole. A proposal holding a key is refused (Refused).
func acceptProposal(p *proposal) error {
	if p.Refused != "" {
		return fmt.Errorf("not accepting %s: %s", p.Proposal, p.Refused)
	}
	if err := os.Rename(p.Proposal, p.Golden); err != nil {
		return fmt.Errorf("accepting %s: %w%s", p.Proposal, err, folderAdvice(p.Proposal, err))
	}
	return atomicfile.SyncDir(filepath.Dir(p.Golden))
}

func rejectProposal(p *proposal) error {
	if err := os.Remove(p.Proposal); err != nil {
		return fmt.Errorf("rejecting %s: %w%s", p.Proposal, err, folderAdvice(p.Proposal, err))
	}
	return nil
}

// folderAdvice says what to do when a proposal could not be renamed or
// removed for want of permission: both change its folder, not the file.
func folderAdvice(proposal string, err error) string {
	if !errors.Is(err, fs.ErrPermission) {
		return ""
	}
	return fmt.Sprintf("; make the folder %s writable by this user (fix its permissions), then review again", filepath.Dir(proposal))
}

// settleAll accepts or rejects every proposal, except that a likely
// mistake is only accepted with force; it reports each to w.
func settleAll(e *env, w io.Writer, props []proposal, accept, force bool) int {
	code := exitOK
	for i := range props {
		p := &props[i]
		var err error
		switch {
		case !accept:
			if err = rejectProposal(p); err == nil {
				p.settled = "rejected"
				fmt.Fprintf(w, "rejected %s: removed %s\n", printable(p.Scenario), printable(p.Proposal))
			}
		case p.Refused != "":
			fmt.Fprintf(w, "left pending %s: %s\n", printable(p.Scenario), printableLines(p.Refused))
			code = exitFail
		case len(p.Warnings) > 0 && !force:
			fmt.Fprintf(w, "left pending %s: %s looks like a mistake:\n", printable(p.Scenario), printable(p.Proposal))
			for _, warn := range p.Warnings {
				fmt.Fprintf(w, "  warning: %s\n", printableLines(warn))
			}
			fmt.Fprintf(w, "  read its diff (go tool agentsnap review %s), then accept it with --force if it is intended\n", printable(p.Dir))
			code = exitFail
		default:
			if err = acceptProposal(p); err == nil {
				p.settled = "accepted"
				fmt.Fprintf(w, "accepted %s: %s now holds the proposal\n", printable(p.Scenario), printable(p.Golden))
			}
		}
		if err != nil {
			warn(e, "review", "%v", err)
			code = exitFail
		}
	}
	return code
}
