package recorder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/scenario"
)

// PlaybookOptions returns the options of a recording whose model answers
// come from dir/playbook.json, streamed with pace between chunks (0: at
// once). The playbook is validated, and a hang answer in a scenario without
// turnTimeout is refused: the recording would wait forever. The options
// serve one recording, as their driver counts the turns it played: a
// second Record with them is refused; call PlaybookOptions again for each
// recording. Runtime is left to the caller.
func PlaybookOptions(dir string, pace time.Duration) (Options, error) {
	path := filepath.Join(dir, fixture.PlaybookFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Options{}, fmt.Errorf("recorder: %s has no playbook.json; write one (agentsnap new scaffolds an example) or record from a live model (the reference agent: agentsnap record DIR --live --base-url URL --model M; an agent in another process: agentsnap serve DIR --record --live --base-url URL --model M; from your tests' -record, set AGENTSNAP_BASE_URL, AGENTSNAP_MODEL and a key variable)", dir)
	}
	if err != nil {
		return Options{}, fmt.Errorf("recorder: %w; playbook.json must be a file this user can read: restore it from version control, or fix its permissions", err)
	}
	pb, err := playbook.Parse(b, path)
	if err != nil {
		return Options{}, err
	}
	sc, err := scenario.Load(dir)
	if err != nil {
		return Options{}, err
	}
	if sc.TurnTimeout == 0 {
		if at := pb.FirstHang(); at != "" {
			return Options{}, fmt.Errorf("recorder: %s: %s is a hang answer, which waits until the turn is cancelled, but scenario.json sets no turnTimeout, so the recording would wait forever; set \"turnTimeout\" (e.g. \"500ms\") in %s", path, at, filepath.Join(dir, scenario.File))
		}
	}
	d := playbook.NewDriver(pb, path)
	return Options{
		Driver:   llm.Paced(d, pace),
		Consumed: d.Unused,
		Replayed: d.Skip,
		Provider: "playbook",
		Model:    "playbook",
		Playbook: fixture.PlaybookDigest(b),
		played:   new(atomic.Bool),
	}, nil
}

// LiveOptions returns the options of a recording from a live model d at
// endpoint (a URL without secrets, for messages) serving model.
func LiveOptions(d llm.Driver, endpoint, model string) Options {
	return Options{Driver: d, Live: true, Endpoint: endpoint, Provider: "openai-compatible", Model: model}
}
