package fakellm

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// Recording is a scenario's scripts, derived once from its logs with the
// override applied, for any number of drivers: a schedule search replays
// one Recording under every schedule without deriving it again. The
// drivers share only what a replay never changes — the scripts and the
// logs; each keeps its own bindings, cursors and calls in flight — so one
// replay leaves nothing behind for the next. A Recording is safe for
// concurrent use.
type Recording struct {
	scripts []*Script
	logs    []*session.Log
}

// Prepare derives the script of every log — root and children in any
// order, as for New — and applies the override, with the derivation
// options among opts (WithAttempts, WithDeriveOptions, WithDeriver,
// WithOverride); the others are for Recording.Driver and ignored here.
func Prepare(logs []*session.Log, opts ...Option) (*Recording, error) {
	return prepare(logs, buildOptions(opts))
}

func prepare(logs []*session.Log, o options) (*Recording, error) {
	scripts := make([]*Script, 0, len(logs))
	for _, l := range logs {
		s, err := o.deriveLog(l)
		if err != nil {
			return nil, err
		}
		scripts = append(scripts, s)
	}
	if o.override != nil {
		if err := o.override.apply(scripts); err != nil {
			return nil, err
		}
	}
	return &Recording{scripts: scripts, logs: logs}, nil
}

// Scripts returns the recording's scripts, after the override, in the
// order of its logs. They are shared: do not modify them.
func (r *Recording) Scripts() []*Script { return r.scripts }

// Driver returns a new driver that replays the recording from its start,
// with the driver options among opts (WithSchedule, WithVirtualTime,
// WithPace, WithLogf, WithRecordCommand). A derivation option is an error:
// the recording is derived already, and a driver that silently replayed
// other scripts than asked would prove nothing.
func (r *Recording) Driver(opts ...Option) (*Driver, error) {
	o := buildOptions(opts)
	if o.derives != "" {
		return nil, fmt.Errorf("fakellm: Recording.Driver: %s is a derivation option; pass it to Prepare, which derives the scripts every driver of the recording replays", o.derives)
	}
	return r.driver(o)
}

func (r *Recording) driver(o options) (*Driver, error) {
	if o.record == "" {
		dir := "FIXTURE_DIR"
		if len(r.logs) > 0 && strings.HasSuffix(r.logs[0].Path, ".jsonl") {
			dir = filepath.Dir(r.logs[0].Path)
		}
		o.record = "go tool agentsnap record " + dir
	}
	return build(r.scripts, r.logs, o)
}
