package judge

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/atomicfile"
)

// Pending goldens. When a replay matches its recording but its transcript
// differs from transcript.golden, the transcript is written beside the
// golden as a proposal, transcript.golden.new, for "agentsnap review" to
// accept (rename it over the golden) or reject (delete it). The golden
// itself is only ever written by an update or an accepted review. A replay
// that does not match its recording proposes nothing: its transcript is
// that of a broken replay. Under CI nothing is written or removed.

// ProposalSuffix ends a golden proposal's name: GOLDEN + ProposalSuffix.
const ProposalSuffix = ".new"

// ProposalFile is the name of a scenario's golden proposal.
const ProposalFile = fixture.ProposalFile

// ProposalPath returns the proposal beside the golden at path.
func ProposalPath(golden string) string { return golden + ProposalSuffix }

// ReviewCommand returns the command that reviews o's golden proposal.
func ReviewCommand(o *Outcome) string {
	return o.commands.tool("review", o.Fixture.Dir)
}

// ReviewDir returns the command that reviews the proposals of fixture
// folder dir, run from the module root as every command a failure offers.
func ReviewDir(dir string) string { return commands{}.tool("review", dir) }

// settleProposal keeps o's proposal in step with the comparison: it writes
// the transcript as the proposal when it differs from the golden (differs)
// and the replay matched its recording, and removes a stale proposal when
// it does not differ. It returns the proposal's path when one is pending
// because of this call, and a problem worth telling the user ("" when
// none).
func settleProposal(o *Outcome, differs bool) (pending, problem string) {
	path := ProposalPath(o.Fixture.Golden)
	switch {
	case UpdateRefusal() != "":
		return "", "" // CI checks goldens; it writes nothing, proposals included
	case !differs:
		if o.Fixture.ProposalUnlisted() {
			return "", "" // none was there when the folder was listed: no system call
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Sprintf("harness: removing the stale proposal %s: %v; delete it by hand", path, err)
		}
		return "", ""
	case !o.Passed():
		return "", "(no golden proposal written: the replay itself does not match its recording; fix that first)"
	}
	if why := o.holdsSecret(path); why != "" {
		return "", "(no golden proposal written) " + why
	}
	if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, []byte(o.Transcript)) {
		o.Fixture.NoteProposal()
		if err := atomicfile.WriteFile(path, []byte(o.Transcript), 0o644); err != nil {
			return "", fmt.Sprintf("harness: could not write the golden proposal: %v", err)
		}
	}
	goldens.proposed(path)
	return path, ""
}

// withdrawProposal removes the proposal beside golden, if any: an update
// wrote the golden, so the proposal is settled.
func withdrawProposal(golden string) error {
	path := ProposalPath(golden)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("harness: removing %s after the update: %w; delete it by hand", path, err)
	}
	return nil
}

// proposalNote is the lines a golden failure adds about its proposal.
func proposalNote(o *Outcome, pending, problem string) string {
	switch {
	case pending != "":
		return fmt.Sprintf("or accept the proposal written beside it, %s, after reviewing it with:\n  %s\n", pending, ReviewCommand(o))
	case problem != "":
		return problem + "\n"
	}
	return ""
}

// pendingProposals returns the proposals this process wrote that still
// exist, with those under roots, sorted and without repeats. Call it with
// goldens.mu held.
func pendingProposals(roots []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if key := filepath.Clean(p); !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	for _, p := range goldens.pending {
		if _, err := os.Stat(p); err == nil {
			add(p)
		}
	}
	for _, p := range fixture.FindProposals(roots...) {
		add(p)
	}
	slices.Sort(out)
	return out
}

// commonFolder returns the deepest folder holding every proposal's
// scenario folder: the scenario itself for one, else a category or the
// fixtures folder.
func commonFolder(proposals []string) string {
	common := filepath.Dir(proposals[0])
	for _, p := range proposals[1:] {
		dir := filepath.Dir(p)
		for common != dir && !strings.HasPrefix(dir, common+string(filepath.Separator)) {
			parent := filepath.Dir(common)
			if parent == common {
				return common
			}
			common = parent
		}
	}
	return common
}
