package fakellm

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/internal/par"
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
	logs    []*session.Log // nil when derived from files
	dir     string         // the logs' folder, for the default record command
}

// Prepare derives the script of every log — root and children in any
// order, as for New — and applies the override, with the derivation
// options among opts (WithAttempts, WithDeriveOptions, WithDeriver,
// WithOverride); the others are for Recording.Driver and ignored here.
func Prepare(logs []*session.Log, opts ...Option) (*Recording, error) {
	return prepare(logs, buildOptions(opts))
}

func prepare(logs []*session.Log, o options) (*Recording, error) {
	events := 0
	for _, l := range logs {
		events += len(l.Events)
	}
	scripts, err := eachLog(len(logs), &o, events >= parallelEvents, func(i int) (*Script, error) { return o.deriveLog(logs[i]) })
	if err != nil {
		return nil, err
	}
	return finish(&Recording{scripts: scripts, logs: logs}, &o)
}

// PrepareFiles is Prepare for logs in files, root and children in any
// order: each log is read, its script derived and the log let go, so no
// more logs are in memory at once than derivations run in parallel — what
// a large scenario replayed once needs. The
// drivers of such a recording know the recorded requests only through
// their scripts: [WithCallCheck] sees no Request.
func PrepareFiles(paths []string, opts ...Option) (*Recording, error) {
	o := buildOptions(opts)
	scripts, err := eachLog(len(paths), &o, true, func(i int) (*Script, error) {
		// One log at a time is read whole (reading it so is faster than
		// streaming it) and let go once its script is derived.
		l, err := session.ReadFile(paths[i])
		if err != nil {
			return nil, fmt.Errorf("fakellm: derive: %w; %s", err, o.fix("restore the log from version control, or re-record the scenario"))
		}
		if o.read != nil && l.Torn == nil {
			o.read(i, l)
		}
		return o.deriveLog(l)
	})
	if err != nil {
		return nil, err
	}
	rec := &Recording{scripts: scripts}
	if len(paths) > 0 {
		rec.dir = filepath.Dir(paths[0])
	}
	return finish(rec, &o)
}

// finish applies the override to rec's scripts.
func finish(rec *Recording, o *options) (*Recording, error) {
	if o.override != nil {
		if err := o.override.apply(rec.scripts); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// parallelEvents is how many events a scenario's logs hold in all from
// which Prepare derives their scripts on every processor: a few small logs
// (most fixtures) derive faster on one goroutine than the others cost to
// start and wake.
const parallelEvents = 2048

// eachLog derives the scripts of n logs, derive(i) the i-th, in their
// order. The built-in derivation runs on as many goroutines as there are
// processors (each log's script is its own) when parallel; a Deriver of
// the caller's runs on the caller's goroutine, which it may not expect to
// share. The error is the first log's in order, however the derivations
// interleave.
func eachLog(n int, o *options, parallel bool, derive func(i int) (*Script, error)) ([]*Script, error) {
	scripts, errs := make([]*Script, n), make([]error, n)
	if o.deriver != nil || !parallel {
		for i := range n {
			if scripts[i], errs[i] = derive(i); errs[i] != nil {
				return nil, errs[i]
			}
		}
		return scripts, nil
	}
	par.For(n, func(i int) { scripts[i], errs[i] = derive(i) })
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return scripts, nil
}

// Scripts returns the recording's scripts, after the override, in the
// order of its logs. They are shared: do not modify them.
func (r *Recording) Scripts() []*Script { return r.scripts }

// Driver returns a new driver that replays the recording from its start,
// with the driver options among opts (WithSchedule, WithVirtualTime,
// WithPace, WithLogf, WithRecordCommand, WithAdvice). A derivation option is an error:
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
	dir := "FIXTURE_DIR"
	if r.dir != "" {
		dir = r.dir
	} else if len(r.logs) > 0 && strings.HasSuffix(r.logs[0].Path, ".jsonl") {
		dir = filepath.Dir(r.logs[0].Path)
	}
	// An empty command, given or made, is the default's, as it was when
	// the command was a string.
	given := o.record
	o.record = func() string {
		if given != nil {
			if cmd := given(); cmd != "" {
				return cmd
			}
		}
		return "go tool agentsnap record " + dir
	}
	return build(r.scripts, r.logs, o)
}
